package exporter

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"rocelab/internal/counters"
)

// FuzzParseValue: ParseValue never panics, accepts exactly the decimal
// numbers that fit in 64 bits (with surrounding white space), and gives
// back their value.
func FuzzParseValue(f *testing.F) {
	for _, s := range []string{"0\n", "1333\n", "18446744073709551615", "18446744073709551616", "N/A (no PMA)\n", "", " \n", "-1", "4: ACTIVE", "0x10", "12 34", "\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := ParseValue(b)
		trimmed := strings.Trim(string(b), " \n\t\r")
		want, werr := strconv.ParseUint(trimmed, 10, 64)
		digits := trimmed != "" && strings.Trim(trimmed, "0123456789") == ""
		switch {
		case err == nil:
			if werr != nil || v != want {
				t.Fatalf("ParseValue(%q) = %d, strconv says %d, %v", b, v, want, werr)
			}
		case errors.Is(err, ErrNotAvailable):
			if !strings.HasPrefix(trimmed, "N/A") {
				t.Fatalf("ParseValue(%q): not available without N/A", b)
			}
		default:
			var ve *ValueError
			if !errors.As(err, &ve) || ve.Offset < 0 || ve.Offset > len(b) {
				t.Fatalf("ParseValue(%q): error %v without a valid offset", b, err)
			}
			if digits && werr == nil {
				t.Fatalf("ParseValue(%q) rejected a number strconv accepts: %v", b, err)
			}
		}
	})
}

// FuzzMapName: the ethtool (and sysfs) name mapper never panics, always
// places a name in a family, fills exactly the labels the family has, and
// round-trips known names through the counters table.
func FuzzMapName(f *testing.F) {
	for _, s := range []string{"rx_prio3_pause", "tx_prio7_pause_duration", "rx_pfc_ena_frames_pri5", "pfc_pri2_rx_duration_us", "rx_discards_phy", "rx0_packets", "port_xmit_data", "np_cnp_sent", "rx_prio8_pause", "rx_prio%d_pause", "\xff\xfe", ""} {
		f.Add(s, uint8(0))
	}
	tb := counters.Default()
	f.Fuzz(func(t *testing.T, name string, src uint8) {
		s := []counters.Source{counters.Ethtool, counters.HWCounters, counters.PortCounters}[int(src)%3]
		m := MapName(s, name)
		if m.Family == nil || m.Family.Source != s {
			t.Fatalf("MapName(%v, %q) = family %v", s, name, m.Family)
		}
		if !utf8.ValidString(m.Raw) {
			t.Fatalf("MapName(%q): raw label %q is not UTF-8", name, m.Raw)
		}
		if m.Mul <= 0 || m.Div <= 0 {
			t.Fatalf("MapName(%q): scale %g/%g", name, m.Mul, m.Div)
		}
		if (m.Dir != "") != (m.Family.Dir && !m.Family.Generic) {
			t.Fatalf("MapName(%q): direction %q in family %s", name, m.Dir, m.Family.Name)
		}
		if (m.Prio != "") != m.Family.Prio {
			t.Fatalf("MapName(%q): priority %q in family %s", name, m.Prio, m.Family.Name)
		}
		// The text exposition of the sample parses, with every label of
		// the family and the raw name intact.
		sink := textSink{layout: newLayout()}
		base := []string{"a", "b", "c"}
		if s != counters.Ethtool {
			base = base[:2] // device, port
		}
		(&Scrape{sink: &sink}).emitMapped(&m, 7, base...)
		var x exposition
		x.add(&sink)
		var out bytes.Buffer
		if err := x.writeTo(&out); err != nil {
			t.Fatal(err)
		}
		p := expfmt.NewTextParser(model.LegacyValidation)
		fams, err := p.TextToMetricFamilies(&out)
		if err != nil {
			t.Fatalf("MapName(%q): exposition does not parse: %v\n%s", name, err, out.String())
		}
		got := fams[m.Family.Name].GetMetric()[0].GetLabel()
		if len(got) != len(m.Family.Labels()) {
			t.Fatalf("MapName(%q): %d labels, family has %v", name, len(got), m.Family.Labels())
		}
		if m.Family.Generic {
			raw := m.Family.Labels()[len(m.Family.Labels())-1]
			for _, l := range got {
				if l.GetName() == raw && l.GetValue() != m.Raw {
					t.Fatalf("MapName(%q): raw label %q", name, l.GetValue())
				}
			}
		}
		if m.Family.Generic {
			if d, _, ok := tb.Lookup(name); ok && d.Source == s {
				t.Fatalf("known name %q fell through to %s", name, m.Family.Name)
			}
			return
		}
		d, prio, ok := tb.Lookup(name)
		if !ok || d.Of(prio) != name {
			t.Fatalf("MapName(%q) placed a name the table does not round-trip", name)
		}
	})
}

// FuzzParseEthtoolStats: the ethtool -S text parser never panics, and what
// it returns has unique names and survives a print and re-parse.
func FuzzParseEthtoolStats(f *testing.F) {
	f.Add([]byte("NIC statistics:\n     rx_prio3_pause: 12\n     tx_bytes: 5\n"))
	f.Add([]byte("# c\n$ ethtool -S x\n     [0]: rx_bytes: 1\n"))
	f.Add([]byte("a: 1\na: 2\n"))
	f.Add([]byte("bad line\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		stats, err := ParseEthtoolStats("fuzz", bytes.NewReader(b))
		if err != nil {
			return
		}
		var out strings.Builder
		seen := map[string]bool{}
		for _, s := range stats {
			if seen[s.Name] {
				t.Fatalf("name %q twice", s.Name)
			}
			seen[s.Name] = true
			out.WriteString(s.Name + ": " + strconv.FormatUint(s.Value, 10) + "\n")
		}
		again, err := ParseEthtoolStats("again", strings.NewReader(out.String()))
		if err != nil || len(again) != len(stats) {
			t.Fatalf("re-parse of %q: %v (%d of %d)", out.String(), err, len(again), len(stats))
		}
	})
}
