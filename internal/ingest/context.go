package ingest

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// How a counter dump carries its time, so that two dumps of one port
// become rates over a known window:
//
//   - a `date` command and its output before the dump, in any of date's
//     common forms: `date +%s.%N` (1732999999.123456789), `date +%s`,
//     `date` (Mon Nov 30 22:15:16 UTC 2026), `date -Ins` or
//     `date --rfc-3339=ns` (2026-11-30T22:15:16,123456789+00:00);
//   - such output on a line of its own without the command, for the forms
//     that cannot be mistaken for a counter: `date` and ISO 8601, and
//     `date +%s.%N` with its nine fraction digits;
//   - `rocelab collect` archives, which write the same lines before every
//     dump, and the twin's --out files (simulated time from 0);
//   - `diagnose --interval`, for dumps taken a known time apart.
//
// The LineReader keeps the last time stated and attaches it to every later
// line as a Stamp; a parser gives a dump the stamp of its first line, when
// that stamp came after the parser's previous dump.

// A Stamp is a time an input stated, and the line that stated it.
type Stamp struct {
	// Unix is the time in nanoseconds since the Unix epoch (for the twin,
	// since the simulation started).
	Unix int64
	// Line is the line that stated it; 0 for no stamp.
	Line int
	// Text is that line as printed.
	Text string
}

// IsZero reports whether no time was stated.
func (s Stamp) IsZero() bool { return s.Line == 0 }

// String formats the stamp as the input printed it.
func (s Stamp) String() string { return s.Text }

// lineContext is what a paste said before the current line.
type lineContext struct {
	host      string
	stamp     Stamp
	expect    byte // 'h' after a hostname command, 'd' after a date command
	expectFor int  // lines left to wait for the output
}

// update reads a non-NCCL line for the context it states.
func (c *lineContext) update(l Line) {
	t := strings.TrimSpace(l.Text)
	if t == "" {
		return
	}
	if c.expect != 0 {
		switch c.expect {
		case 'h':
			if isIdentName(t) {
				c.host, c.expect = strings.Clone(t), 0
				return
			}
		case 'd':
			if ns, ok := parseDate(t, true); ok {
				c.stamp, c.expect = Stamp{Unix: ns, Line: l.Num, Text: strings.Clone(t)}, 0
				return
			}
		}
		if c.expectFor--; c.expectFor <= 0 {
			c.expect = 0
		}
	}
	if ns, ok := parseDate(t, false); ok {
		c.stamp = Stamp{Unix: ns, Line: l.Num, Text: strings.Clone(t)}
		return
	}
	if !strings.ContainsAny(t, "$#>%") {
		return
	}
	if _, _, ok := ipLinkInterface(t, true); ok {
		// `ip link`'s "2: veth2@if2: <BROADCAST,...>": a device and its
		// peer, not user@host.
		return
	}
	if h := promptHost(t); h != "" {
		c.host = strings.Clone(h)
	}
	if cmd, ok := findCommand(t, "hostname"); ok && len(cmd.Args) == 0 {
		c.expect, c.expectFor = 'h', 2
	} else if _, ok := findCommand(t, "date"); ok && isShellLine(t) {
		c.expect, c.expectFor = 'd', 2
	}
}

// isShellLine reports whether t is a command line: it starts with a
// prompt or a "$ " / "# ".
func isShellLine(t string) bool {
	return strings.HasPrefix(t, "$ ") || strings.HasPrefix(t, "# ") || strings.Contains(t, "]# ") ||
		strings.Contains(t, "]$ ") || strings.Contains(t, "$ date") || strings.Contains(t, "# date")
}

// dateLayouts are the forms `date` prints, most common first.
var dateLayouts = []string{
	time.UnixDate, // Mon Nov 30 22:15:16 UTC 2026
	"Mon Jan _2 15:04:05.999999999 MST 2006",
	"Mon _2 Jan 2006 15:04:05 MST",        // en_GB locale
	"Mon _2 Jan 2006 03:04:05 PM MST",     // en_US locale, newer coreutils
	"Mon Jan _2 03:04:05 PM MST 2006",     // en_US locale, 12-hour
	time.RFC3339Nano,                      // date -Ins with a dot
	"2006-01-02T15:04:05,999999999-07:00", // date -Ins
	"2006-01-02 15:04:05.999999999-07:00", // date --rfc-3339=ns
	"2006-01-02T15:04:05-07:00",           // date -Is
	"2006-01-02 15:04:05-07:00",           // date --rfc-3339=seconds
}

// parseDate reads a line `date` printed and returns nanoseconds since the
// epoch. afterCommand allows the bare epoch forms (`date +%s`, and
// `date +%s.%N` with any fraction), which alone look like any number.
func parseDate(t string, afterCommand bool) (int64, bool) {
	if len(t) < 10 || len(t) > 48 {
		if !(afterCommand && len(t) >= 1 && len(t) <= 30) {
			return 0, false
		}
	}
	c := t[0]
	if c >= '0' && c <= '9' {
		if ns, ok := parseEpoch(t, afterCommand); ok {
			return ns, true
		}
		if len(t) < 19 || t[4] != '-' {
			return 0, false
		}
	} else if !strings.ContainsRune("MTWFS", rune(c)) || !strings.ContainsRune(t, ':') {
		return 0, false
	}
	for _, layout := range dateLayouts {
		if tm, err := time.Parse(layout, t); err == nil {
			return tm.UnixNano(), true
		}
	}
	return 0, false
}

// parseEpoch reads "1732999999.123456789" (nine fraction digits, the only
// bare form accepted) or, after a date command, "1732999999", "0.5".
func parseEpoch(t string, afterCommand bool) (int64, bool) {
	secs, frac, dot := strings.Cut(t, ".")
	if !isDigits(secs) || len(secs) > 12 || dot && !isDigits(frac) || len(frac) > 9 {
		return 0, false
	}
	if !afterCommand && (len(secs) < 9 || len(frac) != 9) {
		return 0, false
	}
	s, err := strconv.ParseInt(secs, 10, 64)
	if err != nil {
		return 0, false
	}
	ns := int64(0)
	if frac != "" {
		f, _ := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
		ns = f
	}
	return s*1e9 + ns, true
}

// A Window is the time between two dumps of one port.
type Window struct {
	From, To Stamp
}

// Duration is the window's length; zero when unknown.
func (w Window) Duration() time.Duration {
	if w.From.IsZero() || w.To.IsZero() || w.To.Unix <= w.From.Unix {
		return 0
	}
	return time.Duration(w.To.Unix - w.From.Unix)
}

// String describes the window, e.g. "10.95 ms (line 4 to line 60)".
func (w Window) String() string {
	d := w.Duration()
	if d == 0 {
		return ""
	}
	return fmt.Sprintf("%s (%q at line %d to %q at line %d)", FormatDuration(d), w.From.Text, w.From.Line, w.To.Text, w.To.Line)
}

// FormatDuration prints a duration with four significant digits in the
// unit that suits it: "10.95 ms", "9.998 s".
func FormatDuration(d time.Duration) string {
	s := d.Seconds()
	switch {
	case s >= 1:
		return strconv.FormatFloat(s, 'g', 4, 64) + " s"
	case s >= 1e-3:
		return strconv.FormatFloat(s*1e3, 'g', 4, 64) + " ms"
	default:
		return strconv.FormatFloat(s*1e6, 'g', 4, 64) + " µs"
	}
}
