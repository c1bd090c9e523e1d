#!/bin/sh
# record.sh NS3_SIMULATION_DIR SCENARIO SEED...: records the HPCC ns-3
# model's run of a scenario for each seed, as TestAgreesWithNs3 reads it:
# ns3conv writes ns-3's input, scratch/third runs it with RngRun=SEED, and
# its fct.txt goes beside the scenario's runs (testdata/ns3/W-seedS.txt
# for scenarios/W.yaml, testdata/sweep/W-seedS.txt for
# testdata/sweep/W.yaml) under a head that names the build (NS3_SOURCE,
# else the directory), the run, and the sha256 of the input
# (TestRecordedRunsMatchInput holds it to what ns3conv writes now). With
# RECORD_PFC=1 it records ns-3's pfc.txt too, as W-seedS.pfc.txt under
# the same head.
set -eu
[ $# -ge 3 ] || { echo "usage: record.sh NS3_SIMULATION_DIR SCENARIO SEED..." >&2; exit 2; }
ns3=$(cd "$1" && pwd)
third=$(ls "$ns3"/build/scratch/third "$ns3"/build/scratch/third-optimized 2>/dev/null | head -1)
[ -x "$third" ] || { echo "record.sh: no built scratch/third under $ns3/build" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
scenario=$(realpath --relative-to=. "$2")
shift 2
case "$scenario" in
tools/ns3conv/scenarios/*) out=tools/ns3conv/testdata/ns3/$(basename "$scenario" .yaml) ;;
*) out=${scenario%.yaml} ;;
esac
dir=$(mktemp -d)
go build -o "$dir/ns3conv" ./tools/ns3conv
source=${NS3_SOURCE:-"github.com/alibaba-edu/High-Precision-Congestion-Control, simulation/ (ns-3 with waf), scratch/third built under $ns3"}
# header prints a record's head for the run of $seed.
header() {
	echo "# source: $source"
	echo "# run: go run ./tools/ns3conv -dir D -seed $seed $scenario; cd D && NS_GLOBAL_VALUE=RngRun=$seed third config.txt"
	echo "# input: sha256 of ns3conv's config.txt, topology.txt, flow.txt, trace.txt for this run: $("$dir/ns3conv" -hash -seed "$seed" "$scenario")"
}
for seed in "$@"; do
	"$dir/ns3conv" -dir "$dir" -seed "$seed" "$scenario" 2>/dev/null
	(cd "$dir" && LD_LIBRARY_PATH="$ns3/build" NS_GLOBAL_VALUE="RngRun=$seed" "$third" config.txt >/dev/null)
	{
		header
		echo "# ns-3's fct.txt as written: sip dip sport dport size start_time fct standalone_fct (times in ns)"
		cat "$dir/fct.txt"
	} >"$out-seed$seed.txt"
	echo "$out-seed$seed.txt"
	if [ -n "${RECORD_PFC:-}" ]; then
		{
			header
			echo "# ns-3's pfc.txt as written: time node node_type ifindex type (1 pause, 0 resume; time in ns)"
			cat "$dir/pfc.txt"
		} >"$out-seed$seed.pfc.txt"
		echo "$out-seed$seed.pfc.txt"
	fi
done
rm -r "$dir"
