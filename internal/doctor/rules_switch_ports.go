package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
)

// Rules over a switch port's own counters: SONiC `show interfaces
// counters` (and its errors, fec-stats and detailed subcommands, `show
// dropcounters counts`), Cumulus switchd's and cl-netstat's, the `show
// interfaces` blocks of Arista EOS and Cisco NX-OS, their errors tables,
// and HPE Aruba AOS-CX `show interface`: the packets a port dropped, and
// the frames its link corrupted.

// portCols are the names a port's counters go by in its output.
type portCols struct {
	rxDrop, txDrop, rxErr, rxOK, txOK string
}

func colsOf(p ingest.PortCount) portCols {
	if c, ok := platformOf(p.Platform); ok {
		return portCols{c.rxDrop, c.txDrop, c.rxErr, c.rxOK, c.txOK}
	}
	if p.ErrTable {
		return portCols{"InDiscards", "OutDiscards", p.RxErrCol, "", ""}
	}
	if p.IOS {
		return portCols{"input discards", "output discards", "input errors", "packets input", "packets output"}
	}
	if p.AOSCX {
		return portCols{"Dropped RX", "Dropped TX", "Errors RX", "Packets RX", "Packets TX"}
	}
	if p.DropCounts {
		return portCols{"RX_DROPS", "TX_DROPS", "RX_ERR", "", ""}
	}
	if p.Detailed {
		return portCols{"", "WRED Total Dropped Packets", "Jabbers+Fragments+Undersize Received", "Total Packets Received Without Errors", "Total Packets Transmitted Successfully"}
	}
	if p.Cumulus && p.RxErrCol == "" {
		return portCols{"HwIfInDiscards", "HwIfOutDiscards", "HwIfInErrors", "HwIfIn*castPkts", "HwIfOut*castPkts"}
	}
	return portCols{"RX_DRP", "TX_DRP", "RX_ERR", "RX_OK", "TX_OK"}
}

// txDropMechanism says what a port's egress drop counter counts.
func txDropMechanism(c portCols, p ingest.PortCount) string {
	if p.Detailed {
		return "WRED dropped these packets on the way out: a queue past its WRED minimum threshold drops packets it cannot mark (not ECN-capable, or ECN off on the queue) with a probability that rises to its maximum threshold. On a lossless queue set for ECN, RoCE's packets are ECN-capable and are marked, not dropped; drops there mean a queue whose WRED profile drops (ecnconfig's `ecn` mode) or traffic that is not ECN-capable. `show queue wredcounters` splits them by queue."
	}
	return "The " + c.txDrop + " counter counts packets the port dropped on the way out: a lossy egress queue full (congestion toward this port's peer), or a lossless queue the PFC watchdog declared stormed and now drops (action drop), which is where its drops show in the port counters."
}

