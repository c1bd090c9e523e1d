// Package swcfg is how the readers of switch QoS configurations (EOS,
// NX-OS, OS10, Onyx, Junos, NVUE, Cumulus traffic.conf, SONiC's KLISH)
// read their text alike: a line's words at their places, the walk of an
// indented configuration, whole numbers and lists of them, interface
// ranges and DSCP names, the settings read but not judged, and IEEE
// 802.1Q's default priority map that several switch OSes ship. It knows
// no vendor's commands, so that no vendor's reader imports another's.
package swcfg

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/pos"
)

// A Value is one setting with where it is written (Line 0: a default).
type Value = pos.Value

// RED is a queue's ECN or WRED thresholds as a switch configuration writes
// them (EOS's `random-detect ecn`, NX-OS's and OS10's WRED, Onyx's and
// AOS-CX's ECN, Cumulus's ECN groups): thresholds in bytes (Unit says when
// they are in segments or time, which depend on the ASIC and the port, and
// are not converted).
type RED struct {
	At       Value // the command; Text "ecn" or "drop"
	Min, Max Value // Text is bytes when Unit is ""
	Unit     string
	// Prob is max-mark-probability (ecn) or drop-probability (drop) in
	// percent; not given, EOS marks at 100 % at the maximum threshold.
	Prob Value
}

// EachLine gives each line of a configuration that is not blank and does
// not start with one of the comment characters to f, as its words and its
// indent (the spaces and tabs before its first word): how the readers of
// indented switch configurations (EOS, NX-OS, OS10) walk their input. A
// word that starts with a comment character ends the line's words: guides
// and templates annotate commands so (`pause pfc-cos 3 ! RoCE`), and no
// QoS command takes such a word.
func EachLine(lines []string, comment string, f func(w []Value, indent int) error) error {
	for i, raw := range lines {
		raw = strings.TrimRight(raw, " \t\r")
		t := strings.TrimSpace(raw)
		if t == "" || strings.ContainsRune(comment, rune(t[0])) {
			continue
		}
		w := Words(raw, i+1)
		if j := slices.IndexFunc(w, func(v Value) bool { return strings.ContainsRune(comment, rune(v.Text[0])) }); j > 0 {
			w = w[:j]
		}
		if err := f(w, len(raw)-len(strings.TrimLeft(raw, " \t"))); err != nil {
			return err
		}
	}
	return nil
}

// Mentions reports whether any line holds one of words as a word of its
// own, in any case, or as the first part of a hyphenated one ("wred" in
// `wred-profile`), a statement's closing ';' or braces aside (Junos's
// `no-loss;`): whether a configuration writes a kind of setting anywhere,
// comments and settings not read included.
func Mentions(lines []string, words ...string) bool {
	for _, l := range lines {
		for _, f := range strings.Fields(strings.ToLower(l)) {
			f = strings.Trim(f, ";{}")
			for _, w := range words {
				if f == w || strings.HasPrefix(f, w+"-") {
					return true
				}
			}
		}
	}
	return false
}

// Words splits a line into its words with their places.
func Words(raw string, line int) []Value {
	var out []Value
	col := 1
	for _, f := range strings.Fields(raw) {
		at := strings.Index(raw[col-1:], f) + col
		out = append(out, Value{Text: f, Line: line, Col: at})
		col = at + len(f)
	}
	return out
}

// Texts are the words' texts.
func Texts(w []Value) []string {
	out := make([]string, len(w))
	for i, v := range w {
		out[i] = v.Text
	}
	return out
}

// Num reads a whole number from 0 to limit, else an error at the value
// that says what was expected.
func Num(file string, v Value, limit int, what string) (int, error) {
	n, err := strconv.Atoi(v.Text)
	if err != nil || n < 0 || n > limit {
		return 0, &pos.Error{File: file, Line: v.Line, Col: v.Col, Msg: fmt.Sprintf("%q: expected %s", v.Text, what)}
	}
	return n, nil
}

