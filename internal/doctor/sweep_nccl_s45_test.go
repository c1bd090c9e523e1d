package doctor

import (
	"strings"
	"testing"
)

// ncclLogFindingsS45 is what the doctor finds in each of the real NCCL logs
// taken from public threads in session 45 (testdata/corpus/nccl-log; each
// file names its source): every finding's id and severity, sorted. The
// first's tuner lines are 2.23's search of the net plugin's library for a
// packed tuner, no finding. The last two were read right before this
// session and guard what they show: a tuner falling back with no setting
// naming one is no finding, and the
// proxy service threads' INFO "Connection closed by localRank N" after a
// completion error is no lost rank.
var ncclLogFindingsS45 = []struct{ file, want string }{
	{"nccl-2.23.4-net-plugin-searched-for-packed-tuner-then-glog-bind-abort-uccl172.txt", "nccltests.failed:error"},
	{"nccl-2.26-2.27-doca-hgx-16-ranks-tuner-v4-default-name-internal-tuner-init-complete-nccltests319.txt", ""},
	{"nccl-2.19-2.20-ib-plugin-local-protection-vendor81-then-service-thread-closed-by-localrank-nccltests252.txt", "nccl.ib.local_protection:error"},
}

func TestNCCLLogCorpusFindingsS45(t *testing.T) { checkLogFindings(t, ncclLogFindingsS45) }

// NCCL 2.21-2.25 search the library NCCL_NET_PLUGIN named for a tuner
// packed with the net plugin and print "TUNER/Plugin: Plugin name set by
// env to" for it with no NCCL_TUNER_PLUGIN set (src/misc/tuner.cc,
// v2.23.4-1); a net plugin without a tuner (uccl-project/uccl#172, NCCL
// 2.23.4, UCCL's script setting NCCL_NET_PLUGIN alone) is no finding.
func TestNetPluginSearchedForTunerIsNoFinding(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.23.4-net-plugin-searched-for-packed-tuner-then-glog-bind-abort-uccl172.txt")
	for _, f := range fs {
		if f.ID == "nccl.plugin.no_symbol" {
			t.Errorf("net plugin's library read as a tuner NCCL_TUNER_PLUGIN named: %s", f.Title)
		}
	}
}

// Open MPI's report of a process that died on a signal (uccl-project/uccl#172:
// SIGABRT after UCCL's glog check on bind failed) is a crash of the job,
// told with the host and the signal, its "Signal:" line as evidence after
// the glog line that says why it aborted.
func TestOpenMPISignalReportIsCrash(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.23.4-net-plugin-searched-for-packed-tuner-then-glog-bind-abort-uccl172.txt")
	f := nicMustFind(t, fs, "nccltests.failed", Error, "signal 6 (Aborted)", "n232-194-226")
	if len(f.Evidence) != 2 || f.Evidence[1].Line != 37 || !strings.Contains(f.Mechanism, "Check failed") {
		t.Errorf("evidence %+v\nmechanism %q", f.Evidence, f.Mechanism)
	}
}