// rxDropFinding reports ingress drops of a port.
func rxDropFinding(s *ingest.SwitchCounters, p ingest.PortCount) Finding {
	name, c := swName(s, p.Port), colsOf(p)
	sev, down := portDownNote(p, Warn)
	if few := fewDrops(p.RxDrop, p.RxOK); few != "" {
		sev, down = Info, down+few
	}
	if mgmt := asideNote(p); mgmt != "" {
		sev, down = Info, down+mgmt
	}
	fix := "Split the drops by reason with `show dropcounters counts` (or the platform's drop reasons) and by priority group with `show priority-group drop counters`; on a lossless PG, size the headroom for the cable length (`mmuconfig -l`)."
	if p.DropCounts {
		// the paste is `show dropcounters counts` already
		fix = "See which drop reasons the configured counters count (`show dropcounters configuration`, and `show dropcounters capabilities` for the reasons the ASIC can count) and add one for the reasons not yet split out (`config dropcounters install NAME PORT_INGRESS_DROPS REASON,...`); split by priority group with `show priority-group drop counters`; on a lossless PG, size the headroom for the cable length (`mmuconfig -l`)."
	}
	if p.Cumulus {
		fix = "Split the drops by cause (HwIfInBufferDrops is the ingress buffer, HwIfInL3Drops the forwarding decision) and by priority with `nv show interface " + p.Port + " counters qos` (pfc-stats, ingress-buffer); on a lossless priority, size the headroom for the cable length."
	}
	if p.IOS {
		fix = "Split the drops by reason and priority: on EOS `show interfaces counters discards` and `show priority-flow-control counters`, on NX-OS `show queuing interface " + p.Port + "` (ingress no-drop discards are headroom overflow); on a lossless priority, size the headroom for the cable length."
	}
	if c, ok := platformOf(p.Platform); ok {
		fix = "Split the drops by reason with " + onPort(c.rxReasons, p.Port) + " and by priority with " + onPort(c.pfc, p.Port) + "; watch whether " + c.rxDrop + " grows after " + onPort(c.clear, p.Port) + "; on a lossless priority, size " + c.headroom + " for the cable length."
	}
	if p.AOSCX {
		fix = "Run `show interface " + p.Port + "` again under traffic to see whether Dropped RX grows, and check the port's QoS (`show interface " + p.Port + "` prints its qos trust; an untrusted port puts RoCE in the default class); on a priority with PFC, size the headroom for the cable length."
	}
	return Finding{
		ID: "switch.queue.drops", Severity: sev, Layer: LayerFabric,
		Title:     fmt.Sprintf("%s: %s dropped at ingress (%s%s)%s", name, plural(int(p.RxDrop), "packet", "packets"), c.rxDrop, okOf(c.rxOK, p.RxOK), cleared(p)),
		Evidence:  []Evidence{p.Evidence},
		Mechanism: "The " + c.rxDrop + " counter counts packets the port dropped on arrival: ingress buffer (priority group) full, or packets the pipeline discards (ACL, bad VLAN, no route). On a lossless priority a full PG means the headroom overflowed." + down,
		Fix:       fix,
	}.per(name, "port", "Switch ingress drops")
}

// txDropFinding reports egress drops of a port: where the PFC watchdog's
// drop action and egress congestion on lossy queues show.
func txDropFinding(s *ingest.SwitchCounters, p ingest.PortCount) Finding {
	name, c := swName(s, p.Port), colsOf(p)
	ev := []Evidence{p.Evidence}
	if p.TxEvidence.Line > 0 {
		ev[0] = p.TxEvidence
	}
	var wdDrops uint64
	for _, w := range s.WD {
		if w.Port == p.Port && w.TxDrop > 0 {
			wdDrops += w.TxDrop
			ev = append(ev, w.Evidence)
		}
	}
	sev, why := portDownNote(p, Warn)
	if few := fewDrops(p.TxDrop, p.TxOK); few != "" {
		sev, why = Info, why+few
	}
	if mgmt := asideNote(p); mgmt != "" {
		sev, why = Info, why+mgmt
	}
	if wdDrops > 0 {
		sev = Error
		why = fmt.Sprintf(" The PFC watchdog dropped %d packets on this port's lossless queues: some of these are RoCE packets of a stormed queue.", wdDrops)
	}
	if n, pev := linkPauseReceived(s, p.Port); n > 0 {
		ev = append(ev, pev)
		why += fmt.Sprintf(" The port also received %d pause frames: its peer paused it. 802.3x pause stops every queue, so lossy ones fill and drop while it lasts; PFC stops only its priority's queue, which holds its packets rather than drop them.", n)
	}
	fix := "Split them by queue with " + sonicOnPort("show queue counters", p.Port) + " (drops on queues 3/4 are lossless traffic) and check `show pfcwd stats`; if the watchdog dropped, find the device on this port that keeps sending pause (`show lldp table`, its NIC's tx_prioN_pause counters)."
	if p.Cumulus {
		fix = "Split them by queue with `nv show interface " + p.Port + " counters qos` (egress-queue; HwIfOutQDrops is the queues' share) and check the PFC watchdog (`nv show interface " + p.Port + " qos pfc-watchdog`) and the device on this port that keeps sending pause (`nv show interface " + p.Port + " lldp`, its NIC's tx_prioN_pause counters)."
	}
	if p.IOS {
		fix = "Split them by queue (EOS `show interfaces " + p.Port + " counters queue`, NX-OS `show queuing interface " + p.Port + "`): drops on the RoCE queue are lossless traffic lost; check the PFC watchdog (EOS `show priority-flow-control counters watchdog`) and the device on this port that keeps sending pause (`show lldp neighbors`, its NIC's tx_prioN_pause counters)."
	}
	if c, ok := platformOf(p.Platform); ok {
		fix = "Split them by queue with " + onPort(c.queues, p.Port) + ": drops on the RoCE class are lossless traffic lost; check the PFC watchdog or deadlock detection (" + onPort(c.watchdog, p.Port) + "; " + onPort(c.wdConfig, p.Port) + ") and the device on this port that keeps sending pause (" + c.neighbors + ", its NIC's tx_prioN_pause counters)."
	}
	if p.AOSCX {
		fix = "Split them by queue with `show interface " + p.Port + " queues` (Tx Errors: the packets each egress queue dropped): drops on the queue RoCE's class maps to are RoCE packets lost, to be resent by go-back-N; give that queue PFC and ECN, or more of the schedule profile's bandwidth, and check the device on this port that pauses it (" + aoscxNeighbors(p) + ", its NIC's tx_prioN_pause counters)."
	}
	return Finding{
		ID: "switch.queue.drops", Severity: sev, Layer: LayerFabric,
		Title:     fmt.Sprintf("%s: %s dropped at egress (%s%s)%s", name, plural(int(p.TxDrop), "packet", "packets"), c.txDrop, okOf(c.txOK, p.TxOK), cleared(p)),
		Evidence:  evidenceInOrder(ev),
		Mechanism: txDropMechanism(c, p) + why,
		Fix:       fix,
	}.per(name+" "+c.txDrop, "port", "Switch egress drops")
}

