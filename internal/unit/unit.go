// Package unit holds the typed quantities the whole project shares: simulated
// time in integer picoseconds, sizes in bytes, bit rates, and cable lengths,
// together with parsers for the forms engineers write ("100G", "2us", "4KiB",
// "300m").
package unit

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// Time is simulated time or a duration, in integer picoseconds.
type Time int64

// Time units.
const (
	Picosecond  Time = 1
	Nanosecond  Time = 1000 * Picosecond
	Microsecond Time = 1000 * Nanosecond
	Millisecond Time = 1000 * Microsecond
	Second      Time = 1000 * Millisecond
)

// MaxTime is the largest representable time, about 106 days.
const MaxTime Time = math.MaxInt64

// Seconds returns t in seconds as a float.
func (t Time) Seconds() float64 { return float64(t) / float64(Second) }

// Micros returns t in microseconds as a float.
func (t Time) Micros() float64 { return float64(t) / float64(Microsecond) }

// String formats t with the largest unit that keeps it readable, e.g. "2.5us".
func (t Time) String() string {
	a := t
	if a < 0 {
		a = -a
	}
	switch {
	case a == 0:
		return "0s"
	case a < Nanosecond:
		return strconv.FormatInt(int64(t), 10) + "ps"
	case a < Microsecond:
		return trimFloat(float64(t)/float64(Nanosecond)) + "ns"
	case a < Millisecond:
		return trimFloat(float64(t)/float64(Microsecond)) + "us"
	case a < Second:
		return trimFloat(float64(t)/float64(Millisecond)) + "ms"
	default:
		return trimFloat(float64(t)/float64(Second)) + "s"
	}
}

// Bytes is a size or count of bytes.
type Bytes int64

// Byte size units. K, M and G are decimal; Ki, Mi and Gi are binary.
const (
	Byte Bytes = 1
	KB   Bytes = 1000
	MB   Bytes = 1000 * KB
	GB   Bytes = 1000 * MB
	KiB  Bytes = 1024
	MiB  Bytes = 1024 * KiB
	GiB  Bytes = 1024 * MiB
)

// String formats b exactly, using a binary or decimal suffix only when it
// divides evenly, so that the output parses back to the same value.
func (b Bytes) String() string {
	for _, u := range []struct {
		n Bytes
		s string
	}{{GiB, "GiB"}, {MiB, "MiB"}, {KiB, "KiB"}, {GB, "GB"}, {MB, "MB"}, {KB, "KB"}} {
		if b != 0 && b%u.n == 0 {
			return strconv.FormatInt(int64(b/u.n), 10) + u.s
		}
	}
	return strconv.FormatInt(int64(b), 10) + "B"
}

// Human formats b for a reader: exactly as String when a unit divides it
// ("128MiB", "9000B" below a kilobyte), otherwise to three significant
// figures in the binary or decimal unit that comes nearer the exact value
// ("122MiB" for 127926280, "150KB" for 149996). Unlike String it does not
// parse back to the same value: measured sizes (a message size rounded to
// whole elements, a buffer watermark) are read, not typed back.
func (b Bytes) Human() string {
	exact := b.String()
	if b < KB && b > -KB || !isDigitsB(exact) {
		return exact
	}
	bin := sigFigs(b, []Bytes{GiB, MiB, KiB}, []string{"GiB", "MiB", "KiB"})
	dec := sigFigs(b, []Bytes{GB, MB, KB}, []string{"GB", "MB", "KB"})
	if dec.err < bin.err {
		return dec.text
	}
	return bin.text
}

// isDigitsB reports whether s is a bare count of bytes, "123B".
func isDigitsB(s string) bool {
	_, err := strconv.ParseInt(strings.TrimSuffix(s, "B"), 10, 64)
	return err == nil && strings.HasSuffix(s, "B")
}

type rounded struct {
	text string
	err  float64
}

