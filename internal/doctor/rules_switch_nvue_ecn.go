package doctor

import (
	"fmt"

	"rocelab/internal/ingest"
	"rocelab/internal/nvue"
	"rocelab/internal/unit"
)

// multiTCProfile judges the ECN thresholds of Cumulus' RoCE mode
// lossy-multi-tc, which sets them itself (NVIDIA's RoCE and Packet
// Trimming pages, Cumulus Linux 5.14 and 5.15: "You do not need to
// configure additional settings"): its own profile, 163.00 KB to 234.00 KB
// at 5 % on traffic classes 1, 2 and 3, is shallow on purpose beside
// packet trimming, and is said so (info) rather than held to the one-BDP
// rule of a class DCQCN alone keeps from dropping. Thresholds that differ
// from the profile are judged as any other, with a note naming it.
func multiTCProfile(p ingest.ECNProfile, subject string, ev []Evidence) (f Finding, note string, own bool) {
	if p.Mode != "lossy-multi-tc" {
		return Finding{}, "", false
	}
	if !asProgrammed(p.GreenMin, nvue.MultiTCKmin) || !asProgrammed(p.GreenMax, nvue.MultiTCKmax) || p.GreenDropProbability != nvue.MultiTCProb {
		return Finding{}, fmt.Sprintf("These are not the thresholds mode lossy-multi-tc sets (%v to %v at probability %d%%): they were changed from its profile.",
			unit.Bytes(nvue.MultiTCKmin), unit.Bytes(nvue.MultiTCKmax), nvue.MultiTCProb), false
	}
	f = Finding{
		ID: "switch.ecn.thresholds", Severity: Info, Layer: LayerFabric, Subject: subject,
		Title: fmt.Sprintf("%s: RoCE mode lossy-multi-tc's own ECN profile, %v to %v at probability %d%%, shallow by design: no PFC, packet trimming on these classes",
			subject, unit.Bytes(p.GreenMin), unit.Bytes(p.GreenMax), p.GreenDropProbability),
		Evidence: evidenceInOrder(ev),
		Mechanism: "`nv set qos roce mode lossy-multi-tc` sets these thresholds itself; NVIDIA's RoCE page prints them as the mode's defaults. The mode runs no PFC (pfc-priority -), marks ECN on traffic classes 1, 2 and 3, and turns on packet trimming with its packet-trim-default profile (classes 1, 2 and 3 eligible; a packet trimmed to 256 bytes, remarked DSCP 11, sent on switch priority 4). " +
			"A queue that overflows trims the packet instead of dropping it, so the receiver learns of the loss at once and the sender retransmits without waiting for a timeout; low thresholds keep the queues, and the delay they add, short. " +
			"The one-BDP rule for max-threshold holds where ECN marks alone must slow senders before a queue drops or pauses (the lossless and lossy modes, 150 KB to 1.5 MB on classes 0 and 3); this mode leaves loss to trimming and the NICs.",
		Fix: "Nothing to change on the switch: the thresholds are the mode's. The mode relies on the NICs: PFC off on them (mlnx_qos -i <if> --pfc 0,0,0,0,0,0,0,0), their congestion control on, and NICs that act on trimmed packets (Spectrum-X SuperNICs). With NICs that expect a lossless class, `nv set qos roce mode lossless` instead.",
	}
	return f.per(subject, "profile", "ECN thresholds"), "", true
}

// asProgrammed reports whether a threshold v is the profile's want as an
// ASIC programs it: an interface's `qos roce status` prints the value in
// hardware, which NVIDIA's RoCE page shows up to 6.5 % off the system
// setting (150,000 bytes set, 159,744 programmed on Spectrum-4), so
// within a tenth of it is the profile's.
func asProgrammed(v, want int64) bool {
	return v >= 0 && 10*max(v-want, want-v) <= want
}
