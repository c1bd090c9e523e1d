package doctor

import (
	"strconv"
	"strings"
	"testing"
)

// ipLinkDump is `ip -s -s link show IF` (iproute2 5.10 on) with the given
// RX errors, drops and missed packets and FCS errors; synthetic values.
func ipLinkDump(dev string, errors, dropped, missed, crc int) []string {
	return []string{
		"$ ip -s -s link show " + dev,
		"4: " + dev + ": <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 4200 qdisc mq state UP mode DEFAULT group default qlen 1000",
		"    link/ether b8:ce:f6:00:00:01 brd ff:ff:ff:ff:ff:ff",
		"    RX:  bytes packets errors dropped  missed   mcast",
		"    900000000 1000000 " + strconv.Itoa(errors) + " " + strconv.Itoa(dropped) + " " + strconv.Itoa(missed) + " 0",
		"    RX errors:  length    crc   frame    fifo overrun",
		"                   0  " + strconv.Itoa(crc) + "       0       0       0",
		"    TX:  bytes packets errors dropped carrier collsns",
		"    800000000  900000      0       0       0       0",
	}
}

// `ip -s -s link`'s crc column is judged as a driver's FCS counter:
// a warning on one dump, named by the kernel's rx_crc_errors with its
// share of rx_packets (synthetic values). Without -s -s only the frames
// received bad are printed, and rx_errors stands for them, saying so; with
// it, a crc of 0 is no bad FCS whatever rx_errors holds.
// Before, neither was read: the input was not recognised.
func TestIPLinkFCS(t *testing.T) {
	fs := synthFindings(t, Options{}, ipLinkDump("ens3f0np0", 7, 0, 0, 7)...)
	f := nicMustFind(t, fs, "counters.phy.fcs", Warn, "ens3f0np0: 7 frames received with a bad FCS (rx_crc_errors)", "0.0007% of rx_packets")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 5 || f.Evidence[1].Line != 7 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	lines := ipLinkDump("ens3f0np0", 7, 0, 0, 7)[:6]
	nicMustFind(t, synthFindings(t, Options{}, lines...), "counters.phy.fcs", Warn,
		"ens3f0np0: 7 frames received bad (a bad FCS, a wrong length or alignment; `ip -s -s link` tells them apart) (rx_errors)")
	nicMustNot(t, synthFindings(t, Options{}, ipLinkDump("ens3f0np0", 0, 0, 0, 0)...), "counters.phy.fcs")
	// With -s -s a crc of 0 is the count: rx_errors of 5 are other kinds
	// (length, frame), not a bad FCS.
	nicMustNot(t, synthFindings(t, Options{}, ipLinkDump("ens3f0np0", 5, 0, 0, 0)...), "counters.phy.fcs")
}

// The kernel's statistics of a port whose driver's ethtool -S is in the
// same input count the same frames and drops (mlx5 fills rx_crc_errors
// from the FCS counter, rx_missed_errors from rx_out_of_buffer): the
// driver's dump reports them, once. Synthetic values.
func TestIPLinkBesideDriverDump(t *testing.T) {
	lines := append(ipLinkDump("eth2", 5, 0, 9, 5),
		"$ ethtool -S eth2",
		"NIC statistics:",
		"     rx_packets_phy: 1000000",
		"     rx_crc_errors_phy: 5",
		"     rx_out_of_buffer: 9")
	fs := synthFindings(t, Options{}, lines...)
	if got := nicFind(fs, "counters.phy.fcs"); len(got) != 1 || !strings.Contains(got[0].Title, "(rx_crc_errors_phy)") {
		t.Errorf("fcs findings %s", nicTitles(got))
	}
	if got := nicFind(fs, "counters.discards"); len(got) != 1 || !strings.Contains(got[0].Title, "rx_out_of_buffer 9") {
		t.Errorf("discard findings %s", nicTitles(got))
	}
}

// rx_missed_errors is the kernel's count of packets the device dropped
// for want of a host receive buffer, whatever the driver: the rings'
// drops, not the stack's. Synthetic values.
func TestIPLinkMissed(t *testing.T) {
	f := nicMustFind(t, synthFindings(t, Options{}, ipLinkDump("eth2", 0, 0, 9, 0)...), "counters.discards", Info, "eth2: NIC dropped packets: rx_missed_errors 9")
	if !strings.Contains(f.Mechanism, "rx_missed_errors counts packets for the kernel's receive rings") || !strings.Contains(f.Fix, "ethtool -G eth2") {
		t.Errorf("finding %+v", f)
	}
}

// The real pastes read clean: a healthy USB NIC (the kernel's statistics
// document), one moment printed twice by two iproute2 versions (its 7
// missed packets did not move), a namespace's veth.
func TestIPLinkCorpusJudged(t *testing.T) {
	wantReadNoFinding(t, "counters.",
		"corpus/ethtool/iplink-s-s-old-layout-ens4u1u1-transns-128-kernel-doc.txt",
		"corpus/ethtool/iplink-s-s-h-before-after-5.10-layout-missed-7-netdev.txt",
		"corpus/ethtool/iplink-s-s-and-json-veth-otherhost-10-netdev.txt")
}

// A row of values cut or edited is reported with its line and column.
func TestIPLinkGarbledReported(t *testing.T) {
	lines := ipLinkDump("eth2", 0, 0, 0, 0)
	lines[4] = "    900000000 1000000 0 0"
	f := nicMustFind(t, synthFindings(t, Options{}, lines...), "input.garbled", Warn, "ip -s link output")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 5 {
		t.Errorf("finding %+v", f)
	}
}
