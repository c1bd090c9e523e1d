package unit

import (
	"testing"
)

func TestParseRate(t *testing.T) {
	cases := map[string]BitRate{
		"100G": 100 * Gbps, "400Gbps": 400 * Gbps, "25 Gb/s": 25 * Gbps,
		"100Gbit/s": 100 * Gbps, "800M": 800 * Mbps, "12.5G": 12500 * Mbps, "1000": 1000,
	}
	for in, want := range cases {
		got, err := ParseRate(in)
		if err != nil || got != want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "fast", "100X", "-1G", "G100", "1e400G"} {
		if _, err := ParseRate(bad); err == nil {
			t.Errorf("ParseRate(%q) accepted", bad)
		}
	}
}

func TestParseTime(t *testing.T) {
	cases := map[string]Time{
		"2us": 2 * Microsecond, "1.5 ms": 1500 * Microsecond, "300ns": 300 * Nanosecond,
		"500ps": 500, "2µs": 2 * Microsecond, "1s": Second, "0.1us": 100 * Nanosecond,
		"0": 0, " 0 ": 0, "0.0": 0,
	}
	for in, want := range cases {
		got, err := ParseTime(in)
		if err != nil || got != want {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "2", "0.5", "2 parsecs", "-1us", "us", "-0x"} {
		if _, err := ParseTime(bad); err == nil {
			t.Errorf("ParseTime(%q) accepted", bad)
		}
	}
}

func TestParseBytes(t *testing.T) {
	cases := map[string]Bytes{
		"4KiB": 4096, "4KB": 4000, "9000": 9000, "1.5MB": 1500000, "64 B": 64,
		"2GiB": 2 << 30, "32MiB": 32 << 20, "1k": 1000, "1.5KiB": 1536,
	}
	for in, want := range cases {
		got, err := ParseBytes(in)
		if err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	// "1b" is a bit, "1.5" and "0.1KiB" no whole number of bytes, "1e-9" a
	// positive size that would round to nothing: all refused, as
	// docs/scenario.md's unit table says.
	for _, bad := range []string{"", "-4KiB", "4Kb", "4 bananas", "KiB", "1b", "1.5", "0.1KiB", "1e-9"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) accepted", bad)
		}
	}
}

