package lint

import (
	"fmt"
	"sort"
	"strings"

	"rocelab/internal/scenario"
	"rocelab/internal/sonic"
)

// Where a finding's evidence comes from: a line of the cluster
// description (or the default it leaves), or a config_db value; and the
// evidence list a finding carries.

// at returns the evidence for a description key path: its line, or a note
// that the default applies.
func (m *Model) at(path, def string) Evidence {
	if m.Desc == nil {
		return Evidence{}
	}
	p, ok := m.Desc.Where[path]
	if !ok {
		// A mapping (topology.host_link): its first key given.
		for k, q := range m.Desc.Where {
			if strings.HasPrefix(k, path+".") && (!ok || q.Line < p.Line) {
				p, ok = q, true
			}
		}
	}
	if ok && p.Line > 0 && p.Line <= len(m.descLines) {
		return Evidence{File: m.Desc.File, Line: p.Line, Text: strings.TrimSpace(m.descLines[p.Line-1])}
	}
	return Evidence{File: m.Desc.File, Text: fmt.Sprintf("%s not given: %s", path, def)}
}

// lineEv is the evidence for line n of the description.
func (m *Model) lineEv(n int) Evidence {
	if n < 1 || n > len(m.descLines) {
		return Evidence{File: m.Desc.File}
	}
	return Evidence{File: m.Desc.File, Line: n, Text: strings.TrimSpace(m.descLines[n-1])}
}

// setting returns the description's setting named name (host.firmware,
// host.dcqcn), with the evidence of its line.
func (m *Model) descSetting(list []scenario.Setting, names ...string) (scenario.Setting, Evidence, bool) {
	for _, x := range list {
		for _, n := range names {
			if x.Name == n {
				return x, m.lineEv(x.Line), true
			}
		}
	}
	return scenario.Setting{}, Evidence{}, false
}

// given reports whether the description sets path.
func (m *Model) given(path string) bool {
	if m.Desc == nil {
		return false
	}
	_, ok := m.Desc.Where[path]
	return ok
}

// sonicEv returns the evidence for a config_db value.
func sonicEv(db *sonic.ConfigDB, v sonic.Value) Evidence {
	if v.Line == 0 && isNOS(db) {
		return Evidence{} // the NOS's default: no line says it
	}
	if v.Line == 0 {
		return Evidence{File: db.Source()}
	}
	return Evidence{File: db.Source(), Line: v.Line, Text: db.LineText(v.Line)}
}

// evs drops empty evidence and keeps input order.
func evs(in ...Evidence) []Evidence {
	var out []Evidence
	seen := map[Evidence]bool{}
	for _, e := range in {
		if e.File == "" || seen[e] {
			continue
		}
		seen[e] = true
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return false
		}
		return out[i].Line < out[j].Line
	})
	return out
}
