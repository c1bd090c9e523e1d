package headroom

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"rocelab/internal/unit"
)

// A published table: NVIDIA's pg_profile_lookup.ini for one SKU, copied to
// testdata/ with its source URL, and the inputs that SKU's SONiC image
// gives the lua. The tables do not print their inputs: the ASIC row is
// platform/mellanox/asic_table.j2's for the platform; LOSSLESS_TRAFFIC_PATTERN
// and the port MTU are the one combination that reproduces every row, found
// by a search over 0–100 % small packets, lossless MTUs 1024, 1500, 2048,
// 4096, 9100, 9216 and port MTUs 1500, 4096, 9100, 9216, with and without a
// shared headroom pool; it is unique for each table.
type published struct {
	file, asic string
	small      float64
	lossless   unit.Bytes
	portMTU    unit.Bytes
	shp        bool
	// lanes8 is the speed whose ports have eight lanes (xon doubled).
	lanes8 unit.BitRate
	// noCompensation: the table predates sonic-swss #4797 (Spectrum-6's
	// 18 KiB) and #4757 (the small-packet compensation).
	noCompensation bool
	// quanta800 replaces the IEEE budget at 800G (0: the lua's 905).
	quanta800 int
}

var tables = []published{
	// Spectrum-3, 25 rows, 2 m to 300 m, 10G to 100G, shared headroom pool.
	{file: "Mellanox-SN4600C-D24C52.ini", asic: "MELLANOX-SPECTRUM-3", small: 16, lossless: 1024, portMTU: 9216, shp: true},
	// Spectrum-4, 24 rows, 10G to 800G (8 lanes), kB on tile.
	{file: "ACS-SN5600.ini", asic: "MELLANOX-SPECTRUM-4", small: 100, lossless: 1024, portMTU: 9216, lanes8: 800 * unit.Gbps},
	// Spectrum-5, 42 rows, 10G to 800G, kB on tile, shared headroom pool.
	{file: "Mellanox-SN5640-C512X2.ini", asic: "MELLANOX-SPECTRUM-5", small: 50, lossless: 4096, portMTU: 9216, shp: true},
	// Spectrum-6, 14 rows, 10G to 800G: generated before the lua's
	// compensations and with twice the IEEE budget at 800G (1810 quanta;
	// the lua has 905 since sonic-swss #2860).
	{file: "ACS-SN6600_LD.ini", asic: "MELLANOX-SPECTRUM-6", small: 50, lossless: 4096, portMTU: 9216, noCompensation: true, quanta800: 1810},
}

type row struct {
	line                int
	speed               unit.BitRate
	cable               unit.Length
	size, xon, xoff     unit.Bytes
	speedText, cableTxt string
}

func readTable(t *testing.T, file string) []row {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []row
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 || strings.HasPrefix(fs[0], "#") {
			continue
		}
		if len(fs) < 5 {
			t.Fatalf("%s:%d: expected speed cable size xon xoff", file, n)
		}
		var v [5]int64
		for i, s := range fs[:5] {
			if v[i], err = strconv.ParseInt(strings.TrimSuffix(s, "m"), 10, 64); err != nil {
				t.Fatalf("%s:%d: %v", file, n, err)
			}
		}
		out = append(out, row{line: n, speed: unit.BitRate(v[0]) * unit.Mbps, cable: unit.Length(v[1]) * unit.Metre,
			size: unit.Bytes(v[2]), xon: unit.Bytes(v[3]), xoff: unit.Bytes(v[4]), speedText: fs[0], cableTxt: fs[1]})
	}
	return out
}

