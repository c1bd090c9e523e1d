package doctor

import "testing"

// Arista EOS queue counters from an EANTC 2025 test (real outputs,
// testdata/corpus/switch with their sources): the VoQ drops toward Et31's
// traffic class 1, which the egress table does not show, are told with
// the share dropped; and, with no input saying which priorities run PFC
// (EOS keeps none lossless by default), neither those drops nor the
// ports' traffic are weighed against SONiC's default lossless queues 3
// and 4 (the ports were told their traffic rides a lossy queue).
func TestEOSVoQDropsNoSONiCLossless(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/eos-show-interfaces-counters-queue-voq-et31-tc1-drops-79.7m-eantc2025.txt")
	nicMustFind(t, fs, "switch.queue.drops", Warn, "Et31 VOQ1", "79745886 packets dropped, 16.6% of the 480662647", "lossless or not, no input says")
	nicMustNot(t, fs, "switch.queue.lossy_traffic")
	fs = diagnoseFiles(t, Options{}, "corpus/switch/eos-show-interfaces-counters-queue-voq-no-drops-olpfap0-eantc2025.txt")
	nicMustNot(t, fs, "switch.queue.lossy_traffic")
}