// sigFigs rounds b to three significant figures in the largest of units
// not above its magnitude; err is how far the rounded value lies from b.
func sigFigs(b Bytes, units []Bytes, names []string) rounded {
	i := 0
	for i < len(units)-1 && b < units[i] && b > -units[i] {
		i++
	}
	v := float64(b) / float64(units[i])
	prec := 0
	switch a := math.Abs(v); {
	case a < 10:
		prec = 2
	case a < 100:
		prec = 1
	}
	text := strconv.FormatFloat(v, 'f', prec, 64)
	r, _ := strconv.ParseFloat(text, 64)
	if prec > 0 {
		text = strings.TrimRight(strings.TrimRight(text, "0"), ".")
	}
	return rounded{text + names[i], math.Abs(r*float64(units[i]) - float64(b))}
}

// BitRate is a link or sending rate in bits per second.
type BitRate int64

// Bit rate units (decimal, as link speeds are quoted).
const (
	BitPerSecond BitRate = 1
	Kbps         BitRate = 1000
	Mbps         BitRate = 1000 * Kbps
	Gbps         BitRate = 1000 * Mbps
)

// Nominal reports whether r is the nominal rate n, give or take the
// 0.1 % that a port's clock offset (IEEE 802.3's ±100 ppm, and more when
// a scenario exaggerates it) moves a port's actual rate.
func (r BitRate) Nominal(n BitRate) bool {
	d := r - n
	return max(d, -d)*1000 <= n
}

// String formats r as e.g. "100Gbps" or "12.5Gbps".
func (r BitRate) String() string {
	switch {
	case r >= Gbps:
		return trimFloat(float64(r)/float64(Gbps)) + "Gbps"
	case r >= Mbps:
		return trimFloat(float64(r)/float64(Mbps)) + "Mbps"
	case r >= Kbps:
		return trimFloat(float64(r)/float64(Kbps)) + "Kbps"
	default:
		return strconv.FormatInt(int64(r), 10) + "bps"
	}
}

// Gbps returns r in gigabits per second as a float.
func (r BitRate) Gbps() float64 { return float64(r) / float64(Gbps) }

// TxTime returns the time to serialize n bytes at rate r, rounded up to the
// next picosecond. It is exact for any n and r that fit in int64, and returns
// MaxTime for a zero or negative rate.
func (r BitRate) TxTime(n Bytes) Time {
	if r <= 0 {
		return MaxTime
	}
	if n <= 0 {
		return 0
	}
	// ps = n * 8e12 / r, computed in 128 bits.
	hi, lo := bits.Mul64(uint64(n), 8*uint64(Second))
	if hi >= uint64(r) {
		return MaxTime
	}
	q, rem := bits.Div64(hi, lo, uint64(r))
	if rem != 0 {
		q++
	}
	if q > math.MaxInt64 {
		return MaxTime
	}
	return Time(q)
}

// BytesIn returns how many whole bytes rate r carries in duration d.
func (r BitRate) BytesIn(d Time) Bytes {
	if r <= 0 || d <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(r), uint64(d))
	div := 8 * uint64(Second)
	if hi >= div {
		return Bytes(math.MaxInt64)
	}
	q, _ := bits.Div64(hi, lo, div)
	return Bytes(q)
}

// Length is a cable length in millimetres.
type Length int64

// Length units.
const (
	Millimetre Length = 1
	Metre      Length = 1000
	Kilometre  Length = 1000 * Metre
)

// Metres returns l in metres.
func (l Length) Metres() float64 { return float64(l) / float64(Metre) }

// String formats l in metres, e.g. "300m" or "2.5m".
func (l Length) String() string { return trimFloat(l.Metres()) + "m" }

// PropagationPerMetre is the signal delay in fibre or copper, about 5 ns/m.
const PropagationPerMetre = 5 * Nanosecond

// Delay returns the one-way propagation delay over the cable.
func (l Length) Delay() Time { return Time(l) * PropagationPerMetre / Time(Metre) }

// CableFor returns the cable length whose propagation delay is d, to the
// millimetre: the inverse of Delay, for simulators that give links a
// delay rather than a length.
func CableFor(d Time) Length {
	return Length((int64(d)*int64(Metre) + int64(PropagationPerMetre)/2) / int64(PropagationPerMetre))
}