// linkPauseReceived returns the pause frames a port received by its
// `show interface(s)` pause counter (SwitchPFC.Link), with its line.
func linkPauseReceived(s *ingest.SwitchCounters, port string) (uint64, Evidence) {
	for _, r := range s.PFC {
		if r.Link && r.Port == port && r.Dir == ingest.RX {
			return r.Frames, r.Evidence
		}
	}
	return 0, Evidence{}
}

// portDownNote returns the severity of a port's drop counts and what to
// add to their mechanism: on a port that is down or disabled now (STATE D
// or X) they are info, counted before it went down (or a virtual switch's
// own), since no traffic crosses it.
func portDownNote(p ingest.PortCount, sev Severity) (Severity, string) {
	switch p.State {
	case "D":
		return Info, " The port is down now: no traffic crosses it, so these were counted before it went down."
	case "X":
		return Info, " The port is disabled (admin down): no traffic crosses it, so these were counted before it was shut."
	}
	return sev, ""
}

// okOf names a port's packet count beside its drops, "" when its table
// (show interfaces counters errors) does not print it.
func okOf(col string, n int64) string {
	if n < 0 {
		return ""
	}
	return fmt.Sprintf("; %s %d", col, n)
}

// cleared says since when a port's counters count, when its output says.
func cleared(p ingest.PortCount) string {
	switch p.Cleared {
	case "":
		return ""
	case "never":
		return ", counters never cleared"
	}
	return ", counters cleared " + p.Cleared + " ago"
}

// rareLinkErrors is the share of a port's received frames below which its
// corrupted frames are rare: 1e-8 of frames of ~1e4 bits is a bit error
// ratio near 1e-12, the error ratio a link is specified to, over counters
// that may span months.
const rareLinkErrors = 1e-8

// fewLinkErrors is the count of corrupted frames under which a port's
// errors, counted since a clear of unknown age, are a handful.
const fewLinkErrors = 10

// aHandful says why fewer than fewLinkErrors corrupted frames or
// uncorrectable codewords are info.
const aHandful = " A handful, over counters that may span the link's whole life, is no cause of a slow job; a count that grows after a clear is."

// crcBeside reports whether a port's output prints a CRC count beside its
// input errors (EOS, NX-OS and IOS `show interfaces`, AOS-CX `show
// interface`, a Huawei VRP port's `display interface`), so that a CRC of
// 0 says its errors are no bit errors.
func crcBeside(p ingest.PortCount) bool {
	return p.IOS || p.AOSCX || p.Platform == ingest.HuaweiVRP && p.CRC >= 0
}

