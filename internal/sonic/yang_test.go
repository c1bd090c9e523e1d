package sonic

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// stmt is one YANG statement: keyword, argument, substatements.
type stmt struct {
	kw, arg string
	sub     []*stmt
}

func (s *stmt) find(kw, arg string) *stmt {
	for _, c := range s.sub {
		if c.kw == kw && (arg == "" || c.arg == arg) {
			return c
		}
	}
	return nil
}

func (s *stmt) all(kw string) []*stmt {
	var out []*stmt
	for _, c := range s.sub {
		if c.kw == kw {
			out = append(out, c)
		}
	}
	return out
}

// parseYANG reads the statements of a YANG file: enough of RFC 7950's
// syntax for SONiC's models (comments, quoted and concatenated strings).
func parseYANG(t *testing.T, text string) *stmt {
	t.Helper()
	var toks []string
	quoted := map[int]bool{}
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case unicode.IsSpace(rune(c)):
			i++
		case strings.HasPrefix(text[i:], "//"):
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case strings.HasPrefix(text[i:], "/*"):
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				t.Fatal("unterminated comment")
			}
			i += end + 4
		case c == '{' || c == '}' || c == ';':
			toks = append(toks, string(c))
			i++
		case c == '"' || c == '\'':
			var b strings.Builder
			j := i + 1
			for ; j < len(text) && text[j] != c; j++ {
				if c == '"' && text[j] == '\\' && j+1 < len(text) {
					j++
				}
				b.WriteByte(text[j])
			}
			s := b.String()
			if n := len(toks); n >= 2 && toks[n-1] == "+" && quoted[n-2] {
				toks[n-2] += s
				toks = toks[:n-1]
			} else {
				quoted[len(toks)] = true
				toks = append(toks, s)
			}
			i = j + 1
		default:
			j := i
			for j < len(text) && !unicode.IsSpace(rune(text[j])) && !strings.ContainsRune("{};", rune(text[j])) {
				j++
			}
			toks = append(toks, text[i:j])
			i = j
		}
	}
	pos := 0
	var block func() []*stmt
	block = func() []*stmt {
		var out []*stmt
		for pos < len(toks) && toks[pos] != "}" {
			s := &stmt{kw: toks[pos]}
			pos++
			if pos < len(toks) && toks[pos] != ";" && toks[pos] != "{" {
				s.arg = toks[pos]
				pos++
			}
			if pos < len(toks) && toks[pos] == "{" {
				pos++
				s.sub = block()
			}
			pos++ // ";" or "}"
			out = append(out, s)
		}
		return out
	}
	return &stmt{sub: block()}
}

// leafType is what a leaf's type says, flattened.
type leafType struct {
	base, rng, length, ref string
	enum, patterns, or     []string
	mandatory              bool
}

func typeOf(t *testing.T, ty *stmt, typedefs map[string]*stmt, lt *leafType) {
	t.Helper()
	name := ty.arg
	if i := strings.IndexByte(name, ':'); i >= 0 {
		name = name[i+1:]
	}
	if td, ok := typedefs[name]; ok {
		typeOf(t, td.find("type", ""), typedefs, lt)
		return
	}
	switch name {
	case "union":
		for _, m := range ty.all("type") {
			var u leafType
			typeOf(t, m, typedefs, &u)
			if u.ref != "" {
				lt.ref, lt.base = u.ref, "string"
				continue
			}
			lt.or = append(lt.or, u.patterns...)
		}
		return
	case "leafref":
		p := strings.Split(ty.find("path", "").arg, "/")
		tbl := p[len(p)-3]
		if i := strings.IndexByte(tbl, ':'); i >= 0 {
			tbl = tbl[i+1:]
		}
		lt.ref, lt.base = tbl, "string"
		return
	}
	lt.base = name
	if r := ty.find("range", ""); r != nil {
		lt.rng = r.arg
	}
	if l := ty.find("length", ""); l != nil {
		lt.length = l.arg
	}
	for _, e := range ty.all("enum") {
		lt.enum = append(lt.enum, e.arg)
	}
	for _, p := range ty.all("pattern") {
		lt.patterns = append(lt.patterns, p.arg)
	}
}

