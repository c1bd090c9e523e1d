package doctor

import (
	"strings"
	"testing"
)

// SYNTHETIC, in the formats of SONiC's headroom watermark and OS10's
// queuing statistics (a port channel, whose name both print): an OS10 queue's drops are no drops of a lossless
// queue (no input says which OS10 queue is lossless), so they do not make
// a used headroom an exhausted one.
func TestOS10QueueDropsNotHeadroom(t *testing.T) {
	fs := synthFindings(t, Options{},
		"Ingress headroom per PG:",
		"          Port    PG0    PG3    PG4",
		"--------------  -----  -----  -----",
		"port-channel10      0  51200      0",
		"",
		"leaf1# show queuing statistics interface port-channel 10",
		"Queue Packets                  Bytes                    Dropped-Packets          Dropped-Bytes",
		"3     2000                     200000                   50                       5000",
	)
	nicMustFind(t, fs, "switch.queue.drops", Warn, "port-channel10 queue 3")
	nicMustFind(t, fs, "switch.headroom.exhausted", Info, "port-channel10 PG3: PFC headroom used")
}

// SYNTHETIC: an OS10 row cut short is reported with OS10's own command to
// run again, not SONiC's `show queue counters`.
func TestOS10CutRowFix(t *testing.T) {
	fs := synthFindings(t, Options{},
		"leaf1# show queuing statistics interface ethernet 1/1/4",
		"Queue Packets                  Bytes                    Dropped-Packets          Dropped-Bytes",
		"3     20                       2000                     5",
	)
	f := nicMustFind(t, fs, "input.garbled", Warn, "3:1")
	if !strings.Contains(f.Fix, "`show queuing statistics interface ethernet 1/1/1`") || strings.Contains(f.Fix, "show queue counters") {
		t.Errorf("fix %q", f.Fix)
	}
}