// IDs reads a list of numbers, "3", "4,5,7" or "0-3,5-7", each at most
// max, as NVUE, NX-OS, OS10 and traffic.conf write priorities, CoS values
// and qos-groups; a number named twice counts once.
func IDs(s string, max int) ([]int, bool) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 || a > max {
			return nil, false
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a || b > max {
				return nil, false
			}
		}
		for i := a; i <= b; i++ {
			if !slices.Contains(out, i) {
				out = append(out, i)
			}
		}
	}
	return out, len(out) > 0
}

// List reads a list of numbers as IDs does, else an error at the value
// that says what was expected.
func List(file string, v Value, limit int, what string) ([]int, error) {
	out, ok := IDs(v.Text, limit)
	if !ok {
		return nil, &pos.Error{File: file, Line: v.Line, Col: v.Col, Msg: fmt.Sprintf("%q: expected %s (a list such as 0-2,4)", v.Text, what)}
	}
	return out, nil
}

// Bytes reads a buffer threshold written in bytes, kbytes or mbytes
// (binary multiples, as switch buffers are sized) as bytes, else an error
// at the number.
func Bytes(file string, n, unit Value) (Value, error) {
	mult := map[string]int64{"bytes": 1, "kbytes": 1 << 10, "mbytes": 1 << 20}
	v, err := strconv.ParseInt(n.Text, 10, 64)
	m, ok := mult[unit.Text]
	if err != nil || v < 0 || v > 1<<40 || !ok {
		return Value{}, &pos.Error{File: file, Line: n.Line, Col: n.Col, Msg: fmt.Sprintf("%q %q: expected a threshold in bytes, kbytes or mbytes", n.Text, unit.Text)}
	}
	n.Text = strconv.FormatInt(v*m, 10)
	return n, nil
}

// ExpandNames expands interface ranges: "Ethernet1-4", "Ethernet1/1-4"
// or "ethernet1/1/1-1/1/4" (the last number ranges) and comma lists
// ("Ethernet1,3,5-6"); a part naming its own kind starts a new prefix
// ("Ethernet1/6-7,Port-Channel40-41").
func ExpandNames(spec string) []string {
	i := strings.IndexAny(spec, "0123456789")
	if i <= 0 {
		return []string{spec}
	}
	prefix := spec[:i]
	var out []string
	for _, part := range strings.Split(spec[i:], ",") {
		if j := strings.IndexAny(part, "0123456789"); j > 0 {
			prefix, part = part[:j], part[j:]
		}
		lo, hi, isRange := strings.Cut(part, "-")
		if j := strings.LastIndex(hi, "/"); j >= 0 {
			hi = hi[j+1:] // OS10's "1/1/1-1/1/4"
		}
		slot := ""
		if j := strings.LastIndex(lo, "/"); j >= 0 {
			slot, lo = lo[:j+1], lo[j+1:]
		}
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if !isRange || err1 != nil || err2 != nil || b < a || b-a > 1024 {
			out = append(out, prefix+part)
			continue
		}
		for n := a; n <= b; n++ {
			out = append(out, prefix+slot+strconv.Itoa(n))
		}
	}
	return out
}

// DSCPName reads a DSCP written as a number (0-63) or a PHB name (ef,
// be or default, csN, afXY), as EOS, NX-OS and Junos accept them.
func DSCPName(s string) (int, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		return n, n >= 0 && n <= 63
	}
	switch {
	case s == "ef":
		return 46, true
	case s == "be" || s == "default":
		return 0, true
	case len(s) == 3 && s[:2] == "cs" && s[2] >= '0' && s[2] <= '7':
		return int(s[2]-'0') * 8, true
	case len(s) == 4 && s[:2] == "af" && s[2] >= '1' && s[2] <= '4' && s[3] >= '1' && s[3] <= '3':
		return int(s[2]-'0')*8 + int(s[3]-'0')*2, true
	}
	return 0, false
}