// noCRCErrors is why a port of EOS, NX-OS or IOS `show interfaces`
// counts input errors when its CRC counter, printed beside them, is 0.
const noCRCErrors = "The port counted input errors, but its CRC counter is 0: none was a frame whose bits changed on the wire. Input errors also count runts and giants (a frame longer than the port's MTU, which is an MTU mismatch with the peer, not a bad link), alignment and symbol errors (the PHY's own), and on IOS and NX-OS overruns and ignored frames (the port's receive buffer full). The counts printed beside input errors say which; each frame counted was dropped on arrival, and when it carried RoCE, RC resends it and everything after it."

// sizeErrors names the frames of a port's input errors that were too
// short (Runts) or too long (Giants), when its output counts them
// (AOS-CX, Huawei VRP), "" otherwise.
func sizeErrors(p ingest.PortCount) string {
	var s []string
	if p.Giants > 0 {
		s = append(s, fmt.Sprintf("%s longer than the port's MTU (Giants): the peer sends frames larger than this port accepts, an MTU mismatch to fix on either end (RoCE's path MTU follows the smaller of the two)", plural(int(p.Giants), "frame was", "frames were")))
	}
	if p.Runts > 0 {
		s = append(s, fmt.Sprintf("%s shorter than 64 bytes (Runts): cut short on the wire or by the sender, a duplex or PHY fault of the link", plural(int(p.Runts), "frame was", "frames were")))
	}
	if len(s) == 0 {
		return ""
	}
	return " Here " + strings.Join(s, "; ") + "."
}

// asideNote says why a port's counts are not judged as a link of RoCE's
// own: a management, loopback or VLAN interface (mgmtNote), or a port
// channel, whose counts sum its members' (on EOS, NX-OS and IOS `show
// interfaces` its block follows theirs, which carry the same counts
// again), "" otherwise.
func asideNote(p ingest.PortCount) string {
	port := p.Port
	if m := mgmtNote(port); m != "" {
		return m
	}
	const sums = " is a port channel: its counts are the sums of its member ports', which are judged each on its own block"
	if p.AOSCX && isLAGName(strings.ToLower(port)) {
		members := "`show interface " + port + "` (Aggregated-interfaces) and `show lacp aggregates " + port + "` name the members"
		if len(p.Members) > 0 {
			members = "its members are " + strings.Join(p.Members, ", ") + " (Aggregated-interfaces; `show lacp aggregates " + port + "`)"
		}
		return " " + port + sums + " (" + members + "): the member with the counts is the link to look at."
	}
	if p.Platform == ingest.HuaweiVRP && strings.HasPrefix(port, "Eth-Trunk") {
		return " " + port + sums + " (`display eth-trunk " + strings.TrimPrefix(port, "Eth-Trunk") + "` names the members): the member with the counts is the link to look at."
	}
	if l := strings.ToLower(port); strings.HasPrefix(l, "port-channel") || strings.HasPrefix(l, "portchannel") || isLAGName(l) {
		return " " + port + sums + " (`show port-channel summary` or `show interfaces " + port + "` names the members): the member with the counts is the link to look at."
	}
	return ""
}

// aoscxNeighbors names the AOS-CX command that shows the device at the
// other end of a port: LLDP runs on a LAG's members, not on the LAG.
func aoscxNeighbors(p ingest.PortCount) string {
	if !isLAGName(strings.ToLower(p.Port)) {
		return "`show lldp neighbor-info " + p.Port + "`"
	}
	if len(p.Members) == 0 {
		return "`show lldp neighbor-info` of each member `show lacp aggregates " + p.Port + "` names"
	}
	return "`show lldp neighbor-info` of its members " + strings.Join(p.Members, ", ")
}