// TestConstraintsMatchModels reads the YANG models (testdata/yang, copied
// from sonic-buildimage with their source URL) and checks every row of the
// table against the leaf it names: type, range, length, enums, pattern,
// leafref target, union literals, mandatory.
func TestConstraintsMatchModels(t *testing.T) {
	models := map[string]*stmt{}
	typedefs := map[string]*stmt{}
	files, _ := filepath.Glob("testdata/yang/*.yang")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		root := parseYANG(t, string(data))
		if m := root.find("module", ""); m != nil {
			models[filepath.Base(f)] = m
			continue
		}
		for _, td := range root.all("typedef") {
			typedefs[td.arg] = td
		}
	}
	if _, ok := typedefs["tc_type"]; !ok {
		t.Fatal("no tc_type typedef")
	}
	for _, c := range Constraints() {
		m, ok := models[c.Model]
		if !ok {
			t.Errorf("%s: no model %s in testdata/yang", c.Source(), c.Model)
			continue
		}
		var top *stmt
		for _, s := range m.all("container") {
			if strings.HasPrefix(s.arg, "sonic-") {
				top = s
			}
		}
		node := top
		steps := strings.Split(c.Node, "/")
		for i, step := range steps {
			var next *stmt
			for _, kw := range []string{"container", "list", "leaf"} {
				if i == len(steps)-1 && kw != "leaf" {
					continue
				}
				if next = node.find(kw, step); next != nil {
					break
				}
			}
			if next == nil {
				t.Fatalf("%s: no %s", c.Source(), step)
			}
			node = next
		}
		var lt leafType
		typeOf(t, node.find("type", ""), typedefs, &lt)
		lt.mandatory = node.find("mandatory", "true") != nil
		if lt.base != c.Type || lt.rng != c.Range || lt.length != c.Length || lt.ref != c.Ref || lt.mandatory != c.Mandatory ||
			!reflect.DeepEqual(lt.enum, nilIfEmpty(c.Enum)) || !reflect.DeepEqual(lt.or, nilIfEmpty(c.Or)) {
			t.Errorf("%s: the model says %+v; the table %+v", c.Source(), lt, c)
		}
		wantPat := nilIfEmpty(nil)
		if c.Pattern != "" && len(c.Or) == 0 {
			wantPat = []string{c.Pattern}
		}
		if len(c.Or) == 0 && !reflect.DeepEqual(lt.patterns, wantPat) {
			t.Errorf("%s: patterns %q, table %q", c.Source(), lt.patterns, c.Pattern)
		}
	}
	// Every must rule names a node of its model.
	for _, r := range mustRules {
		if _, ok := models[r.Model]; !ok {
			t.Errorf("must rule %s: no model", r.Model)
		}
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func TestCheckYANG(t *testing.T) {
	db := Rows{
		"PORT":           {"Ethernet0": {"speed": "100000", "mtu": "9100"}, "Ethernet4": {"mtu": "9300"}},
		"CABLE_LENGTH":   {"AZURE": {"Ethernet0": "2.5m", "Ethernet8": "5m"}},
		"BUFFER_PROFILE": {"p": {"pool": "ingress_lossless_pool", "size": "1024", "dynamic_th": "9"}},
		"BUFFER_PG":      {"Ethernet0|3-4": {"profile": "p"}, "Ethernet0|9": {"profile": "NULL"}},
		"PFC_WD":         {"GLOBAL": {"POLL_INTERVAL": "200"}, "Ethernet0": {"action": "drop", "detection_time": "1", "restoration_time": "150"}},
		"WRED_PROFILE":   {"ROCE": {"green_min_threshold": "200", "green_max_threshold": "100", "ecn": "ecn_everything"}},
		"QUEUE":          {"Ethernet0|3": {"scheduler": "nope"}},
	}
	var got []string
	for _, v := range CheckYANG(db) {
		got = append(got, v.Table+"|"+v.Key+" "+v.Field+": "+v.Msg)
	}
	want := []string{
		"BUFFER_PG|Ethernet0|9 : expected a value matching \"[0-7]((-)[0-7])?\"",
		"BUFFER_PROFILE|p dynamic_th: expected -8..7",
		"BUFFER_PROFILE|p pool: expected a key of BUFFER_POOL in the same config (leafref)",
		"CABLE_LENGTH|AZURE Ethernet0: expected a value matching \"[0-9]+m\"",
		"CABLE_LENGTH|AZURE Ethernet8: expected a key of PORT in the same config (leafref)",
		"PFC_WD|Ethernet0 detection_time: expected 100..5000",
		"PFC_WD|Ethernet0 detection_time: must be at least GLOBAL's POLL_INTERVAL 200",
		"PFC_WD|Ethernet0 restoration_time: must be at least GLOBAL's POLL_INTERVAL 200",
		"PORT|Ethernet4 mtu: expected 68..9216",
		"PORT|Ethernet4 speed: mandatory, missing",
		"QUEUE|Ethernet0|3 scheduler: expected a key of SCHEDULER in the same config (leafref)",
		"WRED_PROFILE|ROCE ecn: expected one of ecn_none, ecn_green, ecn_yellow, ecn_red, ecn_green_yellow, ecn_green_red, ecn_yellow_red, ecn_all",
		"WRED_PROFILE|ROCE green_max_threshold: max threshold must be greater than or equal to min threshold",
	}
	sort.Strings(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if v := CheckYANG(Rows{"PORT": {"Ethernet0": {"speed": "100000"}}, "PFC_WD": {"Ethernet0": {"detection_time": "200", "restoration_time": "200", "action": "drop"}}}); len(v) != 0 {
		t.Errorf("a legal config refused: %v", v)
	}
}
