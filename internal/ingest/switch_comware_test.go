package ingest

import "testing"

// HPE/H3C Comware `display interface` (real, ntc-templates), both
// layouts in one paste: each port's packets, errors, CRC and state are a
// PortCount, its pauses received and sent a link pause row; "-" is a
// counter the port does not keep.
func TestSwitchComwareDisplayInterface(t *testing.T) {
	s, ok := readCorpus(t, "switch/comware-display-interface-gige-admin-down-and-stp-down-no-errors-ntctemplates.txt")[KindSwitch].(*SwitchCounters)
	if !ok {
		t.Fatal("no switch counters")
	}
	want := []PortCount{
		{Port: "GigabitEthernet12/0/17", State: "X", RxOK: 15657716, RxErr: 0, RxDrop: -1, RxOver: -1, TxOK: 224919997, TxErr: 0, TxDrop: -1, TxOver: -1, CRC: 0},
		{Port: "GigabitEthernet11/0/17", State: "D", RxOK: 3, RxErr: 0, RxDrop: -1, RxOver: -1, TxOK: 7, TxErr: 0, TxDrop: -1, TxOver: -1, CRC: 0},
	}
	if len(s.Ports) != len(want) {
		t.Fatalf("ports %+v", s.Ports)
	}
	for i, w := range want {
		got := s.Ports[i]
		if got.Evidence.Line == 0 || got.ErrEvidence.Line == 0 {
			t.Errorf("port %d evidence %+v %+v", i, got.Evidence, got.ErrEvidence)
		}
		if got.Port != w.Port || got.State != w.State || got.RxOK != w.RxOK || got.RxErr != w.RxErr || got.RxDrop != w.RxDrop || got.TxOK != w.TxOK || got.TxErr != w.TxErr || got.TxDrop != w.TxDrop || got.CRC != w.CRC {
			t.Errorf("port %d = %+v, want %+v", i, got, w)
		}
	}
	if len(s.PFC) != 4 || !s.PFC[0].Link || s.PFC[0].Prio != AllPrios || s.PFC[0].Evidence.Line != 30 {
		t.Errorf("pause %+v", s.PFC)
	}
}

// SYNTHETIC Comware 7 block whose counter labels start at the margin (as
// some releases print them): a port's drops ("Input: N packets, N bytes,
// N drops"), CRC and pauses are read; the "(normal)" lines are not.
func TestSwitchComwareMarginLabels(t *testing.T) {
	s := readSwitchText(t,
		"HundredGigE1/0/1",
		"Current state: UP",
		"Input (total):  1000000 packets, 900000000 bytes",
		"\t900000 unicasts, 0 broadcasts, 0 multicasts, 4000 pauses",
		"Input (normal):  999999 packets, - bytes",
		"\t900000 unicasts, 0 broadcasts, 0 multicasts, 1 pauses",
		"Input:  12 input errors, 0 runts, 0 giants, 0 throttles",
		"\t12 CRC, 0 frame, - overruns, 0 aborts",
		"Output: 2000000 packets, 1800000000 bytes, 300 drops",
	)
	if len(s.Ports) != 1 {
		t.Fatalf("ports %+v", s.Ports)
	}
	p := s.Ports[0]
	if p.RxOK != 1000000 || p.RxErr != 12 || p.CRC != 12 || p.TxOK != 2000000 || p.TxDrop != 300 || p.ErrEvidence.Line != 8 || p.TxEvidence.Line != 9 || p.Platform != Comware {
		t.Errorf("port %+v", p)
	}
	if len(s.PFC) != 1 || s.PFC[0].Frames != 4000 || s.PFC[0].Dir != RX || s.PFC[0].Evidence.Line != 4 || s.PFC[0].Platform != Comware {
		t.Errorf("pause %+v", s.PFC)
	}
}
