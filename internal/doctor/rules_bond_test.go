package doctor

import (
	"strings"
	"testing"
)

// The bonding driver's report judged on real pastes: an 802.3ad bond with
// no active aggregator is an error (it carries nothing); one whose port
// sits outside the active aggregator is an error naming that port and
// the aggregator's port count; an active-backup bond whose one shown
// port is up is whole. Before, no input here was recognised.
func TestBondCorpusJudged(t *testing.T) {
	f := nicMustFind(t, diagnoseFiles(t, Options{}, "corpus/bonding/bonding-8023ad-no-active-aggregator-accelerated-text387.txt"),
		"host.bond.degraded", Error, "bond0 (IEEE 802.3ad Dynamic link aggregation): no active aggregator")
	if len(f.Evidence) != 2 || f.Evidence[1].Line != 16 || !strings.Contains(f.Fix, "cat /proc/net/bonding/bond0") {
		t.Errorf("finding %+v", f)
	}
	f = nicMustFind(t, diagnoseFiles(t, Options{}, "corpus/bonding/bonding-8023ad-port-in-other-aggregator-cut-systemd11635.txt"),
		"host.bond.degraded", Error, "enp7s0 is in aggregator 1, not the active 2: its active aggregator 2 holds 1 port")
	if f.Evidence[len(f.Evidence)-1].Line != 32 {
		t.Errorf("finding %+v", f)
	}
	nicMustFind(t, diagnoseFiles(t, Options{}, "corpus/bonding/bonding-active-backup-fail-over-mac-40g-cut-bondcni14.txt"),
		"host.bond.ok", Info, "bond0 (fault-tolerance (active-backup)): 1 port up at 40.0 Gb/s")
}

// bondLines is a SYNTHETIC `cat /proc/net/bonding/bond0` of a bond in
// mode whose ports are given as "name mii speed(Mb/s) link-failures".
func bondLines(mode string, ports ...string) []string {
	l := []string{"$ cat /proc/net/bonding/bond0", "Bonding Mode: " + mode, "MII Status: up", ""}
	for _, p := range ports {
		name, rest, _ := strings.Cut(p, " ")
		mii, rest, _ := strings.Cut(rest, " ")
		speed, fails, _ := strings.Cut(rest, " ")
		l = append(l, "Slave Interface: "+name, "MII Status: "+mii, "Speed: "+speed+" Mbps", "Link Failure Count: "+fails, "")
	}
	return l
}

// A port down halves a hash bond (error) but only costs active-backup its
// backup (warning); ports at two speeds and a port whose link failed are
// warnings; a round-robin bond is one RoCE LAG does not offload. Synthetic.
func TestBondJudged(t *testing.T) {
	bond := bondLines
	const lacp = "IEEE 802.3ad Dynamic link aggregation"
	nicMustFind(t, synthFindings(t, Options{}, bond(lacp, "eth0 up 400000 0", "eth1 down 400000 1")...),
		"host.bond.degraded", Error, "eth1 is down: 1 of 2 ports carry traffic")
	nicMustFind(t, synthFindings(t, Options{}, bond("fault-tolerance (active-backup)", "eth0 up 400000 0", "eth1 down 400000 1")...),
		"host.bond.degraded", Warn, "eth1 is down: the bond runs without its backup")
	f := nicMustFind(t, synthFindings(t, Options{}, bond(lacp, "eth0 up 400000 2", "eth1 up 200000 0")...),
		"host.bond.degraded", Warn, "(IEEE 802.3ad Dynamic link aggregation): its ports run at different speeds: eth0 400.0 Gb/s, eth1 200.0 Gb/s")
	if strings.Contains(f.Title, "carry traffic") || strings.Contains(f.Title, "link failed") {
		t.Errorf("finding %+v", f)
	}
	fs := synthFindings(t, Options{}, bond("load balancing (round-robin)", "eth0 up 100000 0", "eth1 up 100000 0")...)
	nicMustFind(t, fs, "host.bond.mode", Warn, "RoCE LAG does not offload this mode")
	nicMustFind(t, fs, "host.bond.ok", Info, "2 ports up at 100.0 Gb/s")
	if got := nicFind(synthFindings(t, Options{}, bond(lacp, "eth0 up 100000 0", "eth1 up 100000 0")...), "host.bond.mode"); len(got) != 0 {
		t.Errorf("802.3ad judged unoffloaded: %s", nicTitles(got))
	}
}