func trimFloat(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// A ParseError says which text failed to parse and what was expected.
type ParseError struct {
	Text     string
	Expected string
}

// Error implements error.
func (e *ParseError) Error() string {
	return fmt.Sprintf("invalid %s %q", e.Expected, e.Text)
}

// A RangeError says a value was written well but lies outside what the
// quantity may be: negative, or above Max.
type RangeError struct {
	Text string
	// Negative is set for a negative value, Tiny for a positive one below
	// the unit's resolution (it would round to zero); otherwise the value is
	// above Max, written as it parses back (e.g. "1PiB").
	Negative, Tiny bool
	Max            string
}

// Error implements error.
func (e *RangeError) Error() string {
	switch {
	case e.Negative:
		return fmt.Sprintf("%q is negative", e.Text)
	case e.Tiny:
		return fmt.Sprintf("%q is above zero but below the smallest step it can take (it would round to 0)", e.Text)
	}
	return fmt.Sprintf("%q is too large: at most %s", e.Text, e.Max)
}

// Limits of the parsers: far above any fabric, far below int64 overflow
// when quantities are added or multiplied by small factors.
const (
	MaxParsedTime   = 1000 * 3600 * Second // 1000h
	MaxParsedBytes  = 1024 * 1024 * GiB    // 1PiB
	MaxParsedRate   = 1000_000 * Gbps      // 1000Tbps
	MaxParsedLength = 1000 * Kilometre     // 1000km
)

// splitNumber splits "2.5us" into 2.5 and "us", tolerating spaces between.
// A number too large for a float64 is +Inf.
func splitNumber(s string) (float64, string, bool) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' || s[i] == '-' || s[i] == '+' || s[i] == 'e' && i > 0 && i+1 < len(s) && (s[i+1] >= '0' && s[i+1] <= '9' || s[i+1] == '-' || s[i+1] == '+')) {
		i++
	}
	if i == 0 {
		return 0, "", false
	}
	f, err := strconv.ParseFloat(s[:i], 64)
	if err != nil && !(errors.Is(err, strconv.ErrRange) && math.IsInf(f, 0)) || math.IsNaN(f) {
		return 0, "", false
	}
	return f, strings.TrimSpace(s[i:]), true
}

// scaled returns f·mult, or a RangeError naming max when it is negative or
// above max.
func scaled(text string, f float64, mult, max int64, maxText string) (int64, error) {
	v := f * float64(mult)
	if v < 0 || math.IsInf(v, -1) {
		return 0, &RangeError{Text: text, Negative: true}
	}
	if v > float64(max) {
		return 0, &RangeError{Text: text, Max: maxText}
	}
	if v > 0 && math.Round(v) == 0 {
		return 0, &RangeError{Text: text, Tiny: true}
	}
	return int64(math.Round(v)), nil
}

// ParseTime parses a duration such as "2us", "1.5 ms", "300ns", "500ps",
// "2µs", "1s", "5min" or "1h". A unit is required but for zero ("0", as
// Go's time.ParseDuration takes it). A negative value or one above
// MaxParsedTime is a *RangeError.
func ParseTime(s string) (Time, error) {
	const exp = "duration (a number and a unit: ps, ns, us, ms, s, min, h)"
	f, u, ok := splitNumber(s)
	if !ok {
		return 0, &ParseError{s, exp}
	}
	var mult Time
	switch strings.ToLower(u) {
	case "":
		if f != 0 {
			return 0, &ParseError{s, exp}
		}
		mult = Picosecond
	case "ps":
		mult = Picosecond
	case "ns":
		mult = Nanosecond
	case "us", "µs", "μs":
		mult = Microsecond
	case "ms":
		mult = Millisecond
	case "s", "sec":
		mult = Second
	case "min":
		mult = 60 * Second
	case "h":
		mult = 3600 * Second
	default:
		return 0, &ParseError{s, exp}
	}
	v, err := scaled(s, f, int64(mult), int64(MaxParsedTime), "1000h")
	return Time(v), err
}