// TestPublishedTables computes every row of four NVIDIA tables with the
// Mellanox lua and compares xoff, xon and size exactly. The one
// exceptions are sizes the tables do not derive from their own xoff and
// xon (ACS-SN5600's 40G 5 m row, 1 KiB less; its 8-lane 800G rows, 8 KiB
// more instead of the port MTU): those are logged.
func TestPublishedTables(t *testing.T) {
	for _, tb := range tables {
		t.Run(tb.file, func(t *testing.T) {
			a, ok := LookupASIC(tb.asic)
			if !ok {
				t.Fatalf("no ASIC %s", tb.asic)
			}
			rows := readTable(t, tb.file)
			if len(rows) < 14 {
				t.Fatalf("%d rows", len(rows))
			}
			for _, r := range rows {
				in := Input{Formula: Mellanox, Speed: r.speed, Cable: r.cable, PortMTU: tb.portMTU, LosslessMTU: tb.lossless,
					SmallPacketPercent: tb.small, SharedHeadroomPool: tb.shp}
				a.Apply(&in)
				if tb.noCompensation {
					in.Compensation = 0
					in.SharedHeadroomPool = true // the small-packet compensation is skipped with a pool
				}
				if tb.quanta800 > 0 && r.speed == 800*unit.Gbps {
					in.ResponseTime = unit.Time(float64(tb.quanta800) * 512 / float64(r.speed) * float64(unit.Second))
				}
				if r.speed == tb.lanes8 {
					in.Lanes = 8
				}
				got := Compute(in)
				if got.Xoff != r.xoff || got.Xon != r.xon {
					t.Errorf("%s:%d %s %s: xoff %d xon %d, published %d %d", tb.file, r.line, r.speedText, r.cableTxt, got.Xoff, got.Xon, r.xoff, r.xon)
				}
				size := got.Size
				if tb.noCompensation && !tb.shp {
					size = got.Xoff + got.Xon
				}
				switch {
				case size == r.size:
				case r.size != r.xoff+r.xon && (tb.shp || in.Lanes == 8 || r.size < r.xoff+r.xon):
					// The table's size is not its own xoff + xon (+ the lanes'
					// overhead): no formula gives it.
					t.Logf("%s:%d %s %s: published size %d is not xoff + xon = %d; computed %d", tb.file, r.line, r.speedText, r.cableTxt, r.size, r.xoff+r.xon, size)
				default:
					t.Errorf("%s:%d %s %s: size %d, published %d", tb.file, r.line, r.speedText, r.cableTxt, size, r.size)
				}
			}
		})
	}
}

// The example of the issue that asked for these formulas: the SN3800
// (Spectrum-2) table's 100G / 40 m row, 66560 B, is SONiC's well-known
// formula with 50 % small packets counted by packets and the fractional
// worst-case factor 144/64 = 2.25. The current lua counts the share by
// bytes and rounds the factor up, which gives 51200 B for the same inputs.
// (ACS-MSN3800's other rows come from a static model that predates the
// dynamic one; no formula of either family reproduces them.)
func TestGenericAgainstSN3800(t *testing.T) {
	rows := readTable(t, "ACS-MSN3800.ini")
	var r row
	for _, x := range rows {
		if x.speed == 100*unit.Gbps && x.cable == 40*unit.Metre {
			r = x
		}
	}
	a, _ := LookupASIC("MELLANOX-SPECTRUM-2")
	in := Input{Formula: Generic, Speed: r.speed, Cable: r.cable, PortMTU: 9100, LosslessMTU: 1024, SmallPacketPercent: 50}
	a.Apply(&in)
	g := Compute(in)
	if g.Xoff != r.xoff || r.xoff != 66560 {
		t.Errorf("generic formula: xoff %d, published %d (want 66560)", g.Xoff, r.xoff)
	}
	if g.WorstCase != 2.25 || g.Occupancy != 1.625 {
		t.Errorf("worst case %g occupancy %g, want 2.25 and 1.625", g.WorstCase, g.Occupancy)
	}
	in.Formula = Mellanox
	in.SharedHeadroomPool = true // no small-packet compensation
	m := Compute(in)
	if m.Xoff != 51200 || m.WorstCase != 3 {
		t.Errorf("lua: xoff %d worst case %g, want 51200 and 3", m.Xoff, m.WorstCase)
	}
	// By bytes: 64 / (0.5·64 + 0.5·1024) = 11.76 % of the bytes are small.
	if math.Abs(m.SmallShare-100*64/544.0) > 1e-9 {
		t.Errorf("small share by bytes %g", m.SmallShare)
	}
}

// Without cells (the twin counts bytes) the two formulas agree, and both
// are the sum of the terms by hand: at 100G with port MTU 9100 and 1 KiB
// of MAC/PHY delay,
//
//	3 m:   9100 + (9100 + 378.8 + 1024 + 25216) = 44818.8 → 45056
//	300 m: 9100 + (9100 + 37878.8 + 1024 + 25216) = 82318.8 → 82944
func TestBytesByHand(t *testing.T) {
	for _, c := range []struct {
		cable unit.Length
		want  unit.Bytes
	}{{3 * unit.Metre, 45056}, {300 * unit.Metre, 82944}} {
		for _, f := range []Formula{Generic, Mellanox} {
			r := Compute(Input{Formula: f, Speed: 100 * unit.Gbps, Cable: c.cable, PortMTU: 9100, MACPHYDelay: 1024})
			if r.Xoff != c.want || r.Occupancy != 1 || r.PeerResponse != 25216 {
				t.Errorf("%s %v: xoff %d occupancy %g peer %g, want %d, 1, 25216", f, c.cable, r.Xoff, r.Occupancy, r.PeerResponse, c.want)
			}
		}
	}
}

