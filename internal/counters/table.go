package counters

import "sync"

// defaultTable is built from builtin at its first use and never changed:
// a command that reads no counter does not pay for it at start-up.
var defaultTable = sync.OnceValue(func() *Table { return must(New(withProvenance(builtin()))) })

// withProvenance fills each description's Origin from the provenance
// column (provenance.go), where a name two drivers print is keyed
// "<driver>/<name>" for the driver listed second.
func withProvenance(ds []Desc) []Desc {
	prov := provenance()
	for i := range ds {
		if o, ok := prov[ds[i].Vendor.String()+"/"+ds[i].Name]; ok {
			ds[i].Origin = o
			continue
		}
		ds[i].Origin = prov[ds[i].Name]
	}
	return ds
}

func must(t *Table, err error) *Table {
	if err != nil {
		panic(err)
	}
	return t
}

// builtin is the counter table. Every name is traced to the kernel or
// driver source line that spells it (provenance.go, checked by
// TestProvenance): the IB port counters of drivers/infiniband/core/sysfs.c,
// the mlx5 hw_counters of drivers/infiniband/hw/mlx5/counters.c, mlx5e's
// ethtool statistics in en_stats.c, bnxt_en's bnxt_ethtool.c and be2net's
// be_ethtool.c, and the efa driver's efa_verbs.c (AWS's amzn-drivers).
func builtin() []Desc {
	e := func(name string, c Concept, d Dir, u Unit) Desc {
		return Desc{Name: name, Vendor: MLX5, Source: Ethtool, Concept: c, Dir: d, Unit: u}
	}
	ep := func(name string, c Concept, d Dir, u Unit) Desc {
		return Desc{Name: name, Vendor: MLX5, Source: Ethtool, Concept: c, Dir: d, PerPrio: true, Unit: u}
	}
	hw := func(c Concept, d Dir) Desc {
		return Desc{Name: string(c), Vendor: MLX5, Source: HWCounters, Concept: c, Dir: d, Unit: Events}
	}
	pc := func(c Concept, d Dir, u Unit) Desc {
		return Desc{Name: string(c), Vendor: MLX5, Source: PortCounters, Concept: c, Dir: d, Unit: u}
	}
	other := func(v Vendor, name string, c Concept, d Dir, prio bool, u Unit) Desc {
		return Desc{Name: name, Vendor: v, Source: Ethtool, Concept: c, Dir: d, PerPrio: prio, Unit: u}
	}
	std := func(name string, c Concept, d Dir, u Unit) Desc {
		return Desc{Name: name, Vendor: Standard, Source: Ethtool, Concept: c, Dir: d, Unit: u}
	}
	hwv := func(v Vendor, name string, c Concept, d Dir) Desc {
		return Desc{Name: name, Vendor: v, Source: HWCounters, Concept: c, Dir: d, Unit: Events}
	}
	opt := func(name string, c Concept, d Dir, u Unit) Desc {
		return Desc{Name: name, Vendor: MLX5, Source: HWCounters, Concept: c, Dir: d, Unit: u, Optional: true}
	}
	renamed := func(d Desc) Desc {
		d.Renamed = true
		return d
	}
	common := func(d Desc) Desc {
		d.Common = true
		return d
	}
	sw := func(name string, c Concept, prio bool) Desc {
		return Desc{Name: name, Vendor: Twin, Source: SwitchPort, Concept: c, PerPrio: prio, Unit: Packets}
	}
	return []Desc{
		// mlx5 ethtool -S, physical port.
		e("rx_packets_phy", PhyPackets, RX, Packets),
		e("rx_bytes_phy", PhyBytes, RX, Bytes),
		e("tx_packets_phy", PhyPackets, TX, Packets),
		e("tx_bytes_phy", PhyBytes, TX, Bytes),
		e("rx_discards_phy", PhyDiscards, RX, Packets),
		e("rx_crc_errors_phy", PhyCRCErrors, RX, Packets),
		// The IEEE 802.3 aSymbolErrorDuringCarrier of the port (en_stats.c's
		// 802.3 group), the same count as eth-phy-SymbolErrorDuringCarrier.
		e("rx_symbol_err_phy", PhySymbolErrors, RX, Events),
		// Its PCS's symbol errors that FEC did not correct (or all of them
		// with FEC off): traffic lost, the kernel's mlx5 counters.rst says
		// (Documentation/networking/device_drivers/ethernet/mellanox/mlx5/
		// counters.rst); what a paste grepped for FEC keeps.
		{Name: "rx_pcs_symbol_err_phy", Vendor: MLX5, Source: Ethtool, Concept: PhySymbolErrors, Dir: RX, Unit: Events, Also: true},
		e("link_down_events_phy", PhyLinkDown, RX, Events), // the receiver loses the signal: ethtool counters each count one way
		e("tx_errors_phy", PhyErrors, TX, Packets),
		e("tx_discards_phy", PhyDiscards, TX, Packets),
		e("rx_out_of_buffer", OutOfBufferHost, RX, Packets),
		e("rx_buffer_passed_thres_phy", BufferPassedThreshold, RX, Events),
		e("rx_pause_ctrl_phy", GlobalPause, RX, Packets),
		e("tx_pause_ctrl_phy", GlobalPause, TX, Packets),
		e("tx_global_pause_duration", GlobalPauseDuration, TX, Microseconds),
		e("rx_global_pause_duration", GlobalPauseDuration, RX, Microseconds),
		e("tx_pause_storm_warning_events", PauseStormWarning, TX, Events),
		e("tx_pause_storm_error_events", PauseStormError, TX, Events),
		e("rx_vport_rdma_unicast_packets", RDMAUnicastPackets, RX, Packets),
		e("tx_vport_rdma_unicast_packets", RDMAUnicastPackets, TX, Packets),
		e("rx_vport_rdma_unicast_bytes", RDMAUnicastBytes, RX, Bytes),
		e("tx_vport_rdma_unicast_bytes", RDMAUnicastBytes, TX, Bytes),
		e("rx_vport_unicast_packets", VportUnicastPackets, RX, Packets),
		e("tx_vport_unicast_packets", VportUnicastPackets, TX, Packets),
		e("rx_global_pause", GlobalPauseQoS, RX, Packets),
		e("tx_global_pause", GlobalPauseQoS, TX, Packets),
		e("rx_packets", NetdevPackets, RX, Packets),
		e("tx_packets", NetdevPackets, TX, Packets),
		// mlx5 ethtool -S, per priority.
		ep("rx_prio%d_bytes", PrioBytes, RX, Bytes),
		ep("rx_prio%d_packets", PrioPackets, RX, Packets),
		ep("rx_prio%d_discards", PrioDiscards, RX, Packets),
		ep("rx_prio%d_buf_discard", PrioBufDiscards, RX, Packets),
		ep("rx_prio%d_cong_discard", PrioCongDiscards, RX, Packets),
		ep("rx_prio%d_marked", PrioHostECNMarked, RX, Packets),
		ep("tx_prio%d_bytes", PrioBytes, TX, Bytes),
		ep("tx_prio%d_packets", PrioPackets, TX, Packets),
		ep("rx_prio%d_pause", PauseFrames, RX, Packets),
		ep("rx_prio%d_pause_duration", PauseDuration, RX, Microseconds),
		ep("tx_prio%d_pause", PauseFrames, TX, Packets),
		ep("tx_prio%d_pause_duration", PauseDuration, TX, Microseconds),
		ep("rx_prio%d_pause_transition", PauseTransition, RX, Events),

		// mlx5 RDMA hw_counters.
		hw(CNPSent, TX),
		hw(ECNMarkedRoCE, RX),
		hw(CNPHandled, RX),
		hw(CNPIgnored, RX),
		hw(OutOfSequence, RX),
		hw(PacketSeqErr, RX),
		hw(LocalAckTimeoutErr, NoDir),
		hw(ImpliedNakSeqErr, RX),
		hw(DuplicateRequest, RX),
		hw(RNRNakRetryErr, NoDir),
		hw(RespOutOfBuffer, RX),
		hw(ReqCQEError, NoDir),
		hw(ReqCQEFlushError, NoDir),
		hw(RespCQEError, NoDir),
		hw(RespCQEFlushError, NoDir),
		hw(RxWriteRequests, RX),
		hw(RxReadRequests, RX),
		hw(RxAtomicRequests, RX),
		hw(AdpRetrans, TX),
		hw(AdpRetransTimeout, NoDir),
		hw(SlowRestart, NoDir),
		hw(SlowRestartCNPs, RX),
		hw(SlowRestartTrans, NoDir),
		hw(ICRCEncapsulated, RX),
		hw(ReqRemoteAccessErr, NoDir),
		hw(ReqRemoteInvalidReq, NoDir),
		hw(RespLocalLengthErr, NoDir),
		hw(RespRemoteAccessErrs, NoDir),
		hw(RxDCTConnect, RX),
		hw(ReqTransportRetriesExceeded, NoDir),
		hw(ReqRNRRetriesExceeded, NoDir),
		// mlx5's optional hw_counters: the congestion-control counts of
		// Linux 5.16 (CE-marked RoCE packets and CNPs received, CNPs sent)
		// and the RDMA packets and bytes per link of Patrisious Haddad's
		// "RDMA/mlx5: Add optional counters for RDMA_TX/RX_packets/bytes"
		// (2025; upstream in torvalds/linux counters.c's packets_op_cnts,
		// and in MLNX_OFED 25.10), whose received packets weigh the ECN
		// marks from the hw_counters alone.
		opt("cc_rx_ce_pkts", ECNMarkedRoCE, RX, Packets),
		opt("cc_rx_cnp_pkts", CNPHandled, RX, Packets),
		opt("cc_tx_cnp_pkts", CNPSent, TX, Packets),
		opt("rdma_rx_packets", RDMAUnicastPackets, RX, Packets),
		opt("rdma_tx_packets", RDMAUnicastPackets, TX, Packets),
		opt("rdma_rx_bytes", RDMAUnicastBytes, RX, Bytes),
		opt("rdma_tx_bytes", RDMAUnicastBytes, TX, Bytes),

		// IB port counters (counters/).
		pc(PortXmitData, TX, Words4),
		pc(PortRcvData, RX, Words4),
		pc(PortXmitPackets, TX, Packets),
		pc(PortRcvPackets, RX, Packets),
		pc(PortXmitDiscard, TX, Packets),
		pc(PortRcvErrors, RX, Packets),
		// The extended counters' unicast and multicast names carry no
		// port_ prefix (PORT_PMA_ATTR_EXT in sysfs.c).
		{Name: "unicast_xmit_packets", Vendor: MLX5, Source: PortCounters, Concept: PortUnicastPackets, Dir: TX, Unit: Packets},
		{Name: "unicast_rcv_packets", Vendor: MLX5, Source: PortCounters, Concept: PortUnicastPackets, Dir: RX, Unit: Packets},
		{Name: "multicast_xmit_packets", Vendor: MLX5, Source: PortCounters, Concept: PortMcastPackets, Dir: TX, Unit: Packets},
		{Name: "multicast_rcv_packets", Vendor: MLX5, Source: PortCounters, Concept: PortMcastPackets, Dir: RX, Unit: Packets},
		pc(LinkDowned, NoDir, Events),
		pc(LinkErrorRecovery, NoDir, Events),
		pc(SymbolError, RX, Events),
		pc(PortXmitWait, TX, Events),
		pc(PortRcvRemotePhysErrors, RX, Packets),
		pc(LocalLinkIntegrity, RX, Events),
		pc(ExcessiveBufferOverrun, RX, Events),
		pc(VL15Dropped, RX, Packets),

		// bnxt_en ethtool -S.
		other(BNXT, "rx_bytes_pri%d", PrioBytes, RX, true, Bytes),
		other(BNXT, "tx_bytes_pri%d", PrioBytes, TX, true, Bytes),
		other(BNXT, "rx_packets_pri%d", PrioPackets, RX, true, Packets),
		other(BNXT, "tx_packets_pri%d", PrioPackets, TX, true, Packets),
		other(BNXT, "rx_pfc_ena_frames_pri%d", PauseFrames, RX, true, Packets),
		other(BNXT, "tx_pfc_ena_frames_pri%d", PauseFrames, TX, true, Packets),
		other(BNXT, "pfc_pri%d_rx_duration_us", PauseDuration, RX, true, Microseconds),
		other(BNXT, "pfc_pri%d_tx_duration_us", PauseDuration, TX, true, Microseconds),
		other(BNXT, "pfc_pri%d_rx_transitions", PauseTransition, RX, true, Events),
		other(BNXT, "pfc_pri%d_tx_transitions", PauseTransition, TX, true, Events),
		other(BNXT, "rx_discard_packets_cos%d", PrioDiscards, RX, true, Packets),
		other(BNXT, "rx_pfc_frames", PFCFramesTotal, RX, false, Packets),
		other(BNXT, "tx_pfc_frames", PFCFramesTotal, TX, false, Packets),
		other(BNXT, "rx_pause_frames", GlobalPause, RX, false, Packets),
		other(BNXT, "tx_pause_frames", GlobalPause, TX, false, Packets),
		other(BNXT, "rx_total_frames", PhyPackets, RX, false, Packets),
		// The port's own drops (bnxt's rx_discards_phy), the host rings'
		// (its rx_out_of_buffer: the sum of every ring's rx_discard_pkts,
		// rx_total_discard_pkts until the ring error statistics renamed it
		// rx_total_ring_discards: Linux 6.6.43 prints the new name,
		// testdata/corpus/ethtool/ethtool-bnxt-en-6.6-*) and the port
		// buffer's congestion threshold.
		other(BNXT, "rx_stat_discard", PhyDiscards, RX, false, Packets),
		other(BNXT, "tx_stat_discard", PhyDiscards, TX, false, Packets),
		other(BNXT, "rx_total_discard_pkts", OutOfBufferHost, RX, false, Packets),
		renamed(other(BNXT, "rx_total_ring_discards", OutOfBufferHost, RX, false, Packets)),
		other(BNXT, "rx_buffer_passed_threshold", BufferPassedThreshold, RX, false, Events),
		other(BNXT, "tx_total_frames", PhyPackets, TX, false, Packets),
		// Its port's FCS errors and link flaps.
		other(BNXT, "rx_fcs_err_frames", PhyCRCErrors, RX, false, Packets),
		other(BNXT, "link_down_events", PhyLinkDown, RX, false, Events),
		// Its PCS's symbol errors: the count bnxt_get_eth_phy_stats
		// (bnxt_ethtool.c) reports as the port's IEEE 802.3
		// SymbolErrorDuringCarrier, eth-phy-SymbolErrorDuringCarrier of
		// `ethtool -S IF --groups eth-phy`.
		other(BNXT, "rx_pcs_symbol_err", PhySymbolErrors, RX, false, Events),

		// be2net ethtool -S.
		other(BE2NET, "rx_priority_pause_frames", PFCFramesTotal, RX, false, Packets),
		other(BE2NET, "tx_priority_pauseframes", PFCFramesTotal, TX, false, Packets),
		other(BE2NET, "tx_pauseframes", GlobalPause, TX, false, Packets),
		other(BE2NET, "rx_roce_frames", RDMAUnicastPackets, RX, false, Packets),
		other(BE2NET, "rx_drops_no_pbuf", OutOfBufferHost, RX, false, Packets),
		other(BE2NET, "rxpp_fifo_overflow_drop", PhyDiscards, RX, false, Packets),

		// mana_ib port hw_counters (Azure MANA, `rdma statistic show`).
		hwv(MANA, "requester_timeout", LocalAckTimeoutErr, NoDir),
		hwv(MANA, "requester_oos_nak", PacketSeqErr, RX),
		hwv(MANA, "responder_oos", OutOfSequence, RX),
		hwv(MANA, "responder_dup_request", DuplicateRequest, RX),
		hwv(MANA, "requester_implicit_nak", ImpliedNakSeqErr, RX),
		// RNR NAKs the requester received and the responder sent (a
		// receive WQE it lacked, as mlx5's out_of_buffer).
		hwv(MANA, "requester_rnr_nak", RNRNakRetryErr, NoDir),
		hwv(MANA, "responder_rnr_nak", RespOutOfBuffer, RX),
		hwv(MANA, "requester_rnr_nak_retries_exceeded", ReqRNRRetriesExceeded, NoDir),
		hwv(MANA, "requester_retries_exceeded", ReqTransportRetriesExceeded, NoDir),
		hwv(MANA, "received_cnps", CNPHandled, RX),

		// ice ethtool -S (Intel E810): PFC counts XOFF and XON frames apart,
		// and an XOFF is the pause request; link_xoff_* are 802.3x pause.
		other(ICE, "rx_priority_%d_xoff.nic", PauseFrames, RX, true, Packets),
		other(ICE, "tx_priority_%d_xoff.nic", PauseFrames, TX, true, Packets),
		other(ICE, "link_xoff_rx.nic", GlobalPause, RX, false, Packets),
		other(ICE, "link_xoff_tx.nic", GlobalPause, TX, false, Packets),
		// The port's own counters: frames with a bad FCS, frames the port
		// dropped (PRTRPB_RDPC: its receive packet buffer full, the host
		// or PCIe not draining it), and frame bytes.
		other(ICE, "rx_crc_errors.nic", PhyCRCErrors, RX, false, Packets),
		other(ICE, "rx_dropped.nic", PhyDiscards, RX, false, Packets),
		// The VSI's drops (GLV_RDPC): packets the NIC had to drop because
		// the host's receive rings had no free descriptor, as mlx5's
		// rx_out_of_buffer.
		common(other(ICE, "rx_dropped", OutOfBufferHost, RX, false, Packets)),
		other(ICE, "rx_bytes.nic", PhyBytes, RX, false, Bytes),
		other(ICE, "tx_bytes.nic", PhyBytes, TX, false, Bytes),

		// ionic ethtool -S (AMD Pensando, Pollara): the port's firmware
		// statistics. PFC frames are counted over all priorities and on
		// each (frames_rx/tx_pri_N: the MAC counts a received PFC frame in
		// frames_rx_pripause and in frames_rx_pri_N of the priority it
		// pauses, Pensando's SDK says, PsymonLi/sw nic/sdk/linkmgr/port.cc:1848,
		// and its QoS test reads "FRAMES RX PRI <cos>" as that class's PFC
		// frames, iota/test/iris/testcases/qos/qos_traffic_test.py:256;
		// they are no data frames), the time each priority was paused in
		// microseconds.
		other(IONIC, "frames_rx_pripause", PFCFramesTotal, RX, false, Packets),
		other(IONIC, "frames_tx_pripause", PFCFramesTotal, TX, false, Packets),
		other(IONIC, "frames_rx_pause", GlobalPause, RX, false, Packets),
		other(IONIC, "frames_tx_pause", GlobalPause, TX, false, Packets),
		other(IONIC, "rx_pripause_%d_1us_count", PauseDuration, RX, true, Microseconds),
		other(IONIC, "tx_pripause_%d_1us_count", PauseDuration, TX, true, Microseconds),
		other(IONIC, "rx_pause_1us_count", GlobalPauseDuration, RX, false, Microseconds),
		other(IONIC, "frames_rx_pri_%d", PauseFrames, RX, true, Packets),
		other(IONIC, "frames_tx_pri_%d", PauseFrames, TX, true, Packets),
		other(IONIC, "frames_rx_ok", PhyPackets, RX, false, Packets),
		other(IONIC, "frames_tx_ok", PhyPackets, TX, false, Packets),
		other(IONIC, "octets_rx_ok", PhyBytes, RX, false, Bytes),
		other(IONIC, "octets_tx_ok", PhyBytes, TX, false, Bytes),
		other(IONIC, "frames_rx_bad_fcs", PhyCRCErrors, RX, false, Packets),
		other(IONIC, "frames_rx_dropped", PhyDiscards, RX, false, Packets),

		// The IEEE 802.3 statistics of the kernel's ethtool netlink API,
		// as `ethtool -S IF --groups eth-phy eth-mac` (or --all-groups)
		// prints them under "Standard stats for IF:": the group's name,
		// a dash, the attribute's. Any driver that fills them (mlx5,
		// bnxt_en, ice, fbnic, ...) prints the same names.
		std("eth-phy-SymbolErrorDuringCarrier", PhySymbolErrors, RX, Events),
		std("eth-mac-FrameCheckSequenceErrors", PhyCRCErrors, RX, Packets),
		std("eth-mac-FramesReceivedOK", PhyPackets, RX, Packets),
		std("eth-mac-FramesTransmittedOK", PhyPackets, TX, Packets),
		std("eth-mac-OctetsReceivedOK", PhyBytes, RX, Bytes),
		std("eth-mac-OctetsTransmittedOK", PhyBytes, TX, Bytes),

		// The kernel's statistics of every network device (struct
		// rtnl_link_stats64), as `ip -s link` prints them and under the
		// names the kernel gives them (ip's RX "errors" is rx_errors, its
		// "-s -s" crc rx_crc_errors, "missed" rx_missed_errors): frames
		// received bad, those with a bad FCS, and packets the device had
		// to drop because the host had posted no receive buffer (mlx5
		// counts rx_out_of_buffer there since a May 2024 fix, Linux 6.10
		// and the stable kernels it went to; in rx_dropped before).
		// Many drivers' ethtool -S repeat them, so they say nothing of
		// the driver.
		common(Desc{Name: "rx_errors", Vendor: Netdev, Source: Ethtool, Concept: PhyRxErrors, Dir: RX, Unit: Packets}),
		common(Desc{Name: "rx_crc_errors", Vendor: Netdev, Source: Ethtool, Concept: PhyCRCErrors, Dir: RX, Unit: Packets}),
		common(Desc{Name: "rx_missed_errors", Vendor: Netdev, Source: Ethtool, Concept: OutOfBufferHost, Dir: RX, Unit: Packets}),

		// irdma hw_counters (Intel E810 RoCE): DCQCN's CNPs and ECN marks.
		hwv(IRDMA, "cnpHandled", CNPHandled, RX),
		hwv(IRDMA, "cnpIgnored", CNPIgnored, RX),
		hwv(IRDMA, "cnpSent", CNPSent, TX),
		hwv(IRDMA, "RxECNMrkd", ECNMarkedRoCE, RX),
		// irdma's UDP counts are its RoCEv2 packets (the RDMA engine's own).
		{Name: "RxUDP", Vendor: IRDMA, Source: HWCounters, Concept: RDMAUnicastPackets, Dir: RX, Unit: Packets},
		{Name: "TxUDP", Vendor: IRDMA, Source: HWCounters, Concept: RDMAUnicastPackets, Dir: TX, Unit: Packets},
		// The RDMA READ and WRITE messages it received (irdma's debugfs
		// prints them as "RDMA read/write msgs"), iWARP's or RoCE's.
		hwv(IRDMA, "iwInRdmaReads", RxReadRequests, RX),
		hwv(IRDMA, "iwInRdmaWrites", RxWriteRequests, RX),
		// irdma's GEN3 devices (Intel IPU E2000, linux-rdma Message-ID
		// 20250827152545.2056-7-tatyana.e.nikolova@intel.com) add RC loss
		// recovery, named in words with spaces as sysfs files and in
		// `rdma statistic`: the requester's NAKs and retransmission
		// timeouts, the responder's out-of-order packets, and RNR NAKs
		// both ways (one sent is a receive WQE the responder lacked, as
		// mlx5's out_of_buffer).
		hwv(IRDMA, "Nak Sequence Error", PacketSeqErr, RX),
		hwv(IRDMA, "Nak Sequence Error Implied", ImpliedNakSeqErr, RX),
		hwv(IRDMA, "RTO", LocalAckTimeoutErr, NoDir),
		hwv(IRDMA, "Rcvd Out of order packets", OutOfSequence, RX),
		hwv(IRDMA, "RNR received", RNRNakRetryErr, NoDir),
		hwv(IRDMA, "RNR sent", RespOutOfBuffer, RX),
		// The same patch drops the iw prefix of the RDMA message counts
		// (iwInRdmaReads is InRdmaReads on every generation from then on)
		// and adds the atomics received beside them.
		renamed(hwv(IRDMA, "InRdmaReads", RxReadRequests, RX)),
		renamed(hwv(IRDMA, "InRdmaWrites", RxWriteRequests, RX)),
		hwv(IRDMA, "Rx atomics", RxAtomicRequests, RX),
		// Its "CRC errors" are IRDMA_HW_STAT_INDEX_ICRCERR, the same patch
		// says: RoCE packets received with a bad ICRC, as mlx5's
		// rx_icrc_encapsulated.
		hwv(IRDMA, "CRC errors", ICRCEncapsulated, RX),

		// bnxt_re hw_counters (Broadcom RoCE): RC loss recovery.
		hwv(BNXTRE, "to_retransmits", LocalAckTimeoutErr, NoDir),
		hwv(BNXTRE, "seq_err_naks_rcvd", PacketSeqErr, RX),
		hwv(BNXTRE, "rnr_naks_rcvd", RNRNakRetryErr, NoDir),
		hwv(BNXTRE, "dup_req", DuplicateRequest, RX),
		hwv(BNXTRE, "oos_drop_count", OutOfSequence, RX),
		hwv(BNXTRE, "max_retry_exceeded", ReqTransportRetriesExceeded, NoDir),
		hwv(BNXTRE, "missing_resp", ImpliedNakSeqErr, RX),
		hwv(BNXTRE, "remote_invalid_req_err", ReqRemoteInvalidReq, NoDir),
		hwv(BNXTRE, "remote_access_err", ReqRemoteAccessErr, NoDir),
		hwv(BNXTRE, "res_length_mismatch", RespLocalLengthErr, NoDir),
		// Its extended statistics (BCM575xx on): DCQCN's CNPs and ECN
		// marks, the RoCE packets to weigh them against, and the
		// responders' missing receive WQEs under the name mlx5's ethtool
		// gives the host rings' (LookupIn tells them apart by source). A
		// 2025 linux-rdma patch (Message-ID 20250814112555.221665-7-
		// kalesh-anakkur.purayil@broadcom.com) gives them mlx5's names
		// (rx_cnp_pkts rp_cnp_handled, rx_ecn_marked_pkts
		// np_ecn_marked_roce_packets, rx_out_of_buffer out_of_buffer,
		// missing_resp implied_nak_seq_err), which says what each counts.
		hwv(BNXTRE, "tx_cnp_pkts", CNPSent, TX),
		hwv(BNXTRE, "rx_cnp_pkts", CNPHandled, RX),
		hwv(BNXTRE, "rx_ecn_marked_pkts", ECNMarkedRoCE, RX),
		hwv(BNXTRE, "rx_out_of_buffer", RespOutOfBuffer, RX),
		// The READ, WRITE and atomic requests its responders received,
		// from the same extended statistics (rx_read_req, not
		// rx_read_resp, the READ responses a requester received).
		hwv(BNXTRE, "rx_read_req", RxReadRequests, RX),
		hwv(BNXTRE, "rx_write_req", RxWriteRequests, RX),
		hwv(BNXTRE, "rx_atomic_req", RxAtomicRequests, RX),
		// Linux 6.18 renamed bnxt_re's counters to mlx5's names
		// (linux-rdma Message-ID 20250814112555.221665-7-kalesh-anakkur.
		// purayil@broadcom.com: to_retransmits local_ack_timeout_err,
		// seq_err_naks_rcvd packet_seq_err, oos_drop_count out_of_sequence,
		// rx_cnp_pkts rp_cnp_handled, ...), which read as mlx5's, except
		// the CNPs sent: np_cnp_pkts, not mlx5's np_cnp_sent.
		renamed(hwv(BNXTRE, "np_cnp_pkts", CNPSent, TX)),
		// The RoCE function's own statistics context (ctx_hw_stats, as
		// bnxt_en keeps one per ring): hw_counters.c copies its rx/tx
		// discard_pkts and rx/tx error_pkts and documents no cause.
		hwv(BNXTRE, "rx_roce_discards", RoCEDiscards, RX),
		hwv(BNXTRE, "tx_roce_discards", RoCEDiscards, TX),
		hwv(BNXTRE, "rx_roce_errors", RoCEErrors, RX),
		hwv(BNXTRE, "tx_roce_errors", RoCEErrors, TX),
		{Name: "rx_roce_only_pkts", Vendor: BNXTRE, Source: HWCounters, Concept: RDMAUnicastPackets, Dir: RX, Unit: Packets},
		{Name: "tx_roce_only_pkts", Vendor: BNXTRE, Source: HWCounters, Concept: RDMAUnicastPackets, Dir: TX, Unit: Packets},
		{Name: "rx_roce_only_bytes", Vendor: BNXTRE, Source: HWCounters, Concept: RDMAUnicastBytes, Dir: RX, Unit: Bytes},
		{Name: "tx_roce_only_bytes", Vendor: BNXTRE, Source: HWCounters, Concept: RDMAUnicastBytes, Dir: TX, Unit: Bytes},
		// The RoCE packets it received good, which bnxt_re printed before
		// its extended statistics (Linux 6.1 has it, not
		// rx_roce_only_pkts): "RDMA/bnxt_re: Support Perf management
		// counters" (linux-rdma, Message-ID 1741674104-5477-1-git-send-
		// email-selvin.xavier@broadcom.com) answers the IB PMA's
		// port_rcv_packets with it on BCM575xx physical functions.
		{Name: "rx_roce_good_pkts", Vendor: BNXTRE, Source: HWCounters, Concept: RDMAUnicastPackets, Dir: RX, Unit: Packets, Also: true},

		// ionic hw_counters (AMD Pensando RDMA, ionic_rdma): the firmware
		// names them (rdma_stats_hdrs), the driver prints what it is given.
		// DCQCN's CNPs and ECN marks, the RoCE packets to weigh them
		// against, and RC loss recovery on both sides of a QP: the
		// requester's NAKs (sequence errors, implied NAKs) and retries
		// exhausted, the responder's out-of-sequence packets (the
		// firmware spells it outouf), duplicates and missing receive WQEs.
		hwv(IONIC, "tx_rdma_cnp_pkts", CNPSent, TX),
		hwv(IONIC, "rx_rdma_cnp_pkts", CNPHandled, RX),
		hwv(IONIC, "rx_rdma_ecn_pkts", ECNMarkedRoCE, RX),
		{Name: "rx_rdma_ucast_pkts", Vendor: IONIC, Source: HWCounters, Concept: RDMAUnicastPackets, Dir: RX, Unit: Packets},
		{Name: "tx_rdma_ucast_pkts", Vendor: IONIC, Source: HWCounters, Concept: RDMAUnicastPackets, Dir: TX, Unit: Packets},
		{Name: "rx_rdma_ucast_bytes", Vendor: IONIC, Source: HWCounters, Concept: RDMAUnicastBytes, Dir: RX, Unit: Bytes},
		{Name: "tx_rdma_ucast_bytes", Vendor: IONIC, Source: HWCounters, Concept: RDMAUnicastBytes, Dir: TX, Unit: Bytes},
		hwv(IONIC, "req_rx_pkt_seq_err", PacketSeqErr, RX),
		hwv(IONIC, "req_rx_impl_nak_seq_err", ImpliedNakSeqErr, RX),
		// RNR NAKs the requester received ("Request Rx receiver not
		// ready retry errors"), as mlx5's rnr_nak_retry_err.
		hwv(IONIC, "req_rx_rnr_retry_err", RNRNakRetryErr, NoDir),
		hwv(IONIC, "req_tx_retry_excd_err", ReqTransportRetriesExceeded, NoDir),
		hwv(IONIC, "req_rx_rmt_acc_err", ReqRemoteAccessErr, NoDir),
		hwv(IONIC, "req_rx_rmt_req_err", ReqRemoteInvalidReq, NoDir),
		hwv(IONIC, "req_rx_cqe_err", ReqCQEError, NoDir),
		hwv(IONIC, "req_rx_cqe_flush", ReqCQEFlushError, NoDir),
		hwv(IONIC, "resp_rx_outouf_seq", OutOfSequence, RX),
		hwv(IONIC, "resp_rx_dup_request", DuplicateRequest, RX),
		hwv(IONIC, "resp_rx_outof_buf", RespOutOfBuffer, RX),
		hwv(IONIC, "resp_rx_loc_len_err", RespLocalLengthErr, NoDir),
		hwv(IONIC, "resp_rx_cqe_err", RespCQEError, NoDir),
		hwv(IONIC, "resp_rx_cqe_flush", RespCQEFlushError, NoDir),
		hwv(IONIC, "resp_tx_rmt_acc_err", RespRemoteAccessErrs, NoDir),
		// The NAKs the responder sent (AMD's Device Metrics Exporter:
		// "Response Tx packet sequence error count", "Response Tx remote
		// invalid request count", "Response Tx remote operation error
		// count"); its RNR NAKs sent are the receive WQEs it lacked, a
		// second name of resp_rx_outof_buf's count (as irdma's RNR sent).
		hwv(IONIC, "resp_tx_pkt_seq_err", RespSeqErrNakSent, NoDir),
		hwv(IONIC, "resp_tx_rmt_inval_req_err", RespInvalidReqNakSent, NoDir),
		hwv(IONIC, "resp_tx_rmt_oper_err", RespRemoteOpErrNakSent, NoDir),
		{Name: "resp_tx_rnr_retry_err", Vendor: IONIC, Source: HWCounters, Concept: RespOutOfBuffer, Dir: RX, Unit: Events, Also: true},
		// RoCE packets the Pollara firmware received and discarded for
		// their size against the MTU (by its name; AMD documents no more),
		// a receive discard as bnxt_re's rx_roce_discards.
		{Name: "rx_rdma_mtu_discard_pkts", Vendor: IONIC, Source: HWCounters, Concept: RoCEDiscards, Dir: RX, Unit: Packets, Sometimes: true},
		// The Pollara AI NICs' firmware adds the requester's ACK timeouts
		// (with retransmitted packets and the collective-traffic subsets
		// beside them), as `rdma statistic` prints them on ionic_0..7.
		{Name: "tx_rdma_ack_timeout", Vendor: IONIC, Source: HWCounters, Concept: LocalAckTimeoutErr, Unit: Events, Sometimes: true},
		// The RDMA packets its requesters sent again, which AMD's
		// node-scraper counts among ionic's error fields beside the ACK
		// timeouts (nodescraper/plugins/inband/rdma/rdmadata.py, error_fields).
		{Name: "tx_rdma_retx_pkts", Vendor: IONIC, Source: HWCounters, Concept: Retransmitted, Dir: TX, Unit: Packets, Sometimes: true},

		// efa hw_counters (AWS Elastic Fabric Adapter, SRD).
		hwv(EFA, "rx_drops", EFARxDrops, RX),
		hwv(EFA, "retrans_pkts", SRDRetransPackets, TX),
		hwv(EFA, "retrans_timeout_events", SRDRetransTimeouts, NoDir),
		hwv(EFA, "unresponsive_remote_events", SRDUnresponsiveRemote, NoDir),
		hwv(EFA, "impaired_remote_conn_events", SRDImpairedRemote, NoDir),
		hwv(EFA, "rdma_read_wr_err", EFARDMAReadWRErrors, NoDir),
		hwv(EFA, "rdma_write_wr_err", EFARDMAWriteWRErrors, NoDir),

		// Switch ports, as the twin reports them (no vendor prints these).
		sw("ecn_marked_prio%d", ECNMarkedPrio, true),
		sw("pfcwd_prio%d_storms", WDStorms, true),
		sw("pfcwd_prio%d_restores", WDRestores, true),
		sw("drop_lossy_overflow", DropReason, false),
		sw("drop_headroom_overflow", DropReason, false),
		sw("drop_pfc_watchdog", DropReason, false),
		sw("drop_no_route", DropReason, false),
		sw("drop_link_down", DropReason, false),
		sw("drop_link_loss", DropReason, false),
		sw("drop_host_overflow", DropReason, false),
		sw("drop_ttl_expired", DropReason, false),
	}
}