// fewDrops says why n drops of a port that sent or received ok packets
// (-1 when its output does not print them) are info, as a handful of
// link errors is: fewer than fewLinkErrors, or under rareLinkErrors of
// its packets; "" otherwise.
func fewDrops(n, ok int64) string {
	const grows = " A count that grows between two dumps (or after a clear) is worth a look."
	if n < fewLinkErrors {
		return " A handful of drops, over counters that may span the port's whole life, is no cause of a slow job." + grows
	}
	if ok >= 0 {
		if f := float64(n) / float64(ok+n); f < rareLinkErrors {
			return fmt.Sprintf(" Here they are %.2g of the packets, under 1e-8: too few to slow a job.", f) + grows
		}
	}
	return ""
}

// isLAGName reports whether a lower-cased port name is an AOS-CX link
// aggregation ("lag1").
func isLAGName(l string) bool {
	n, ok := strings.CutPrefix(l, "lag")
	return ok && n != "" && strings.Trim(n, "0123456789") == ""
}

// mgmtNote says why a port's counts do not concern RoCE when the port is a
// switch's own management, loopback or VLAN interface (Huawei VRP's
// MEth, LoopBack and NULL too), "" otherwise.
func mgmtNote(port string) string {
	for _, p := range []string{"Management", "mgmt", "Loopback", "Vlan", "MEth", "LoopBack", "NULL"} {
		if strings.HasPrefix(port, p) {
			return " " + port + " is the switch's own management, loopback or VLAN interface, which RoCE's traffic between hosts does not cross."
		}
	}
	return ""
}