// IEEE 802.3 31B.3.7 as the lua lists it; other speeds take the next
// listed one above.
func TestPauseQuanta(t *testing.T) {
	for _, c := range []struct {
		g      float64
		q      int
		listed bool
	}{{10, 67, true}, {25, 80, true}, {100, 394, true}, {400, 905, true}, {800, 905, true}, {100.0019, 394, true}, {99.9981, 394, true}, {56, 394, false}, {1.6e3, 905, false}} {
		q, listed := PauseQuanta(unit.BitRate(c.g * float64(unit.Gbps)))
		if q != c.q || listed != c.listed {
			t.Errorf("%gG: %d quanta (listed %v), want %d (%v)", c.g, q, listed, c.q, c.listed)
		}
	}
}

// The lua's compensations and lanes, each alone.
func TestMellanoxTerms(t *testing.T) {
	base := Input{Formula: Mellanox, Speed: 100 * unit.Gbps, Cable: 40 * unit.Metre, PortMTU: 9100, LosslessMTU: 1024, SmallPacketPercent: 50}
	a, _ := LookupASIC("MELLANOX-SPECTRUM-2")
	a.Apply(&base)
	// Without a shared headroom pool and with 50 % small packets, xoff
	// (51200) is far below the all-small worst case
	// (1024 + 40185.7·3 → 121856), so the lua adds 2 KiB.
	r := Compute(base)
	if r.Xoff != 51200+2048 || !r.SmallCompensated {
		t.Errorf("no pool: xoff %d compensated %v, want 53248", r.Xoff, r.SmallCompensated)
	}
	shp := base
	shp.SharedHeadroomPool = true
	if r := Compute(shp); r.Xoff != 51200 || r.Size != r.Xon || r.Xon != 19456 {
		t.Errorf("pool: xoff %d size %d xon %d", r.Xoff, r.Size, r.Xon)
	}
	if r.Size != r.Xoff+r.Xon {
		t.Errorf("no pool: size %d, want xoff + xon", r.Size)
	}
	lanes := base
	lanes.Lanes = 8
	if r8 := Compute(lanes); r8.Xon != 2*19456 || r8.Size != ceilKiB(float64(r8.Xoff+r8.Xon)+9100) {
		t.Errorf("8 lanes: xon %d size %d", r8.Xon, r8.Size)
	}
	s6, _ := LookupASIC("MELLANOX-SPECTRUM-6")
	in6 := base
	s6.Apply(&in6)
	in6.SharedHeadroomPool = true
	without := in6
	without.Compensation = 0
	if d := Compute(in6).Xoff - Compute(without).Xoff; d != 18*1024 {
		t.Errorf("Spectrum-6 compensation %d, want 18 KiB", d)
	}
	if _, ok := PlatformASIC("x86_64-mlnx_msn3800-r0"); !ok {
		t.Error("SN3800 platform unknown")
	}
}

// Fuzz: no input makes Compute panic, return a negative or non-multiple
// of 1 KiB, or xoff below the lossless MTU.
func FuzzCompute(f *testing.F) {
	f.Add(int64(100), int64(40), int64(9100), int64(1024), 50.0, 144, 819.2, false, 1)
	f.Fuzz(func(t *testing.T, gbps, metres, mtu, lossless int64, small float64, cell int, mac float64, shp bool, lanes int) {
		if gbps <= 0 || gbps > 1600 || metres < 0 || metres > 100000 || mtu <= 0 || mtu > 1<<16 || lossless < 0 || lossless > 1<<16 ||
			cell < 0 || cell > 4096 || math.IsNaN(small) || math.IsNaN(mac) || mac < 0 || mac > 1<<20 {
			return
		}
		for i, fm := range []Formula{Generic, Mellanox, Mellanox} {
			r := Compute(Input{Formula: fm, Speed: unit.BitRate(gbps) * unit.Gbps, Cable: unit.Length(metres) * unit.Metre, PortMTU: unit.Bytes(mtu),
				LosslessMTU: unit.Bytes(lossless), SmallPacketPercent: small, CellSize: cell, MACPHYDelay: mac, SharedHeadroomPool: shp, Lanes: lanes,
				FixedPeer: i == 2, PeerResponse: 3.8 * 1024})
			if r.Xoff < 0 || r.Xoff%1024 != 0 || r.Size%1024 != 0 || r.Occupancy <= 0 {
				t.Fatalf("%s: %+v", fm, r)
			}
			l := lossless
			if l == 0 {
				l = mtu
			}
			if int64(r.Xoff) < l {
				t.Fatalf("%s: xoff %d below the lossless MTU %d", fm, r.Xoff, l)
			}
		}
	})
}