// ParseBytes parses a size such as "4KiB", "9000", "1.5MB", "64 B" or
// "2GiB". K, M, G and T are decimal (powers of 1000); Ki, Mi, Gi and Ti are
// binary. A bare number means bytes. A negative value or one above
// MaxParsedBytes is a *RangeError.
func ParseBytes(s string) (Bytes, error) {
	const exp = "size (a number and an optional unit: B, KB, KiB, MB, MiB, GB, GiB, TB, TiB, PB, PiB)"
	f, u, ok := splitNumber(s)
	if !ok {
		return 0, &ParseError{s, exp}
	}
	var mult int64
	switch strings.TrimSuffix(strings.ToLower(u), "b") {
	case "":
		mult = 1
	case "k":
		mult = int64(KB)
	case "m":
		mult = int64(MB)
	case "g":
		mult = int64(GB)
	case "t":
		mult = 1000 * int64(GB)
	case "ki":
		mult = int64(KiB)
	case "mi":
		mult = int64(MiB)
	case "gi":
		mult = int64(GiB)
	case "ti":
		mult = 1024 * int64(GiB)
	case "p":
		mult = 1000_000 * int64(GB)
	case "pi":
		mult = 1024 * 1024 * int64(GiB)
	default:
		return 0, &ParseError{s, exp}
	}
	if strings.HasSuffix(u, "b") {
		// "Kb" is kilobits, "1b" one bit: refuse rather than guess.
		return 0, &ParseError{s, exp + " (lower-case b means bits)"}
	}
	v, err := scaled(s, f, mult, int64(MaxParsedBytes), "1PiB")
	if err == nil && f*float64(mult) != math.Round(f*float64(mult)) {
		return 0, &ParseError{s, exp + " that comes to a whole number of bytes"}
	}
	return Bytes(v), err
}

// Bare reports whether s is a number without a unit.
func Bare(s string) bool {
	_, u, ok := splitNumber(s)
	return ok && u == ""
}

// ParseRate parses a bit rate such as "100G", "400Gbps", "25 Gb/s",
// "100Gbit/s" or "800M". A bare number means bits per second. A negative
// value or one above MaxParsedRate is a *RangeError.
func ParseRate(s string) (BitRate, error) {
	const exp = "bit rate (a number and a unit: G, Gbps, Gb/s, M, Mbps)"
	f, u, ok := splitNumber(s)
	if !ok {
		return 0, &ParseError{s, exp}
	}
	l := strings.ToLower(u)
	for _, suf := range []string{"bps", "bit/s", "b/s"} {
		if strings.HasSuffix(l, suf) {
			l = strings.TrimSuffix(l, suf)
			break
		}
	}
	var mult int64
	switch l {
	case "":
		mult = 1
	case "k":
		mult = int64(Kbps)
	case "m":
		mult = int64(Mbps)
	case "g":
		mult = int64(Gbps)
	case "t":
		mult = 1000 * int64(Gbps)
	default:
		return 0, &ParseError{s, exp}
	}
	v, err := scaled(s, f, mult, int64(MaxParsedRate), "1000Tbps")
	return BitRate(v), err
}

// ParseLength parses a cable length such as "300m", "3 m", "1.5km" or
// "50cm". A negative value or one above MaxParsedLength is a *RangeError.
func ParseLength(s string) (Length, error) {
	const exp = "length (a number and a unit: mm, cm, m, km)"
	f, u, ok := splitNumber(s)
	if !ok {
		return 0, &ParseError{s, exp}
	}
	var mult Length
	switch strings.ToLower(u) {
	case "mm":
		mult = Millimetre
	case "cm":
		mult = 10 * Millimetre
	case "m":
		mult = Metre
	case "km":
		mult = Kilometre
	default:
		return 0, &ParseError{s, exp}
	}
	v, err := scaled(s, f, int64(mult), int64(MaxParsedLength), "1000km")
	return Length(v), err
}

// ParseBinarySize reads a size as nccl-tests' parsesize does: a number with an
// optional K, M or G suffix, binary (1M = 1048576).
func ParseBinarySize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K', 'k':
			mult, t = 1<<10, t[:n-1]
		case 'M', 'm':
			mult, t = 1<<20, t[:n-1]
		case 'G', 'g':
			mult, t = 1<<30, t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || v < 0 || v*float64(mult) > 1<<50 {
		return 0, fmt.Errorf("invalid size %q: want a number of bytes with an optional K, M or G (binary) suffix", s)
	}
	return int64(v * float64(mult)), nil
}
