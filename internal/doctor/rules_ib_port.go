package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/counters"
	"rocelab/internal/ingest"
)

// ibPortRules judge an InfiniBand port's PMA error counters
// (.../ports/N/counters): the legacy PortCounters attribute, whose fields
// are 4 to 16 bits wide and stop at their maximum.
func ibPortRules() []Rule {
	return []Rule{
		{IDs: []string{"counters.ib.port_errors"}, Check: checkIBPortErrors},
		{IDs: []string{"input.garbled"}, Check: checkPerfqueryGarbled},
	}
}

// checkPerfqueryGarbled reports perfquery lines no rule could judge.
func checkPerfqueryGarbled(inc *Incident) []Finding {
	return garbledOf(inc, "perfquery output", func(a *ingest.Perfquery) []ingest.Garble { return a.Garbled },
		"These lines sit in a perfquery section (after its `# Port counters:` header) and have the shape of libibmad's field dump (`Name:....value`) but their value is not the decimal counter (or hexadecimal select field) perfquery prints, or the header names no port: the paste was edited or cut, so the counter was judged by no rule.",
		"Paste perfquery's unedited output: `perfquery -x <lid> <port> | tee perfquery.txt` (or `-C <dev> -P <port>`), and the legacy counters with `perfquery <lid> <port>`.")
}

// ibErrCounter is one PMA error counter and whether it tells the link's
// physical health.
type ibErrCounter struct {
	c        counters.Concept
	dir      counters.Dir
	physical bool
}

var ibErrCounters = []ibErrCounter{
	{counters.SymbolError, counters.RX, true},
	{counters.LinkErrorRecovery, counters.NoDir, true},
	{counters.LocalLinkIntegrity, counters.RX, true},
	{counters.PortRcvErrors, counters.RX, true},
	{counters.PortRcvRemotePhysErrors, counters.RX, true},
	{counters.PortXmitDiscard, counters.TX, false},
	{counters.ExcessiveBufferOverrun, counters.RX, false},
	{counters.VL15Dropped, counters.RX, false},
}

// checkIBPortErrors reports, per port, the error counters that moved or
// stand at their maximum. A saturated counter counts at least its
// maximum, and a before/after pair whose last dump is saturated cannot
// count the window at all. Physical errors on a link that also went down
// are the cable or transceiver.
func checkIBPortErrors(inc *Incident) []Finding {
	return perSample(inc, ingest.KindHWCounters, func(s *ingest.CounterSample) []Finding {
		var ev []ingest.Reading
		var parts []string
		physical, saturatedAny, onlyVL15 := false, false, true
		for _, k := range ibErrCounters {
			r, ok := s.Concept(k.c, k.dir, 0)
			if !ok {
				continue
			}
			last, _ := s.After.Get(r.Name)
			bits := counterBits(s, r.Name)
			sat := saturated(last.Value, bits) != ""
			if r.Value == 0 && !sat {
				continue
			}
			ev = append(ev, r)
			physical = physical || k.physical && r.Value > 0
			saturatedAny = saturatedAny || sat
			onlyVL15 = onlyVL15 && k.c == counters.VL15Dropped
			switch {
			case sat && s.IsDelta():
				parts = append(parts, fmt.Sprintf("%s stuck at %d (its %d-bit maximum: the window is not counted)", r.Name, last.Value, bits))
			case sat:
				parts = append(parts, fmt.Sprintf("%s at least %d (its %d-bit maximum)", r.Name, r.Value, bits))
			default:
				parts = append(parts, fmt.Sprintf("%s %d", r.Name, r.Value))
			}
		}
		if len(ev) == 0 {
			return nil
		}
		down, _ := s.Concept(counters.LinkDowned, counters.NoDir, 0)
		sev := Info
		switch {
		case physical && down.Value > 0 && s.IsDelta():
			sev = Error
		case physical && down.Value > 0, (saturatedAny || s.IsDelta()) && !onlyVL15:
			sev = Warn
		}
		return []Finding{perPort(Finding{
			ID: "counters.ib.port_errors", Severity: sev, Layer: LayerFabric,
			Title:     fmt.Sprintf("%s: InfiniBand port error counters: %s", s.Name(), strings.Join(parts, ", ")),
			Evidence:  readingsEvidence(ev...),
			Mechanism: ibPortMechanism(s, ev, physical, saturatedAny, down.Value),
			Fix:       ibPortFix(s, physical, saturatedAny),
		}, s, "InfiniBand port error counters")}
	})
}