// AddNotJudged adds to list a setting no rule weighs, named by its first
// n words and placed at the first, unless the list names it already.
func AddNotJudged(list []Value, w []Value, n int) []Value {
	k := strings.Join(Texts(w[:min(n, len(w))]), " ")
	if slices.ContainsFunc(list, func(v Value) bool { return v.Text == k }) {
		return list
	}
	v := w[0]
	v.Text = k
	return append(list, v)
}

// CoSTC is IEEE 802.1Q's default map of a priority (CoS) to one of eight
// traffic classes, which EOS and OS10 ship: CoS 0 (best effort) in class
// 1 above CoS 1 (background) in class 0, the rest in their own class.
func CoSTC(cos int) int {
	switch cos {
	case 0:
		return 1
	case 1:
		return 0
	}
	return cos
}

// Expand reads an interface type written short or in another case, as
// the CLI takes it (`ethernet 1/1`, `eth1/1`, `e1/1` for Ethernet1/1;
// `po10`, `port-channel10` for Port-Channel10): name with its leading
// letters and hyphens, when they begin full (case aside) and a number
// follows, written as full. Other names are returned as they are.
func Expand(name, full string) string {
	i := strings.IndexFunc(name, func(r rune) bool { return r != '-' && (r < 'A' || r > 'z' || r > 'Z' && r < 'a') })
	if i <= 0 || name[i] < '0' || name[i] > '9' || !strings.HasPrefix(strings.ToLower(full), strings.ToLower(name[:i])) {
		return name
	}
	return full + name[i:]
}

// Entered is the interface of list called name, or the one add
// returns, appended, when list has none: an interface entered again
// (typed sessions do) adds to the settings it has, as the switch keeps
// one block per port.
func Entered[T any](list *[]*T, name string, nameOf func(*T) string, add func() *T) *T {
	if i := slices.IndexFunc(*list, func(it *T) bool { return nameOf(it) == name }); i >= 0 {
		return (*list)[i]
	}
	it := add()
	*list = append(*list, it)
	return it
}

// A Setting is one setting a port channel passes to its members: What
// names it ("qos trust"), Own is the member's, Set the port channel's.
type Setting struct {
	What string
	Own  *Value
	Set  Value
}

// FromChannel gives a port channel's member each setting its port channel
// writes (a port channel's configuration applies to its members): Set
// when given, the member's own otherwise. A member's own setting that
// differs is named in notJudged, at its place, as the port channel's
// replaces it.
func FromChannel(settings []Setting, member, channel string, notJudged []Value) []Value {
	for _, s := range settings {
		if !s.Set.Given() {
			continue
		}
		if s.Own.Given() && s.Own.Text != s.Set.Text {
			at := *s.Own
			at.Text = fmt.Sprintf("%s %s on %s (a member of %s, which writes %s %s: the port channel's applies)", s.What, s.Own.Text, member, channel, s.What, s.Set.Text)
			notJudged = append(notJudged, at)
		}
		*s.Own = s.Set
	}
	return notJudged
}

// Members calls take(member, pc, pcName) for each interface of list that
// is a port channel's member (channel(it) given: `channel-group N`), pc
// being the interface of list named prefix+N. A member whose port channel
// list does not hold (a cut of the config) is passed to missing instead,
// and named not judged in notJudged: "channel-group N on MEMBER (CHANNEL
// not in the input: UNKNOWN)" at the channel-group's number.
func Members[T any](list []*T, name func(*T) string, channel func(*T) Value, prefix, unknown string, notJudged *[]Value, missing func(*T), take func(member, pc *T, pcName string)) {
	byName := map[string]*T{}
	for _, it := range list {
		byName[name(it)] = it
	}
	for _, it := range list {
		ch := channel(it)
		if !ch.Given() {
			continue
		}
		pcName := prefix + ch.Text
		if pc, ok := byName[pcName]; ok {
			take(it, pc, pcName)
			continue
		}
		at := ch
		at.Text = fmt.Sprintf("channel-group %s on %s (%s not in the input: %s)", ch.Text, name(it), pcName, unknown)
		*notJudged = append(*notJudged, at)
		missing(it)
	}
}
