package doctor

import "testing"

// mlxlink, read for the first time: two real pastes read as healthy
// links with their line rates, and SYNTHETIC faults in mlxlink's own
// form. Before, rocelab called mlxlink output unrecognised.
func TestMlxlinkLinks(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/mlxlink-show-mo-cx7-ib-ndr-4x-copper-osfp-notes.txt")
	nicMustFind(t, fs, "mlxlink.ok", Info, "csegpu1 /dev/mst/mt4129_pciconf0: link Active/LinkUp at 400Gbps (IB-NDR 4x)")
	fs = diagnoseFiles(t, Options{}, "corpus/ethtool/mlxlink-loop-cx6-ib-hdr-2x-8-devices-fec-counters-a100-notes.txt")
	nicMustFind(t, fs, "mlxlink.ok", Info, "brev-7hpnmoj9o mt4123_pciconf1: link Active/LinkUp at 100Gbps (IB-HDR 2x)")
	for _, f := range fs {
		if f.Severity != Info {
			t.Errorf("%s on healthy links: %s", f.ID, f.Title)
		}
	}

	fs = synthFindings(t, Options{},
		"# synthetic",
		"[root@gpu7 ~]# mlxlink -d mlx5_3 -c",
		"Operational Info",
		"----------------",
		"State                           : Polling",
		"Physical state                  : ETH_AN_FSM_ENABLE",
		"Speed                           : 400G",
		"Width                           : 4x",
		"Troubleshooting Info",
		"--------------------",
		"Status Opcode                   : 1024",
		"Recommendation                  : Bad signal integrity",
		"Physical Counters and BER Info",
		"------------------------------",
		"Effective Physical Errors       : 12",
		"Effective Physical BER          : 3E-12",
		"Link Down Counter               : 3",
	)
	nicMustFind(t, fs, "mlxlink.down", Error, "gpu7 mlx5_3: link not up (State Polling")
	nicMustFind(t, fs, "mlxlink.issue", Warn, `"Bad signal integrity", status opcode 1024`)
	nicMustFind(t, fs, "mlxlink.errors", Error, "12 errors FEC did not correct (effective BER 3E-12), link went down 3 times")
}

// mlxlink's line rate judges a perftest run of the same paste: 92 Gb/s
// over an HDR100 port is 92% of it. SYNTHETIC lines in the tools' forms.
func TestMlxlinkRateJudgesPerftest(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"$ mlxlink -d mlx5_0",
		"Operational Info",
		"----------------",
		"State                           : Active",
		"Physical state                  : LinkUp",
		"Speed                           : IB-HDR",
		"Width                           : 2x",
		"$ ib_write_bw -d mlx5_0 --report_gbits -s 65536 peer",
		"                    RDMA_Write BW Test",
		" Dual-port       : OFF          Device         : mlx5_0",
		" Number of qps   : 1            Transport type : IB",
		" Link type       : IB",
		" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]",
		" 65536      5000             92.10              92.00              0.175476",
	)
	nicMustFind(t, fs, "perftest.bw.ok", Info, "92.0 Gb/s", "of the 100.0 Gb/s link rate")
}