// ibPortMechanism says what the counters that moved mean, counted over
// the sample's window.
func ibPortMechanism(s *ingest.CounterSample, ev []ingest.Reading, physical, saturated bool, down uint64) string {
	has := map[string]bool{}
	for _, r := range ev {
		has[r.Name] = true
	}
	var b strings.Builder
	b.WriteString("Counted " + window(s) + ".")
	if physical {
		b.WriteString(" symbol_error counts bits the receiver could not decode, port_rcv_errors packets it dropped as malformed (bad CRC among them), local_link_integrity_errors the times those physical errors passed their threshold, link_error_recovery the times the link retrained to recover, port_rcv_remote_physical_errors packets the far end already marked bad: errors of the wire itself, each a packet lost and resent by the transport.")
		if down > 0 {
			fmt.Fprintf(&b, " The same port's link also went down (link_downed %d): physical errors on a link that drops and retrains are the cable or the transceiver, not the traffic.", down)
		}
	}
	if has["port_xmit_discards"] {
		b.WriteString(" port_xmit_discards counts packets the port threw away instead of sending: queued for a link that was down, or held too long without flow-control credits (head-of-queue lifetime) behind congestion.")
		if down > 0 {
			b.WriteString(" On a port that went down, the discards are first of all what was queued while it was down.")
		}
	}
	if has["excessive_buffer_overrun_errors"] {
		b.WriteString(" excessive_buffer_overrun_errors counts the times the receive buffer overran in consecutive flow-control periods: the far end sent beyond the credits this port advertised, a flow-control fault (mismatched VL or buffer configuration) or flow-control packets lost to link errors.")
	}
	if has["VL15_dropped"] {
		b.WriteString(" VL15_dropped counts subnet management packets dropped, usually while the port was still initialising or the SM was busy; alone it does not slow data.")
	}
	if saturated {
		b.WriteString(" A counter at its width's maximum has stopped there (PortCounters' error fields are 4 to 16 bits wide): the true count is at least that, the value says nothing of when, and a pair of saturated dumps differs by zero whatever happened between them.")
	}
	return b.String()
}

// ibPortFix is what to do: the link's own test first when its physical
// counters moved, then counters that can count again.
func ibPortFix(s *ingest.CounterSample, physical, saturated bool) string {
	dev := nameOr(s.Device, "<dev>")
	port := s.Port
	if port == 0 {
		port = 1
	}
	// perfquery and ibqueryerrors name a port by its LID ("LID 21") or
	// GUID ("GUID 0x..."), which perfquery takes as arguments; mlxlink
	// needs the device.
	at := fmt.Sprintf("-C %s -P %d", dev, port)
	if lid, ok := strings.CutPrefix(dev, "LID "); ok {
		at = fmt.Sprintf("%s %d", lid, port)
	} else if guid, ok := strings.CutPrefix(dev, "GUID "); ok {
		at = fmt.Sprintf("-G %s %d", guid, port)
	}
	if strings.Contains(dev, " ") {
		dev = "<dev>"
	}
	var b strings.Builder
	if physical {
		fmt.Fprintf(&b, "Test the link: `mlxlink -d %s -p %d -c -e` (effective and raw BER, FEC, the module's DOM and the eye), on both ends. A raw BER above the FEC's limit or symbol errors that keep growing: reseat the cable, then replace the cable or transceiver (the side whose DOM receive power is low first). ", dev, port)
	}
	fmt.Fprintf(&b, "Read the extended 64-bit counters, which do not stop (`perfquery -x %[1]s`), then clear the legacy ones (`perfquery -R %[1]s`) and read them again after a known interval, or take a before/after pair around the job with `rocelab diagnose`, to see whether the errors still grow.", at)
	if saturated {
		b.WriteString(" Until they are cleared, a saturated counter can neither rise nor show that the fault is fixed.")
	}
	return b.String()
}