func TestParseLength(t *testing.T) {
	cases := map[string]Length{"300m": 300 * Metre, "3 m": 3 * Metre, "1.5km": 1500 * Metre, "50cm": 500}
	for in, want := range cases {
		got, err := ParseLength(in)
		if err != nil || got != want {
			t.Errorf("ParseLength(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseLength("300"); err == nil {
		t.Error("ParseLength without unit accepted")
	}
}

func TestTxTime(t *testing.T) {
	// One byte is 80 ps at 100G, 20 ps at 400G, 320 ps at 25G.
	for _, c := range []struct {
		r    BitRate
		n    Bytes
		want Time
	}{
		{100 * Gbps, 1, 80}, {400 * Gbps, 1, 20}, {25 * Gbps, 1, 320},
		{100 * Gbps, 4096 + 78, (4096 + 78) * 80},
		{3 * Gbps, 1, 2667}, // 2666.67 rounds up
		{100 * Gbps, 1 << 40, Time(1<<40) * 80},
		{0, 10, MaxTime},
	} {
		if got := c.r.TxTime(c.n); got != c.want {
			t.Errorf("%v.TxTime(%d) = %d, want %d", c.r, c.n, got, c.want)
		}
	}
	if got := (100 * Gbps).BytesIn(Microsecond); got != 12500 {
		t.Errorf("100G carries %d B in 1us, want 12500", got)
	}
}

func TestDelay(t *testing.T) {
	if got := (300 * Metre).Delay(); got != 1500*Nanosecond {
		t.Errorf("300m delay = %v, want 1.5us", got)
	}
}

func TestStringsRoundTrip(t *testing.T) {
	for _, b := range []Bytes{0, 1, 1000, 1024, 4096, 9000, 3 << 20, 2 * GB} {
		got, err := ParseBytes(b.String())
		if err != nil || got != b {
			t.Errorf("Bytes %d -> %q -> %d, %v", b, b.String(), got, err)
		}
	}
	if s := (2500 * Nanosecond).String(); s != "2.5us" {
		t.Errorf("Time string %q", s)
	}
	if s := (100 * Gbps).String(); s != "100Gbps" {
		t.Errorf("rate string %q", s)
	}
}

// Values written well but out of range say which bound they break, with
// the limit as the parser would read it back.
func TestParseRange(t *testing.T) {
	for _, c := range []struct {
		in       string
		parse    func(string) (int64, error)
		negative bool
		max      string
	}{
		{"1e30", func(s string) (int64, error) { b, err := ParseBytes(s); return int64(b), err }, false, "1PiB"},
		{"2PiB", func(s string) (int64, error) { b, err := ParseBytes(s); return int64(b), err }, false, "1PiB"},
		{"1e400", func(s string) (int64, error) { b, err := ParseBytes(s); return int64(b), err }, false, "1PiB"},
		{"-4KiB", func(s string) (int64, error) { b, err := ParseBytes(s); return int64(b), err }, true, ""},
		{"1001h", func(s string) (int64, error) { d, err := ParseTime(s); return int64(d), err }, false, "1000h"},
		{"-1us", func(s string) (int64, error) { d, err := ParseTime(s); return int64(d), err }, true, ""},
		{"1e400G", func(s string) (int64, error) { r, err := ParseRate(s); return int64(r), err }, false, "1000Tbps"},
		{"2000km", func(s string) (int64, error) { l, err := ParseLength(s); return int64(l), err }, false, "1000km"},
	} {
		_, err := c.parse(c.in)
		re, ok := err.(*RangeError)
		if !ok || re.Negative != c.negative || re.Max != c.max {
			t.Errorf("%q: error %#v, want a RangeError negative=%v max=%q", c.in, err, c.negative, c.max)
		}
	}
	for in, want := range map[string]Time{"1h": 3600 * Second, "1.5min": 90 * Second, "1000h": MaxParsedTime} {
		if got, err := ParseTime(in); err != nil || got != want {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, want := range map[string]Bytes{"1PiB": MaxParsedBytes, "1PB": 1e15} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}

// TestTinyRefused: a positive rate or time below the unit's resolution is
// refused rather than rounded to zero; a bare rate is bits per second, and
// Bare says so.
func TestTinyRefused(t *testing.T) {
	if _, err := ParseRate("1e-9"); err == nil {
		t.Error("ParseRate(1e-9) accepted")
	}
	if _, err := ParseTime("0.0001ps"); err == nil {
		t.Error("ParseTime(0.0001ps) accepted")
	}
	if r, err := ParseRate("0"); err != nil || r != 0 {
		t.Errorf("ParseRate(0) = %v, %v", r, err)
	}
	if !Bare("100") || Bare("100G") || Bare("x") {
		t.Error("Bare")
	}
}

// CableFor is Delay's inverse: 1 us is htsim's and ns-3's 200 m hop.
func TestCableFor(t *testing.T) {
	for _, c := range []struct {
		d    Time
		want Length
	}{{Microsecond, 200 * Metre}, {1000 * Nanosecond, 200 * Metre}, {15 * Nanosecond, 3 * Metre}, {2500 * Picosecond, 500 * Millimetre}, {0, 0}} {
		if got := CableFor(c.d); got != c.want || got.Delay() != c.d {
			t.Errorf("CableFor(%v) = %v (delay %v), want %v", c.d, got, got.Delay(), c.want)
		}
	}
}

// A port's actual rate is its nominal one within 0.1 %; 100G is not 400G.
func TestNominal(t *testing.T) {
	for _, c := range []struct {
		r, n BitRate
		want bool
	}{
		{99_991_165_343, 100 * Gbps, true},
		{100_009_662_276, 100 * Gbps, true},
		{100 * Gbps, 100 * Gbps, true},
		{99_899_000_000, 100 * Gbps, false},
		{400 * Gbps, 100 * Gbps, false},
		{100 * Gbps, 400 * Gbps, false},
	} {
		if got := c.r.Nominal(c.n); got != c.want {
			t.Errorf("%v.Nominal(%v) = %v", c.r, c.n, got)
		}
	}
}

// Human keeps what String prints exactly and rounds the rest to three
// figures in whichever unit family lands nearer: nccl-tests' 122 MiB + 8 B
// rows, SONiC's watermarks and a configured 150 kB less a cell.
func TestBytesHuman(t *testing.T) {
	for b, want := range map[Bytes]string{
		0: "0B", 999: "999B", 1024: "1KiB", 9000: "9KB", 128 * MiB: "128MiB",
		127926280: "122MiB", 133169160: "127MiB", 4294967280: "4GiB", 8589934560: "8GiB",
		149996: "150KB", 1499464: "1.43MiB", 2986: "2.99KB", 432640: "433KB", 1536*MiB + 5: "1.5GiB",
		-1536*MiB - 5: "-1.5GiB", -1499464: "-1.43MiB", -1500: "-1.5KB",
	} {
		if got := b.Human(); got != want {
			t.Errorf("Bytes(%d).Human() = %q, want %q", int64(b), got, want)
		}
	}
}