// The Link Failure Count is never cleared: a count alone is info on the
// whole bond; a second reading of the same port that shows it grown is a
// warning. Synthetic.
func TestBondLinkFailuresGrowing(t *testing.T) {
	read := func(fails string) []string {
		return []string{"$ cat /proc/net/bonding/bond0", "Bonding Mode: IEEE 802.3ad Dynamic link aggregation", "MII Status: up", "",
			"Slave Interface: eth0", "MII Status: up", "Speed: 100000 Mbps", "Link Failure Count: " + fails, ""}
	}
	fs := synthFindings(t, Options{}, read("3")...)
	if got := nicFind(fs, "host.bond.degraded"); len(got) != 0 {
		t.Errorf("lone count warned: %s", nicTitles(got))
	}
	nicMustFind(t, fs, "host.bond.ok", Info, "eth0's link failed 3 times since the bond was made (a count never cleared")
	nicMustFind(t, synthFindings(t, Options{}, append(read("3"), read("5")...)...),
		"host.bond.degraded", Warn, "eth0's link failed 2 times between two readings (Link Failure Count 3, then 5)")
	if got := nicFind(synthFindings(t, Options{}, append(read("3"), read("3")...)...), "host.bond.degraded"); len(got) != 0 {
		t.Errorf("unchanged count warned: %s", nicTitles(got))
	}
}

// A management bond (balance-alb over 1G eno1/eno2) carries no RDMA: its
// mode is info; the same mode over an RDMA uplink (ens1f0np0, or 25G and
// up) is a warning. Synthetic.
func TestBondModeOnlyOnRDMAPorts(t *testing.T) {
	const alb = "adaptive load balancing"
	nicMustFind(t, synthFindings(t, Options{}, bondLines(alb, "eno1 up 1000 0", "eno2 up 1000 0")...), "host.bond.mode", Info, "RoCE LAG does not offload this mode")
	nicMustFind(t, synthFindings(t, Options{}, bondLines(alb, "ens1f0np0 up 1000 0", "ens1f1np1 up 1000 0")...), "host.bond.mode", Warn, "RoCE LAG does not offload this mode")
	nicMustFind(t, synthFindings(t, Options{}, bondLines(alb, "eth0 up 25000 0", "eth1 up 25000 0")...), "host.bond.mode", Warn, "RoCE LAG does not offload this mode")
}

// Whether a bond carries RDMA is read from the host's RDMA device
// listings when the incident has them (what `rocelab collect` gathers
// beside /proc/net/bonding): a 1G bond whose port an RDMA device stands on
// warns, a 100G bond that no RDMA device stands on is info. Without a
// listing the speed and name guess stays (TestBondModeOnlyOnRDMAPorts).
// Synthetic. Before, both were
// judged by the guess (the first info, the second a warning).
func TestBondModeRDMAFromListings(t *testing.T) {
	const alb = "adaptive load balancing"
	link := func(netdev string) string {
		return "link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev " + netdev
	}
	fs := synthFindings(t, Options{}, append(bondLines(alb, "eno1 up 1000 0", "eno2 up 1000 0"), "$ rdma link", link("eno1"))...)
	nicMustFind(t, fs, "host.bond.mode", Warn, "RoCE LAG does not offload this mode")
	fs = synthFindings(t, Options{}, append(bondLines(alb, "eth0 up 100000 0", "eth1 up 100000 0"), "$ rdma link", link("ens2f0np0"))...)
	nicMustFind(t, fs, "host.bond.mode", Info, "RoCE LAG does not offload this mode")
}
