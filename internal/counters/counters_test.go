package counters

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func TestLookupRoundTrip(t *testing.T) {
	tb := Default()
	for _, d := range tb.All() {
		n := 1
		if d.PerPrio {
			n = 8
		}
		for p := 0; p < n; p++ {
			name := d.Of(p)
			got, prio, ok := tb.LookupIn(d.Source, name)
			if !ok || got.Name != d.Name || got.Vendor != d.Vendor {
				t.Fatalf("LookupIn(%s, %q) = %v, %v", d.Source, name, got, ok)
			}
			if d.PerPrio && prio != p || !d.PerPrio && prio != -1 {
				t.Errorf("Lookup(%q) priority %d", name, prio)
			}
		}
	}
}

func TestNames(t *testing.T) {
	tb := Default()
	if got := tb.Name(MLX5, Ethtool, PauseDuration, RX, 3); got != "rx_prio3_pause_duration" {
		t.Errorf("mlx5 rx pause duration prio 3 = %q", got)
	}
	if got := tb.Name(BNXT, Ethtool, PauseFrames, TX, 5); got != "tx_pfc_ena_frames_pri5" {
		t.Errorf("bnxt tx pause prio 5 = %q", got)
	}
	got := tb.NamesIn(Ethtool, PauseFrames, RX, 3)
	if len(got) != 4 || got[0] != "rx_prio3_pause" || got[1] != "rx_pfc_ena_frames_pri3" || got[2] != "rx_priority_3_xoff.nic" || got[3] != "frames_rx_pri_3" {
		t.Errorf("NamesIn(ethtool, pause rx 3) = %v", got)
	}
	if d, p, ok := tb.Lookup("tx_priority_3_xoff.nic"); !ok || p != 3 || d.Vendor != ICE || d.Concept != PauseFrames || d.Dir != TX {
		t.Errorf("ice tx_priority_3_xoff.nic = %+v prio %d %v", d, p, ok)
	}
	if _, _, ok := tb.Lookup("tx_priority_3_xon.nic"); ok {
		t.Error("an XON frame is no pause request")
	}
	if _, _, ok := tb.Lookup("rx_prio8_pause"); ok {
		t.Error("priority 8 must not exist")
	}
}

// TestSharedName holds the one name two sources print apart: mlx5's ethtool
// rx_out_of_buffer counts the host rings' drops, bnxt_re's hw_counters
// rx_out_of_buffer its RDMA responders' missing receive WQEs. Lookup keeps
// the first (a reader of unknown source), LookupIn picks by source, and a
// source that prints neither gets the first.
func TestSharedName(t *testing.T) {
	tb := Default()
	if d, _, ok := tb.Lookup("rx_out_of_buffer"); !ok || d.Vendor != MLX5 || d.Concept != OutOfBufferHost {
		t.Errorf("Lookup(rx_out_of_buffer) = %+v", d)
	}
	if d, _, ok := tb.LookupIn(Ethtool, "rx_out_of_buffer"); !ok || d.Vendor != MLX5 || d.Concept != OutOfBufferHost {
		t.Errorf("LookupIn(ethtool, rx_out_of_buffer) = %+v", d)
	}
	if d, _, ok := tb.LookupIn(HWCounters, "rx_out_of_buffer"); !ok || d.Vendor != BNXTRE || d.Concept != RespOutOfBuffer {
		t.Errorf("LookupIn(hw_counters, rx_out_of_buffer) = %+v", d)
	}
	if d, _, ok := tb.LookupIn(SwitchPort, "rx_out_of_buffer"); !ok || d.Vendor != MLX5 {
		t.Errorf("LookupIn(switch, rx_out_of_buffer) = %+v", d)
	}
	if d, _, ok := tb.LookupIn(Ethtool, "rx_cnp_pkts"); !ok || d.Vendor != BNXTRE || d.Concept != CNPHandled {
		t.Errorf("a name one source prints is found from any: %+v", d)
	}
	_, err := New([]Desc{
		{Name: "a", Source: Ethtool, Concept: PhyBytes, Dir: RX},
		{Name: "a", Source: HWCounters, Concept: RespOutOfBuffer, Dir: RX},
	})
	if err != nil {
		t.Errorf("one name at two sources: %v", err)
	}
}