func TestParseProfileName(t *testing.T) {
	for name, want := range map[string]Profile{
		"pg_lossless_100000_40m_profile":            {Speed: 100 * unit.Gbps, Cable: 40 * unit.Metre},
		"pg_lossless_400000_5m_mtu4096_th1_profile": {Speed: 400 * unit.Gbps, Cable: 5 * unit.Metre, MTU: 4096},
		"pg_lossless_100000_300m_8lane_profile":     {Speed: 100 * unit.Gbps, Cable: 300 * unit.Metre, Lanes8: true},
	} {
		if got, ok := ParseProfileName(name); !ok || got != want {
			t.Errorf("%s: %+v %v, want %+v", name, got, ok, want)
		}
	}
	for _, bad := range []string{"ingress_lossy_profile", "pg_lossless_100G_300m_profile", "pg_lossless_100000_profile", "pg_lossless_100000_40_profile", "pg_lossless_100000_40m_mtu9_profile"} {
		if _, ok := ParseProfileName(bad); ok {
			t.Errorf("%s accepted", bad)
		}
	}
}

func FuzzParseProfileName(f *testing.F) {
	f.Add("pg_lossless_100000_40m_mtu4096_8lane_profile")
	f.Fuzz(func(t *testing.T, name string) {
		p, ok := ParseProfileName(name)
		if ok && (p.Speed <= 0 || p.Cable < 0 || p.MTU < 0) {
			t.Fatalf("%q: %+v", name, p)
		}
	})
}

// TestFixedPeerTables: NVIDIA's static tables for Spectrum-1 (ACS-MSN2010,
// 2018), -2 (ACS-MSN3420, 2020-04) and -3 (ACS-MSN4410, 2020-11) predate
// sonic-swss #1930 (2021-09), which replaced the ASIC's fixed
// peer_response_time (3.8 KiB) with the IEEE budget. Every row's xoff and
// xon is the lua's with FixedPeer (at 400G, eight lanes, the xon is that
// of the lua's old 8-lane rule); with the IEEE budget the xoff is larger
// on every row at 25G and above, which is what pfc.headroom.short says of
// such a table (lint then tells the two apart).
func TestFixedPeerTables(t *testing.T) {
	for _, tb := range []struct {
		file, asic string
		small      float64
		portMTU    unit.Bytes
	}{
		{"ACS-MSN2010.ini", "MELLANOX-SPECTRUM", 100, 9100},
		{"ACS-MSN3420.ini", "MELLANOX-SPECTRUM-2", 96, 9216},
		{"ACS-MSN4410.ini", "MELLANOX-SPECTRUM-3", 96, 9216},
	} {
		a, _ := LookupASIC(tb.asic)
		rows := readTable(t, tb.file)
		if len(rows) < 15 {
			t.Fatalf("%s: %d rows", tb.file, len(rows))
		}
		for _, r := range rows {
			in := Input{Formula: Mellanox, Speed: r.speed, Cable: r.cable, PortMTU: tb.portMTU, LosslessMTU: 1024, SmallPacketPercent: tb.small}
			a.Apply(&in)
			in.FixedPeer = true
			fixed := Compute(in)
			xon := r.xon
			if r.speed == 400*unit.Gbps {
				xon = 19 * 1024 // the 8-lane rows: 2×19 KiB − 1 KiB, the lua's rule of the time
				if r.xon != 2*xon-1024 {
					t.Errorf("%s:%d: 400G xon %d, want 37888", tb.file, r.line, r.xon)
				}
			}
			if fixed.Xoff != r.xoff || fixed.Xon != xon || fixed.PauseQuanta != 0 || fixed.PeerResponse != 3.8*1024 {
				t.Errorf("%s:%d %s %s: fixed peer xoff %d xon %d (quanta %d), published %d %d", tb.file, r.line, r.speedText, r.cableTxt, fixed.Xoff, fixed.Xon, fixed.PauseQuanta, r.xoff, r.xon)
			}
			in.FixedPeer = false
			if ieee := Compute(in); r.speed >= 25*unit.Gbps && ieee.Xoff <= r.xoff {
				t.Errorf("%s:%d %s %s: IEEE xoff %d not above the table's %d", tb.file, r.line, r.speedText, r.cableTxt, ieee.Xoff, r.xoff)
			}
		}
	}
}
