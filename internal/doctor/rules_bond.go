package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// Rules over the bonding driver's report (/proc/net/bonding/<bond>): a
// bond whose ports do not all carry traffic, or whose mode the NIC cannot
// offload for RoCE.

func bondRules() []Rule {
	return []Rule{
		{IDs: []string{"host.bond.degraded", "host.bond.mode", "host.bond.ok"}, Check: checkBonds},
	}
}

// bondModeOffloaded reports whether a bond of this mode is one mlx5 (and
// the RoCE LAG of other NICs) makes into one RDMA device: active-backup,
// and the hash modes, balance-xor and 802.3ad (mlx5's lag refuses the
// others' transmit types).
func bondModeOffloaded(mode string) bool {
	return strings.Contains(mode, "active-backup") || strings.Contains(mode, "(xor)") || strings.Contains(mode, "802.3ad")
}

// checkBonds judges each bond: a port down, not in the active 802.3ad
// aggregator, or no aggregator at all (error, or a warning for
// active-backup, which loses its backup and no bandwidth); ports up at
// different speeds or whose link failed since the bond was made
// (warning: the Link Failure Count is never cleared, so only a count that
// grows between two readings of the same port is one); a mode RoCE LAG
// does not offload (warning on RDMA ports, info on others); else one info
// that the bond is whole.
func checkBonds(inc *Incident) []Finding {
	var fs []Finding
	seen := map[string]uint64{} // host/bond/port: the last Link Failure Count read
	for _, a := range All[*ingest.Bonding](inc) {
		nds, known := rdmaNetdevs(inc, a.Scope())
		for _, b := range a.Bonds {
			fs = append(fs, judgeBond(a, b, seen, rdmaBond(b, nds, known))...)
		}
	}
	return fs
}

// rdmaNetdevs returns the netdevs the RDMA devices of the bonding
// input's host stand on, as inputs of the same file or host list them
// (rdma link, ibdev2netdev, show_gids' DEV column: what `rocelab
// collect` gathers beside /proc/net/bonding; ibv_devinfo names no
// netdev), and whether any does.
func rdmaNetdevs(inc *Incident, at ingest.Scope) (map[string]bool, bool) {
	nds := map[string]bool{}
	near := func(a ingest.Artifact) bool {
		r := reachOf(at, a.Scope())
		return r == sameFile || r == sameHost
	}
	for _, d := range All[*ingest.Devinfo](inc) {
		if !near(d) {
			continue
		}
		for _, dev := range d.Devices {
			for _, p := range dev.Ports {
				if p.Netdev != "" {
					nds[p.Netdev] = true
				}
			}
		}
	}
	for _, g := range All[*ingest.ShowGIDs](inc) {
		if !near(g) {
			continue
		}
		for _, e := range g.Entries {
			if e.Netdev != "" {
				nds[e.Netdev] = true
			}
		}
	}
	return nds, len(nds) > 0
}

// rdmaBond reports whether a bond carries RDMA: when the host's RDMA
// devices are listed (known), whether one stands on the bond (RoCE LAG's
// mlx5_bond_0 on bond0) or on one of its ports; else, as a guess, whether
// a port runs at 25 Gb/s or more or is named as mlx5 names its uplinks
// ("ens1f0np0"): a bond of 1G eno1/eno2 is a management bond.
func rdmaBond(b ingest.Bond, nds map[string]bool, known bool) bool {
	if known {
		if b.Name != "" && nds[b.Name] {
			return true
		}
		for _, s := range b.Slaves {
			if nds[s.Name] {
				return true
			}
		}
		return false
	}
	for _, s := range b.Slaves {
		if s.SpeedMbps >= 25000 {
			return true
		}
		if _, np, ok := strings.Cut(s.Name, "np"); ok && np != "" && strings.Trim(np, "0123456789") == "" {
			return true
		}
	}
	return false
}

