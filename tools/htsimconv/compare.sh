#!/bin/sh
# compare.sh HTSIM_ROCE [RUNS]: the htsim comparison of docs/engine.md.
# Builds rocelab as CI does (CGO_ENABLED=0, the static binary that
# docs/exporter.md ships: with cgo, the dynamic loader and libc cost
# every run about 0.5 M instructions and 25-130 page faults more),
# writes the four workloads (128-host permutation, 127→1 incast, 3968
# chained ring flows, 1024-host permutation) for both simulators, at 4 KB
# (equal packet counts) and at htsim's 9 KB, and runs each pair in turn
# RUNS times (default 5), rocelab on one thread, htsim's output to files;
# WORKLOADS="incast127 ring" picks some. It prints the median user+system
# seconds of each and their ratio htsim/rocelab. Run it on a machine with
# a core free.
#
# COUNT=instructions counts instead, once each, the instructions of each
# whole process under valgrind (cachegrind without its cache simulation):
# a figure the machine's load does not move, for a busy machine. Go's
# runtime is held to what valgrind follows (no rdtscp, no asynchronous
# preemption, one processor). It prints millions and the ratio.
set -eu
htsim=$1
runs=${2:-5}
dir=$(mktemp -d)
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
CGO_ENABLED=0 go build -o "$dir/rocelab" ./cmd/rocelab
go build -o "$dir/htsimconv" ./tools/htsimconv
cp tools/htsimconv/scenarios/*.yaml "$dir"
"$dir/htsimconv" ring >"$dir/ring.yaml"
cd "$dir"

# cpu CMD...: the command's user+system seconds.
cpu() {
	/usr/bin/time -f '%U %S' -o "$dir/t" "$@" >"$dir/out" 2>&1
	awk '{print $1 + $2}' "$dir/t"
}
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# instr CMD...: the command's instructions, in millions.
instr() {
	valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" >"$dir/out" 2>"$dir/vg"
	awk '/I *refs:/ {gsub(",", "", $NF); print $NF / 1e6}' "$dir/vg"
}

if [ "${COUNT:-}" = instructions ]; then
	printf '%-10s %5s %10s %10s %8s\n' workload mtu rocelab_Mi htsim_Mi ratio
	for w in ${WORKLOADS:-perm128 incast127 ring perm1024}; do
		r=$(
			export GODEBUG=cpu.rdtscp=off,asyncpreemptoff=1 GOMAXPROCS=1
			instr ./rocelab run -q --threads 1 "$w.yaml"
		)
		for mtu in 4096 9000; do
			line=$(./htsimconv -mtu "$mtu" "$w.yaml" 2>&1 >"$w-$mtu.cm" | sed "s/ *#.*//; s/FILE.cm/$w-$mtu.cm/")
			# shellcheck disable=SC2086 # the printed command line is split as intended
			set -- ${line#htsim_roce }
			h=$(instr "$htsim" "$@" -o "$dir/htsim.log")
			printf '%-10s %5d %10.1f %10.1f %8.2f\n' "$w" "$mtu" "$r" "$h" "$(echo "$h $r" | awk '{print $1 / $2}')"
		done
	done
	exit 0
fi

printf '%-10s %5s %10s %10s %8s\n' workload mtu rocelab_s htsim_s ratio
for w in ${WORKLOADS:-perm128 incast127 ring perm1024}; do
	for mtu in 4096 9000; do
		line=$(./htsimconv -mtu "$mtu" "$w.yaml" 2>&1 >"$w-$mtu.cm" | sed "s/ *#.*//; s/FILE.cm/$w-$mtu.cm/")
		# shellcheck disable=SC2086 # the printed command line is split as intended
		set -- ${line#htsim_roce }
		: >r.txt
		: >h.txt
		i=0
		while [ "$i" -lt "$runs" ]; do
			cpu ./rocelab run -q --threads 1 "$w.yaml" >>r.txt
			cpu "$htsim" "$@" -o "$dir/htsim.log" >>h.txt
			i=$((i + 1))
		done
		r=$(median <r.txt)
		h=$(median <h.txt)
		printf '%-10s %5d %10s %10s %8.2f\n' "$w" "$mtu" "$r" "$h" "$(echo "$h $r" | awk '{print $1 / $2}')"
	done
done