// TestNamesIn holds the names a reader of one source tries: the host
// rings' rx_out_of_buffer is mlx5's ethtool counter, not a name of the
// host rings in hw_counters, where bnxt_re's rx_out_of_buffer counts its
// responders like mlx5's out_of_buffer.
func TestNamesIn(t *testing.T) {
	tb := Default()
	for _, n := range tb.NamesIn(HWCounters, OutOfBufferHost, RX, 0) {
		if n == "rx_out_of_buffer" {
			t.Errorf("NamesIn(hw_counters, host rings) holds bnxt_re's responders' name")
		}
	}
	if got := tb.NamesIn(Ethtool, OutOfBufferHost, RX, 0); len(got) == 0 || got[0] != "rx_out_of_buffer" {
		t.Errorf("NamesIn(ethtool, host rings) = %v", got)
	}
	got := tb.NamesIn(HWCounters, RespOutOfBuffer, RX, 0)
	if strings.Join(got, " ") != "out_of_buffer responder_rnr_nak RNR sent rx_out_of_buffer resp_rx_outof_buf resp_tx_rnr_retry_err" {
		t.Errorf("NamesIn(hw_counters, responders) = %v", got)
	}
	all := tb.AllNamesIn(Ethtool, PauseDuration)
	if len(all) < 16 || all[0] != "rx_prio0_pause_duration" || all[7] != "rx_prio7_pause_duration" || all[8] != "tx_prio0_pause_duration" {
		t.Errorf("AllNamesIn(ethtool, pause duration) = %v", all)
	}
}

func TestNewRejectsDuplicates(t *testing.T) {
	_, err := New([]Desc{
		{Name: "a", Concept: PhyBytes, Dir: RX},
		{Name: "a", Concept: PhyPackets, Dir: RX},
	})
	if err == nil {
		t.Error("duplicate name accepted")
	}
	_, err = New([]Desc{{Name: "x_%d", Concept: PrioBytes}})
	if err == nil {
		t.Error("a per-priority name without PerPrio accepted")
	}
}

// originFields splits a provenance entry into its tree, its file:line,
// its token and its substitutions. A quoted token is one field up to its
// closing quote, spaces and all: irdma's GEN3 counters are named "RNR
// sent", "Nak Sequence Error" and the like.
func originFields(o string) []string {
	f := strings.Fields(o)
	if len(f) < 3 || !strings.HasPrefix(f[2], `"`) {
		return f
	}
	rest := strings.TrimSpace(strings.SplitN(o, " ", 3)[2])
	end := strings.Index(rest[1:], `"`)
	if end < 0 {
		return f
	}
	return append(f[:2:2], append([]string{rest[:end+2]}, strings.Fields(rest[end+2:])...)...)
}

// TestProvenance checks the provenance column: every name a driver prints
// cites a line of testdata/kernel-names.txt (names and line numbers
// extracted from the kernel and MLNX_OFED sources), the token cited is on
// that line, and the token with its substitutions is the name. Names only
// the twin prints have no origin.
func TestProvenance(t *testing.T) {
	data, err := os.ReadFile("testdata/kernel-names.txt")
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]bool{} // "tree file:line token"
	for _, l := range strings.Split(string(data), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			at[l] = true
		}
	}
	n := 0
	for _, d := range Default().All() {
		if d.Vendor == Twin {
			if d.Origin != "" {
				t.Errorf("%s: a twin-only name with an origin", d.Name)
			}
			continue
		}
		f := originFields(d.Origin)
		if len(f) < 3 {
			t.Errorf("%s (%s %s): no provenance", d.Name, d.Vendor, d.Source)
			continue
		}
		if !at[f[0]+" "+f[1]+" "+f[2]] {
			t.Errorf("%s: %s %s does not spell %s", d.Name, f[0], f[1], f[2])
		}
		name := strings.Trim(f[2], `"`)
		for _, sub := range f[3:] {
			old, nw, ok := strings.Cut(sub, "=")
			if !ok {
				t.Fatalf("%s: bad substitution %q", d.Name, sub)
			}
			name = strings.Replace(name, old, nw, 1)
		}
		if name != d.Name {
			t.Errorf("%s: the cited token %s with %v gives %q", d.Name, f[2], f[3:], name)
		}
		n++
	}
	if n < 100 {
		t.Errorf("only %d names traced", n)
	}
	// The IB port counters are the kernel's names: no port_ prefix on the
	// extended unicast and multicast counters.
	for _, name := range []string{"unicast_xmit_packets", "unicast_rcv_packets", "multicast_xmit_packets", "multicast_rcv_packets", "req_transport_retries_exceeded", "req_rnr_retries_exceeded"} {
		if _, _, ok := Default().Lookup(name); !ok {
			t.Errorf("%s is not in the table", name)
		}
	}
}