// checkSwitchLinkErrors reports switch ports that received corrupted
// frames (RX_ERR of SONiC `show interfaces counters [errors]`, CRC or
// input errors of EOS and NX-OS `show interfaces`) or whose RS-FEC met
// codewords it could not correct (FEC_UNCORR of `show interfaces counters
// fec-stats`). Each is a frame lost on the link after PFC has done its
// part: RoCE's RC resends it and everything after it.
func checkSwitchLinkErrors(inc *Incident) []Finding {
	const (
		mech = "Bits changed on the wire between this port and its peer. The switch discards such a frame, and when it carried RoCE, PFC cannot have prevented the loss: RC resends the lost packet and everything after it (go-back-N), and a lost message tail waits for the local ACK timeout, so a few errors per million frames already cut a flow's throughput. A link at its specified error ratio shows almost none; these come from the link itself: a dirty or damaged connector, an optic or cable failing or out of its power budget, or FEC off or mismatched between the ends."
		when = " Counted since the counters were last cleared; a count from the link's bring-up stays until then."
	)
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		for _, p := range s.Ports {
			n, what := p.RxErr, "received with errors ("+colsOf(p).rxErr+")"
			switch {
			case p.CRC > 0 && p.ErrTable:
				n, what = p.CRC, "received with a bad CRC (FCS-Err, FCS on EOS)"
			case p.CRC > 0:
				n, what = p.CRC, fmt.Sprintf("received with a bad CRC (of %d input errors)", max(p.RxErr, p.CRC))
			}
			if n <= 0 || (p.CRC > 0 || !crcBeside(p)) && weakOpticOn(inc, s.Switch, s.Source(), p.Port) {
				continue
			}
			cause := "The port received frames it could not accept: a bad CRC (FCS) above all, and runts or oversize frames. " + mech
			if crcBeside(p) && p.CRC == 0 {
				what = "received with input errors, none with a bad CRC"
				cause = noCRCErrors + sizeErrors(p)
			}
			name := swName(s, p.Port)
			sev, rare := Warn, ""
			title := fmt.Sprintf("%s: %s %s", name, plural(int(n), "frame", "frames"), what)
			if n < fewLinkErrors {
				sev, rare = Info, aHandful
			}
			if p.RxOK >= 0 {
				f := float64(n) / float64(p.RxOK+n)
				title += ", " + fracText(f) + fmt.Sprintf(" of the %d received", p.RxOK+n)
				if f < rareLinkErrors {
					sev, rare = Info, fmt.Sprintf(" Here they are %.2g of the frames received, under 1e-8 (a bit error ratio near the 1e-12 a link is specified to): too rare to slow a job, though a count that grows after a clear is worth a look.", f)
				}
			}
			if mgmt := asideNote(p); mgmt != "" {
				sev, rare = Info, mgmt
			}
			fix := fmt.Sprintf("Watch whether it grows (`show interfaces counters -i %s -p 10`); check the link's FEC (`show interfaces counters fec-stats`: FEC_UNCORR rising, FEC_PRE_BER near the FEC's limit), the optic's power (`show interfaces transceiver eeprom --dom %s`) and the FCS counters of the peer's end (on a host, `ethtool -S <if> | grep -E 'crc|symbol|fcs'`). Clean and reseat the connectors, then replace the optic or cable; shut the port meanwhile so ECMP routes around it.", p.Port, p.Port)
			if p.Cumulus {
				fix = fmt.Sprintf("Watch whether it grows (`watch -d 'ethtool -S %s | grep -E \"Errors|Discards\"'`: ethtool's counters are never cleared, `cl-netstat -c` clears its own view); check the optic's power (`ethtool -m %s`), the link's FEC (`nv show interface %s link`) and the FCS counters of the peer's end (on a host, `ethtool -S <if> | grep -E 'crc|symbol|fcs'`). Clean and reseat the connectors, then replace the optic or cable; shut the port meanwhile so ECMP routes around it.", p.Port, p.Port, p.Port)
			}
			if p.IOS {
				fix = fmt.Sprintf("Clear the counters and watch whether they grow under traffic (`clear counters %s`, then `show interfaces %s`); check the optic's power (`show interfaces %s transceiver`), both ends' FEC (EOS `show interfaces %s phy detail`, NX-OS `show interface %s fec`) and the FCS counters of the peer's end (on a host, `ethtool -S <if> | grep -E 'crc|symbol|fcs'`). Clean and reseat the connectors, then replace the optic or cable; shut the port meanwhile so ECMP routes around it.", p.Port, p.Port, p.Port, p.Port, p.Port)
			}
			if c, ok := platformOf(p.Platform); ok {
				fix = "Clear the counters and watch whether they grow under traffic (" + onPort(c.clear, p.Port) + ", then " + onPort(c.show, p.Port) + "); check the optic's power (" + onPort(c.optics, p.Port) + ") and the FCS counters of the peer's end (on a host, `ethtool -S <if> | grep -E 'crc|symbol|fcs'`). Clean and reseat the connectors, then replace the optic or cable; shut the port meanwhile so ECMP routes around it."
			}
			if p.AOSCX {
				fix = fmt.Sprintf("Clear the counters and watch whether they grow under traffic (`clear interface %s statistics`, then `show interface %s`); check the optic's power (`show interface %s transceiver detail`) and the FCS counters of the peer's end (on a host, `ethtool -S <if> | grep -E 'crc|symbol|fcs'`). Clean and reseat the connectors, then replace the optic or cable; shut the port meanwhile so ECMP routes around it.", p.Port, p.Port, p.Port)
			}
			fs = append(fs, Finding{
				ID: "switch.link.errors", Severity: sev, Layer: LayerFabric,
				Title:     title + cleared(p),
				Evidence:  []Evidence{p.ErrEvidence},
				Mechanism: cause + rare + downNote(p.State) + when,
				Fix:       fix,
			}.per(name+" errors", "port", "Switch ports receiving corrupted frames"))
		}
		for _, p := range s.Ports {
			if p.Stomped > 0 {
				fs = append(fs, stompedFinding(s, p, when))
			}
		}
		for _, r := range s.FEC {
			if r.Uncorrectable <= 0 || weakOpticOn(inc, s.Switch, s.Source(), r.Port) {
				continue
			}
			name := swName(s, r.Port)
			sev, rare := Warn, ""
			if r.Uncorrectable < fewLinkErrors {
				sev, rare = Info, aHandful
			}
			col := "FEC_UNCORR"
			if c, ok := platformOf(r.Platform); ok && c.fecUncorr != "" {
				col = c.fecUncorr
			}
			title := fmt.Sprintf("%s: RS-FEC met %d codewords it could not correct (%s; %d corrected", name, r.Uncorrectable, col, max(r.Corrected, 0))
			if r.SymbolErrors >= 0 {
				// Only SONiC's fec-stats counts symbol errors; IOS XR's
				// `show controllers` prints codewords alone.
				title += fmt.Sprintf(", %d symbol errors", r.SymbolErrors)
			}
			title += ")"
			if r.PostBER > 0 {
				title += fmt.Sprintf(", post-FEC BER %.3g", r.PostBER)
			}
			fix := fmt.Sprintf("Clear the counters and watch whether FEC_UNCORR grows under traffic (`sonic-clear counters; show interfaces counters fec-stats -p 10`); if it does, check the optic's power and its peer's (`show interfaces transceiver eeprom --dom %s`), both ends' FEC mode (`show interfaces fec status %s`; on a host, `ethtool --show-fec <if>`), clean and reseat the connectors, then replace the optic or cable; shut the port meanwhile so ECMP routes around it.", r.Port, r.Port)
			if c, ok := platformOf(r.Platform); ok && c.fec != "" {
				fix = "Clear the counters and watch whether the uncorrected codewords grow under traffic (" + onPort(c.clear, r.Port) + ", then " + onPort(c.fec, r.Port) + "); if they do, check the optic's power and its peer's (" + onPort(c.optics, r.Port) + "), both ends' FEC mode (the port's `fec` configuration; on a host, `ethtool --show-fec <if>`), clean and reseat the connectors, then replace the optic or cable; shut the port meanwhile so ECMP routes around it."
			}
			fs = append(fs, Finding{
				ID: "switch.link.errors", Severity: sev, Layer: LayerFabric,
				Title:     title,
				Evidence:  []Evidence{r.Evidence},
				Mechanism: "RS-FEC corrects up to a fixed number of corrupted symbols per codeword (7 for RS(528,514), 15 for RS(544,514)); corrected codewords are normal on a PAM4 link and cost nothing. An uncorrectable codeword is a frame received with a bad FCS and dropped. " + mech + rare + downNote(r.State) + when,
				Fix:       fix,
			}.per(name+" FEC", "port", "Switch ports with uncorrectable FEC codewords"))
		}
	}
	return fs
}

