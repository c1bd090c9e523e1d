package counters

// Concepts of the IB port counters (counters/) that tell link health, the
// extra RDMA error counters in hw_counters/, and the physical-port error
// counters in ethtool -S. The exporter keys its link-flap and error metrics
// on them.
const (
	LinkDowned         Concept = "link_downed"          // IB port: link went down (a flap)
	LinkErrorRecovery  Concept = "link_error_recovery"  // IB port: link retrained after errors
	SymbolError        Concept = "symbol_error"         // IB port: symbol errors on the wire
	PortUnicastPackets Concept = "port_unicast_packets" // IB port: unicast packets
	PortMcastPackets   Concept = "port_multicast_packets"
	PortXmitWait       Concept = "port_xmit_wait" // IB port: ticks with data to send but no credit (pause)
	// IB port: packets the far end marked bad as they left it (EBP)
	PortRcvRemotePhysErrors Concept = "port_rcv_remote_physical_errors"
	LocalLinkIntegrity      Concept = "local_link_integrity_errors"     // IB port: local physical errors over their threshold
	ExcessiveBufferOverrun  Concept = "excessive_buffer_overrun_errors" // IB port: receive buffer overruns in a row
	VL15Dropped             Concept = "VL15_dropped"                    // IB port: subnet management packets dropped

	ICRCEncapsulated     Concept = "rx_icrc_encapsulated"       // RoCE packets received with a bad ICRC
	ReqRemoteAccessErr   Concept = "req_remote_access_errors"   // requester got a remote access NAK
	ReqRemoteInvalidReq  Concept = "req_remote_invalid_request" // requester got a remote invalid request NAK
	RespLocalLengthErr   Concept = "resp_local_length_error"    // responder: incoming message longer than the WQE
	RespRemoteAccessErrs Concept = "resp_remote_access_errors"  // responder refused a remote access
	RxDCTConnect         Concept = "rx_dct_connect"             // DCT connect requests received

	PhyCRCErrors Concept = "phy_crc_errors" // frames received with a bad FCS
	PhyLinkDown  Concept = "phy_link_down"  // the physical link went down (a flap)
	PhyErrors    Concept = "phy_errors"     // frames the port failed to send
	// Symbols the PHY decoded as invalid while it had carrier (IEEE 802.3
	// 30.3.2.1.5): bit errors on the wire, before any frame check.
	PhySymbolErrors Concept = "phy_symbol_errors"
	// Frames received bad, of any kind the device checks: a bad FCS, a
	// wrong length, an alignment error (the kernel's rx_errors, which
	// must include rx_crc_errors, rx_length_errors and rx_frame_errors).
	PhyRxErrors Concept = "phy_rx_errors"
)