// An RDMA device's registered name says its driver; a renamed one does not.
func TestVendorOfDevice(t *testing.T) {
	for dev, want := range map[string]Vendor{"mlx5_0": MLX5, "mlx5_12": MLX5, "mlx5_bond_0": MLX5, "bnxt_re0": BNXTRE, "bnxt_re_bond0": BNXTRE, "irdma1": IRDMA, "ionic_3": IONIC, "efa_0": EFA, "mana_0": MANA} {
		if v, ok := VendorOfDevice(dev); !ok || v != want {
			t.Errorf("%s: %v %v, want %v", dev, v, ok, want)
		}
	}
	for _, dev := range []string{"rocep1s0f0", "bnxt_re", "bnxt_re_bond", "irdma", "hns_0", "rxe0", "ionic_x"} {
		if v, ok := VendorOfDevice(dev); ok {
			t.Errorf("%s: %v", dev, v)
		}
	}
}

// bnxt_en counts the pause episodes of each priority both ways
// (pfc_pri%d_rx_transitions and pfc_pri%d_tx_transitions, bnxt_ethtool.c's
// bnxt_port_stats_ext_arr). Before, only the received were known: the
// sent fell to the exporter's catch-all family as an untyped raw name.
func TestBnxtPauseTransitionsBothWays(t *testing.T) {
	for _, c := range []struct {
		name string
		dir  Dir
	}{{"pfc_pri3_rx_transitions", RX}, {"pfc_pri3_tx_transitions", TX}} {
		d, p, ok := Default().Lookup(c.name)
		if !ok || p != 3 || d.Vendor != BNXT || d.Concept != PauseTransition || d.Dir != c.dir {
			t.Errorf("Lookup(%q) = %+v prio %d %v", c.name, d, p, ok)
		}
	}
}

// bnxt_re printed the RoCE packets it received good (rx_roce_good_pkts)
// before its extended statistics' rx_roce_only_pkts, and prints both since:
// the name reads as received RoCE packets and is tried after the first,
// which Find and Name keep giving. Before, it was no counter.
func TestBnxtRERoCEGoodPackets(t *testing.T) {
	d, _, ok := Default().Lookup("rx_roce_good_pkts")
	if !ok || d.Vendor != BNXTRE || d.Concept != RDMAUnicastPackets || d.Dir != RX || !d.Also {
		t.Fatalf("Lookup(rx_roce_good_pkts) = %+v %v", d, ok)
	}
	if got := Default().NamesIn(HWCounters, RDMAUnicastPackets, RX, 0); slices.Index(got, "rx_roce_only_pkts") < 0 || slices.Index(got, "rx_roce_good_pkts") < slices.Index(got, "rx_roce_only_pkts") {
		t.Errorf("NamesIn = %v, want rx_roce_good_pkts after rx_roce_only_pkts", got)
	}
	if n := Default().Name(BNXTRE, HWCounters, RDMAUnicastPackets, RX, 0); n != "rx_roce_only_pkts" {
		t.Errorf("Name = %q, want rx_roce_only_pkts", n)
	}
}

// bnxt_en's rx_pcs_symbol_err is what it reports as the port's IEEE 802.3
// SymbolErrorDuringCarrier (bnxt_get_eth_phy_stats). Before, it was no
// counter.
func TestBnxtPCSSymbolErrors(t *testing.T) {
	d, _, ok := Default().Lookup("rx_pcs_symbol_err")
	if !ok || d.Vendor != BNXT || d.Concept != PhySymbolErrors || d.Dir != RX {
		t.Errorf("Lookup(rx_pcs_symbol_err) = %+v %v", d, ok)
	}
}

// A second name (Also) listed before its concept's first would be tried
// first by the readers (NamesIn keeps table order): New refuses it.
func TestAlsoAfterFirst(t *testing.T) {
	first := Desc{Name: "rx_symbol_err_phy", Vendor: MLX5, Source: Ethtool, Concept: PhySymbolErrors, Dir: RX, Unit: Events}
	also := Desc{Name: "rx_pcs_symbol_err_phy", Vendor: MLX5, Source: Ethtool, Concept: PhySymbolErrors, Dir: RX, Unit: Events, Also: true}
	if _, err := New([]Desc{first, also}); err != nil {
		t.Errorf("first then second name: %v", err)
	}
	if _, err := New([]Desc{also, first}); err == nil || !strings.Contains(err.Error(), "rx_pcs_symbol_err_phy") {
		t.Errorf("second name before the first: err = %v, want it refused", err)
	}
}

// The Pollara ionic firmware's MTU discards and the NAKs its responder
// sends (names of amd/node-scraper's recorded `rdma statistic` and
// Pensando's rdma_stats_hdrs) read as concepts, not as unmapped names.
func TestIonicResponderNAKsAndMTUDiscards(t *testing.T) {
	tb := Default()
	for name, want := range map[string]Concept{
		"rx_rdma_mtu_discard_pkts":  RoCEDiscards,
		"resp_tx_pkt_seq_err":       RespSeqErrNakSent,
		"resp_tx_rmt_inval_req_err": RespInvalidReqNakSent,
		"resp_tx_rmt_oper_err":      RespRemoteOpErrNakSent,
		"resp_tx_rnr_retry_err":     RespOutOfBuffer,
	} {
		d, _, ok := tb.LookupIn(HWCounters, name)
		if !ok || d.Concept != want || d.Vendor != IONIC {
			t.Errorf("%s: %+v %v, want ionic %s", name, d, ok, want)
		}
	}
}

