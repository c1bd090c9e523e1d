package doctor

import (
	"strings"
	"testing"
)

// SONiC's watermarks in JSON (sonic-utilities test vectors): the headroom
// list under its command is judged as headroom; the list pasted without
// its command says it cannot tell headroom from shared, and its fix asks
// for the command line; a queue list is judged as the queue table is.
func TestSwitchWatermarkJSONJudged(t *testing.T) {
	fs := diagnose(t, Options{}, nicTestdata("corpus/switch/sonic-pg-watermark-headroom-json-pg3-403-sonic-utilities.txt")).Findings
	f := nicMustFind(t, fs, "switch.headroom.exhausted", Info, "sonic Ethernet4 PG3: PFC headroom used, peak 403B")
	if strings.Contains(f.Title, "without its title") {
		t.Errorf("title %q", f.Title)
	}
	fs = diagnose(t, Options{}, nicTestdata("corpus/switch/sonic-pg-persistent-watermark-json-untitled-sonic-utilities.txt")).Findings
	f = nicMustFind(t, fs, "switch.headroom.exhausted", Info, "Ethernet4 PG3: peak 503B in a priority-group watermark table without its title")
	if !strings.Contains(f.Fix, "with -j the command line above the JSON") || !strings.Contains(f.Mechanism, "JSON (-j) has no title") {
		t.Errorf("fix %q\nmechanism %q", f.Fix, f.Mechanism)
	}
	fs = diagnose(t, Options{}, nicTestdata("corpus/switch/sonic-queue-watermark-unicast-json-sonic-utilities.txt")).Findings
	nicMustFind(t, fs, "switch.queue.watermark", Info, "sonic Ethernet4 UC3: lossless queue 3 buffered, peak 1.94KiB")
}
