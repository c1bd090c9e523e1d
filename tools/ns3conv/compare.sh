#!/bin/sh
# compare.sh NS3_SIMULATION_DIR [RUNS]: the HPCC ns-3 comparison of
# docs/engine.md. NS3_SIMULATION_DIR is the model's simulation/ folder,
# built (./waf configure --build-profile=optimized; ./waf build). For each
# workload (scenarios/*.yaml; WORKLOADS="incast16-pfc" picks some) and
# seed (SEEDS, default 1: the seed draws the permutation and both
# simulators' random ECN marks, and rocelab's ECMP hash), it writes ns-3's
# input with ns3conv, runs ns-3's scratch/third and rocelab alternately
# RUNS times (default 3), rocelab on one thread, and prints ns3conv
# compare's table and the median wall and user+system seconds of each.
# ns-3's fct.txt and pfc.txt stay in the printed directory.
set -eu
ns3=$(cd "$1" && pwd)
runs=${2:-3}
third=$(ls "$ns3"/build/scratch/third "$ns3"/build/scratch/third-optimized 2>/dev/null | head -1)
[ -x "$third" ] || { echo "compare.sh: no built scratch/third under $ns3/build" >&2; exit 2; }
dir=$(mktemp -d)
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
go build -o "$dir/rocelab" ./cmd/rocelab
go build -o "$dir/ns3conv" ./tools/ns3conv
cp tools/ns3conv/scenarios/*.yaml "$dir"
export LD_LIBRARY_PATH="$ns3/build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "runs in $dir"

# timed NAME CMD...: appends the command's wall and user+system seconds
# to NAME.t.
timed() {
	name=$1
	shift
	/usr/bin/time -f '%e %U %S' -o "$dir/t" "$@" >/dev/null 2>&1
	awk '{print $1, $2 + $3}' "$dir/t" >>"$dir/$name.t"
}
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

for w in ${WORKLOADS:-incast16-dcqcn incast16-pfc perm32-dcqcn}; do
	for seed in $(seq 1 "${SEEDS:-1}"); do
		out="$dir/$w-seed$seed"
		mkdir "$out"
		"$dir/ns3conv" -dir "$out" -seed "$seed" "$dir/$w.yaml" 2>/dev/null
		rm -f "$dir/r.t" "$dir/n.t"
		i=0
		while [ "$i" -lt "$runs" ]; do
			timed r "$dir/rocelab" run --threads 1 --seed "$seed" "$dir/$w.yaml"
			(cd "$out" && timed n env NS_GLOBAL_VALUE="RngRun=$seed" "$third" config.txt)
			i=$((i + 1))
		done
		"$dir/ns3conv" compare -seed "$seed" "$dir/$w.yaml" "$out"
		printf 'seconds, median of %d: ns-3 wall %s cpu %s, rocelab wall %s cpu %s\n\n' "$runs" \
			"$(cut -d' ' -f1 "$dir/n.t" | median)" "$(cut -d' ' -f2 "$dir/n.t" | median)" \
			"$(cut -d' ' -f1 "$dir/r.t" | median)" "$(cut -d' ' -f2 "$dir/r.t" | median)"
	done
done