// The RDMA requests a responder received, under bnxt_re's extended
// statistics' names (rx_read_req, rx_write_req, rx_atomic_req) and irdma's
// (iwInRdmaReads, iwInRdmaWrites), read as mlx5's rx_*_requests. Before,
// they were no counters: the exporter put them in the generic
// rocelab_rdma_hw_stat family, not rocelab_rdma_rx_*_requests_total.
// bnxt_re's rx_read_resp, the READ responses a requester received, stays
// unmapped.
func TestRDMARequestsReceivedBnxtREIrdma(t *testing.T) {
	wantHW(t, []hwWant{
		{"rx_read_req", BNXTRE, RxReadRequests, RX},
		{"rx_write_req", BNXTRE, RxWriteRequests, RX},
		{"rx_atomic_req", BNXTRE, RxAtomicRequests, RX},
		{"iwInRdmaReads", IRDMA, RxReadRequests, RX},
		{"iwInRdmaWrites", IRDMA, RxWriteRequests, RX},
	})
	if d, _, ok := Default().LookupIn(HWCounters, "rx_read_resp"); ok {
		t.Errorf("rx_read_resp read as %+v", d)
	}
}

// irdma's "CRC errors" (GEN3: IRDMA_HW_STAT_INDEX_ICRCERR) is RoCE packets
// received with a bad ICRC, and ionic's tx_rdma_retx_pkts (Pollara) the RDMA
// packets its requesters sent again. Before, neither was in the table: the
// exporter put both in the generic rocelab_rdma_hw_stat family and the
// doctor never read them.
func TestIrdmaICRCAndIonicRetransmitted(t *testing.T) {
	wantHW(t, []hwWant{
		{"CRC errors", IRDMA, ICRCEncapsulated, RX},
		{"tx_rdma_retx_pkts", IONIC, Retransmitted, TX},
	})
}

// An hwWant is an hw_counters name and what the table must read it as.
type hwWant struct {
	name    string
	vendor  Vendor
	concept Concept
	dir     Dir
}

// wantHW checks that the table reads each name as its want says.
func wantHW(t *testing.T, wants []hwWant) {
	t.Helper()
	for _, c := range wants {
		d, _, ok := Default().LookupIn(HWCounters, c.name)
		if !ok || d.Vendor != c.vendor || d.Concept != c.concept || d.Dir != c.dir {
			t.Errorf("%s: %+v %v, want %s %s %s", c.name, d, ok, c.vendor, c.concept, c.dir)
		}
	}
}

// New sizes its maps once, cuts each name's first entry from one array and
// each per-priority description's eight names from another. What it must
// allocate is the per-priority names (Of formats eight for each per-priority
// description), a second entry for each name two sources print, and a fixed
// few for the table, its two arrays and the two maps' directories and
// groups (12 with Go 1.26's maps). A slice a name grown by append and maps
// grown from empty took 1,046 allocations for the 490 names of 2026-12-07;
// an [8]string escaping for every description, per-priority or not, 534;
// both are past the limit. The limit grows with the table, so adding
// descriptions does not fail it.
func TestNewAllocatesNoSliceAName(t *testing.T) {
	var tables [6][]Desc // New's input, made outside the count
	for i := range tables {
		tables[i] = builtin()
	}
	names, perPrio := 0, 0
	for _, d := range tables[0] {
		names++
		if d.PerPrio {
			names += 7
			perPrio++
		}
	}
	ref, err := New(builtin())
	if err != nil {
		t.Fatal(err)
	}
	shared := 0 // names past their first description
	for _, es := range ref.byName {
		shared += len(es) - 1
	}
	next := 0
	allocs := testing.AllocsPerRun(len(tables)-1, func() {
		if _, err := New(tables[next]); err != nil {
			t.Fatal(err)
		}
		next++
	})
	const fixed = 24 // the table, its two arrays, the maps; headroom for another Go's maps
	limit := 8*perPrio + shared + fixed
	t.Logf("%d concrete names (%d shared), %d per-priority descriptions: %.0f allocations, limit %d", names, shared, perPrio, allocs, limit)
	if allocs > float64(limit) {
		t.Errorf("New allocated %.0f times, want at most %d (eight for each of %d per-priority descriptions, %d for shared names, %d fixed)", allocs, limit, perPrio, shared, fixed)
	}
}
