package doctor

import "testing"

// Frames with a bad FCS are the link's own fault, named as such: an error
// at 0.01% of received packets in a before/after pair, a warn below it or
// in a single dump, nothing when the counter stays at zero.
func TestFCSErrors(t *testing.T) {
	pair := func(rx0, crc0, rx1, crc1 string) string {
		return "# synthetic: two ethtool -S dumps of one port\n" +
			"[root@gpu01 ~]# ethtool -S ens3np0\nNIC statistics:\n     rx_packets_phy: " + rx0 + "\n     rx_crc_errors_phy: " + crc0 + "\n     rx_prio3_bytes: 1000\n" +
			"[root@gpu01 ~]# ethtool -S ens3np0\nNIC statistics:\n     rx_packets_phy: " + rx1 + "\n     rx_crc_errors_phy: " + crc1 + "\n     rx_prio3_bytes: 2000\n"
	}
	nicMustFind(t, diagnoseText(t, pair("1000000", "10", "2000000", "260")).Findings, "counters.phy.fcs", Error,
		"ens3np0: 250 frames received with a bad FCS (rx_crc_errors_phy), 0.025% of rx_packets_phy")
	nicMustFind(t, diagnoseText(t, pair("1000000", "10", "2000000", "15")).Findings, "counters.phy.fcs", Warn,
		"ens3np0: 5 frames received with a bad FCS (rx_crc_errors_phy), 0.0005% of rx_packets_phy")
	nicMustNot(t, diagnoseText(t, pair("1000000", "10", "2000000", "10")).Findings, "counters.phy.fcs")
}

// A link that went down during the window is a warn, one that went down
// twice (a flap) an error; a single dump only says it went down at some
// time since the counters were cleared.
func TestLinkDownEvents(t *testing.T) {
	pair := func(d0, d1 string) string {
		return "# synthetic: two ethtool -S dumps of one port\n" +
			"[root@gpu01 ~]# ethtool -S ens3np0\nNIC statistics:\n     rx_packets_phy: 1000\n     link_down_events_phy: " + d0 + "\n" +
			"[root@gpu01 ~]# ethtool -S ens3np0\nNIC statistics:\n     rx_packets_phy: 2000\n     link_down_events_phy: " + d1 + "\n"
	}
	nicMustFind(t, diagnoseText(t, pair("1", "2")).Findings, "counters.phy.link_down", Warn, "ens3np0: the link went down 1 time (link_down_events_phy 1)")
	nicMustFind(t, diagnoseText(t, pair("1", "4")).Findings, "counters.phy.link_down", Error, "ens3np0: the link went down 3 times")
	nicMustNot(t, diagnoseText(t, pair("1", "1")).Findings, "counters.phy.link_down")
	single := "[root@gpu01 ~]# ethtool -S ens3np0\nNIC statistics:\n     rx_packets_phy: 2000\n     link_down_events_phy: 1\n"
	nicMustFind(t, diagnoseText(t, single).Findings, "counters.phy.link_down", Info, "ens3np0: the link went down 1 time")
}
