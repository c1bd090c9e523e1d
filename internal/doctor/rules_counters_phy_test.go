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