// stompedFinding reports frames that reached a port of an NX-OS switch
// already corrupted and marked so by a cut-through switch upstream.
func stompedFinding(s *ingest.SwitchCounters, p ingest.PortCount, when string) Finding {
	name := swName(s, p.Port)
	sev, rare := Warn, ""
	if p.Stomped < fewLinkErrors {
		sev, rare = Info, aHandful
	}
	return Finding{
		ID: "switch.link.errors", Severity: sev, Layer: LayerFabric,
		Title:     fmt.Sprintf("%s: %s arrived with a stomped CRC (Stomped-CRC): corrupted on a link upstream and forwarded cut-through", name, plural(int(p.Stomped), "frame", "frames")),
		Evidence:  []Evidence{p.StompedEvidence},
		Mechanism: "A cut-through switch forwards a frame before it has received all of it; when the frame's FCS then proves bad it can no longer drop it, so it stomps the CRC (writes a value known to be bad) and the next switch or NIC drops the frame. This port counts frames that arrived already stomped: their bits changed on another link, not on this one, whose own corrupted frames it counts as FCS-Err. When such a frame carried RoCE, RC resends it and everything after it (go-back-N)." + rare + when,
		Fix:       fmt.Sprintf("Find the link that corrupts them: on the switch at the other end of %s (`show lldp neighbors`) and those that feed it, the port whose FCS-Err (`show interface counters errors`) or rx_crc_errors_phy (`ethtool -S`) grows; fix that link (clean and reseat, check the optic's power, replace the optic or cable). The stomped count here stops growing once it is fixed.", p.Port),
	}.per(name+" stomped", "port", "Switch ports receiving frames stomped upstream")
}

// fracText writes a fraction as a percentage, or as itself when under one
// in a hundred thousand.
func fracText(f float64) string {
	if f < 1e-5 {
		return fmt.Sprintf("%.2g", f)
	}
	return fmt.Sprintf("%.3g%%", 100*f)
}

// downNote says what a port's link errors mean when it is down now.
func downNote(state string) string {
	if state == "D" {
		return " The port is down now: the errors may be what took it down, or were counted as it went down."
	}
	return ""
}
