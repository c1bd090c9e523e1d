package wire

import "rocelab/internal/roce"

// Test vectors shared by the tshark oracle test (package wire_test) and
// the fuzz seeds.

// OracleTransports covers every opcode family: RC SEND/WRITE/READ/ACK/
// atomics/invalidate, UC SEND/WRITE, UD SEND ONLY, the CNP, and an ACK of
// every syndrome class.
func OracleTransports() []Transport {
	var ts []Transport
	add := func(op roce.Opcode, syn uint8, payload int) {
		i := len(ts)
		t := Transport{
			BTH: BTH{Opcode: op, PKey: uint16(0xffff - i), DestQP: uint32(0xffffff - 977*i), AckReq: i%2 == 0,
				PSN: uint32(0xfffff0+i*131) & 0xffffff, SolicitedEvent: i%3 == 0},
			PayloadLen: payload,
		}
		t.ExtHeaders = ExtHeaders{
			RETH:         RETH{VA: 0x7f0000000000 + uint64(i)<<12, RKey: uint32(0x100 + i), DMALength: uint32(1 << (i % 24))},
			AETH:         AETH{Syndrome: syn, MSN: uint32(0xfffff0+i) & 0xffffff},
			AtomicETH:    AtomicETH{VA: uint64(i) << 3, RKey: 1, SwapAddData: uint64(i), CompareData: ^uint64(i)},
			AtomicAckETH: AtomicAckETH{OrigRemoteData: uint64(i)},
			ImmDt:        ImmDt{Data: uint32(i) * 0x01010101},
			IETH:         IETH{RKey: uint32(i)},
			DETH:         DETH{QKey: 0x80010000, SrcQP: uint32(i)},
		}
		if op == roce.OpCNP {
			t.BTH.PKey, t.BTH.PSN, t.BTH.AckReq, t.BTH.BECN = 0xffff, 0, false, true
		}
		ts = append(ts, t)
	}
	for _, tr := range []roce.Opcode{roce.TransportRC, roce.TransportUC} {
		for op := roce.OpSendFirst; op <= roce.OpWriteOnlyImm; op++ {
			add(tr|op, 0, 1+int(op)*97)
		}
	}
	add(roce.OpReadRequest, 0, 0)
	add(roce.OpReadResponseFirst, 0x1f, 1024)
	add(roce.OpReadResponseMiddle, 0, 1024)
	add(roce.OpReadResponseLast, 0x1f, 333)
	add(roce.OpReadResponseOnly, 0x1f, 8)
	for _, syn := range []uint8{0x00, 0x0a, 0x1f, 0x20, 0x2e, 0x3f, 0x60, 0x61, 0x62, 0x63, 0x64} {
		add(roce.OpAcknowledge, syn, 0)
	}
	add(roce.OpAtomicAcknowledge, 0x1f, 0)
	add(roce.OpCompareSwap, 0, 0)
	add(roce.OpFetchAdd, 0, 0)
	add(roce.OpSendLastInv, 0, 77)
	add(roce.OpSendOnlyInv, 0, 4)
	add(roce.OpUDSendOnly, 0, 256)
	add(roce.OpUDSendOnlyImm, 0, 255)
	add(roce.OpCNP, 0, 0)
	return ts
}

// PFCCase is one MAC control vector: a PFC frame (Enable, Quanta) or an
// 802.3x PAUSE (Pause, PauseQ).
type PFCCase struct {
	Pause  bool
	Enable uint16
	Quanta [8]uint16
	PauseQ uint16
}

// OraclePFC lists the MAC control vectors of the oracle test.
func OraclePFC() []PFCCase {
	return []PFCCase{
		{Enable: 0x08, Quanta: [8]uint16{3: 0xffff}},
		{Enable: 0x08, Quanta: [8]uint16{3: 0}},
		{Enable: 0x01, Quanta: [8]uint16{0: 1}},
		{Enable: 0x88, Quanta: [8]uint16{3: 0x1234, 7: 0x10}},
		{Enable: 0xff, Quanta: [8]uint16{1, 2, 3, 4, 5, 6, 7, 0xffff}},
		{Enable: 0x00},
		{Enable: 0x10, Quanta: [8]uint16{4: 394}},
		{Pause: true, PauseQ: 0xffff},
		{Pause: true, PauseQ: 0},
		{Pause: true, PauseQ: 1},
	}
}

// VectorEndpoints returns the endpoints the vectors are built with.
func VectorEndpoints(v4, vlan bool) Endpoints { return testEndpoints(v4, vlan) }