func judgeBond(a *ingest.Bonding, b ingest.Bond, seen map[string]uint64, rdma bool) []Finding {
	name := strings.TrimSpace(b.Host + " " + nameOr(b.Name, "bond"))
	who := fmt.Sprintf("%s: %s (%s)", a.Source(), name, nameOr(b.Mode, "mode not shown"))
	lacp := strings.Contains(b.Mode, "802.3ad")
	var faults, warns, counted []string
	var ev, warnEv []Evidence
	up, speeds := 0, map[int]bool{}
	for _, s := range b.Slaves {
		switch {
		case s.MII != "" && s.MII != "up":
			faults = append(faults, fmt.Sprintf("%s is %s", s.Name, s.MII))
			ev = append(ev, s.Evidence)
			ev = append(ev, s.Lines...)
			continue
		case lacp && b.Aggregator > 0 && s.Aggregator != b.Aggregator:
			faults = append(faults, fmt.Sprintf("%s is in aggregator %s, not the active %d", s.Name, aggregatorName(s.Aggregator), b.Aggregator))
			ev = append(ev, s.Evidence)
			ev = append(ev, s.Lines...)
			continue
		}
		up++
		if s.SpeedMbps > 0 {
			speeds[s.SpeedMbps] = true
		}
		key := b.Host + "/" + b.Name + "/" + s.Name
		before, again := seen[key]
		seen[key] = s.Failures
		switch {
		case again && s.Failures > before:
			warns = append(warns, fmt.Sprintf("%s's link failed %s between two readings (Link Failure Count %d, then %d)", s.Name, plural(int(s.Failures-before), "time", "times"), before, s.Failures))
			warnEv = append(warnEv, s.Evidence)
			warnEv = append(warnEv, s.Lines...)
		case s.Failures > 0:
			counted = append(counted, fmt.Sprintf("%s's link failed %s since the bond was made", s.Name, plural(int(s.Failures), "time", "times")))
		}
	}
	if lacp && b.NoAggregator {
		faults = append([]string{"no active aggregator: LACP formed none with the switch"}, faults...)
		ev = append([]Evidence{b.AggregatorEvidence}, ev...)
	}
	if len(speeds) > 1 {
		var ss []string
		for _, s := range b.Slaves {
			if s.SpeedMbps > 0 && (s.MII == "" || s.MII == "up") {
				ss = append(ss, fmt.Sprintf("%s %s", s.Name, rateText(unit.BitRate(s.SpeedMbps)*unit.Mbps)))
			}
		}
		warns = append(warns, "its ports run at different speeds: "+strings.Join(ss, ", "))
		for _, s := range b.Slaves {
			warnEv = append(warnEv, s.Lines...)
		}
	}
	var fs []Finding
	if len(faults) > 0 {
		sev, effect := Error, fmt.Sprintf("%d of %d ports carry traffic", up, len(b.Slaves))
		if lacp && b.AggregatorPorts > 0 {
			effect = fmt.Sprintf("its active aggregator %d holds %s", b.Aggregator, plural(b.AggregatorPorts, "port", "ports"))
		}
		if strings.Contains(b.Mode, "active-backup") {
			sev, effect = Warn, "the bond runs without its backup"
		}
		if lacp && b.NoAggregator {
			sev, effect = Error, "the bond carries no traffic through LACP"
		}
		fs = append(fs, Finding{
			ID: "host.bond.degraded", Severity: sev, Layer: LayerNCCL,
			Title:    fmt.Sprintf("%s: %s: %s", who, list(faults, 3), effect),
			Evidence: evidenceInOrder(append([]Evidence{b.Evidence}, ev...)),
			Mechanism: "A bond spreads flows (and with RoCE LAG, queue pairs) over the ports that are up and, in 802.3ad, in the aggregator LACP agreed with the switch; a port that is down, or that joined another aggregator (its partner answered with a different key or system: a switch port outside the port-channel, or the two ports cabled to switches that are not an MLAG pair), carries nothing, so a hash mode runs at the bandwidth of the ports left, and collectives whose rings cross it slow by that share. " +
				"Without an active aggregator an 802.3ad bond sends nothing at all.",
			Fix: "Check the port's link (ethtool IF, ip link), cable and switch port; for 802.3ad, the switch's port-channel and LACP state for each port (both ports in one LAG, or in an MLAG pair), then `cat /proc/net/bonding/" + nameOr(b.Name, "bond0") + "` until every port is up in one aggregator.",
		}.per(name, "bond", "bond with a port out of service"))
	}
	if len(warns) > 0 {
		fs = append(fs, Finding{
			ID: "host.bond.degraded", Severity: Warn, Layer: LayerNCCL,
			Title:     fmt.Sprintf("%s: %s", who, list(warns, 3)),
			Evidence:  evidenceInOrder(warnEv),
			Mechanism: "A link that failed went down and came back: each time, the bond moves its flows (and RoCE LAG its queue pairs) to the other port and back, and RDMA traffic in flight is retransmitted or times out. Ports at different speeds make a hash mode put as much on the slower port as on the faster, so the bond runs at twice the slower port's rate at most.",
			Fix:       "Look for the flaps in dmesg and the switch's log (optics, cable, FEC); give both ports the same speed (the same optics and switch port speed).",
		}.per(name, "bond", "bond with a flapping or mismatched port"))
	}
	if b.Mode != "" && !bondModeOffloaded(b.Mode) {
		sev := Warn
		if !rdma {
			// a management bond (1G eno1/eno2) carries no RDMA
			sev = Info
		}
		fs = append(fs, Finding{
			ID: "host.bond.mode", Severity: sev, Layer: LayerRDMA,
			Title:     fmt.Sprintf("%s: RoCE LAG does not offload this mode: RDMA over the bond gets one port or none", who),
			Evidence:  []Evidence{b.Evidence},
			Mechanism: "A ConnectX NIC (mlx5) joins its two ports into one RDMA device (mlx5_bond_0) only for bonds in active-backup, balance-xor or 802.3ad mode, whose transmit types its LAG can follow in hardware; in round-robin, broadcast or (adaptive) transmit load balancing each port stays a device of its own, so RDMA traffic addressed to the bond's IP uses one port, or finds no RDMA device for the address.",
			Fix:       "Make the bond 802.3ad (mode=4, with a port-channel on the switch) or active-backup (mode=1), then check that `rdma link` / ibv_devices shows the bond device (mlx5_bond_0).",
		}.per(name, "bond", "bond in a mode RoCE LAG does not offload"))
	}
	if len(faults) == 0 && len(warns) == 0 && len(b.Slaves) > 0 {
		title := fmt.Sprintf("%s: %s up", who, plural(len(b.Slaves), "port", "ports"))
		if len(speeds) == 1 {
			for s := range speeds {
				title += " at " + rateText(unit.BitRate(s)*unit.Mbps)
			}
		}
		if lacp && b.Aggregator > 0 {
			title += fmt.Sprintf(", in aggregator %d", b.Aggregator)
		}
		if len(counted) > 0 {
			title += "; " + list(counted, 3) + " (a count never cleared: read it again to see whether it grows)"
		}
		ev := []Evidence{b.Evidence}
		for _, s := range b.Slaves {
			ev = append(ev, s.Evidence)
		}
		fs = append(fs, Finding{
			ID: "host.bond.ok", Severity: Info, Layer: LayerNCCL,
			Title:     title,
			Evidence:  ev,
			Mechanism: "Every port of the bond is up and, for 802.3ad, in the active aggregator. The Link Failure Count counts every link loss since the bond was made and is never cleared, so a count alone says nothing of now; one that grows between two readings is a link flapping.",
		})
	}
	return fs
}

// aggregatorName is an aggregator's ID as a title gives it.
func aggregatorName(id int) string {
	if id == 0 {
		return "none (N/A)"
	}
	return fmt.Sprint(id)
}
