package lint

import (
	"strings"
	"testing"
)

// TestLintHeadroomNamedCable: the stock Z9264f config_db has BUFFER_PG
// rows on pg_lossless_100000_40m_profile and no CABLE_LENGTH. With that
// profile's xoff cut to 10000 B, pfc.headroom.short judges the 64 100G
// ports at the 40 m the name records, quoting the BUFFER_PG row that names
// it; a CABLE_LENGTH entry is used instead when there is one, a malformed
// one ("300 m", which buffermgrd matches to no profile) stops the name
// standing in for it, and a
// profile whose name is not buffermgrd's, or is for another speed, is not
// judged without a cable length.
func TestLintHeadroomNamedCable(t *testing.T) {
	const prof = "pg_lossless_100000_40m_profile"
	short := func(rename string, cable string) func(db map[string]map[string]any) {
		return func(db map[string]map[string]any) {
			p := db["BUFFER_PROFILE"][prof].(map[string]any)
			p["xoff"] = "10000"
			if rename != "" {
				delete(db["BUFFER_PROFILE"], prof)
				db["BUFFER_PROFILE"][rename] = p
				for _, row := range db["BUFFER_PG"] {
					if r := row.(map[string]any); r["profile"] == prof {
						r["profile"] = rename
					}
				}
			}
			if cable != "" {
				setCables(db, cable)
			}
		}
	}
	for _, c := range []struct {
		what           string
		edit           func(db map[string]map[string]any)
		want, evidence string // in the title and an evidence line; "" for no finding
	}{
		{"as copied", func(map[string]map[string]any) {}, "", ""},
		{"xoff cut", short("", ""), "xoff 10000 B is below the 41984 B", `"profile": "pg_lossless_100000_40m_profile"`},
		{"xoff cut, cables 300m", short("", "300m"), "for 100Gbps on 300m", `"Ethernet0": "300m"`},
		{"xoff cut, cables 300 m (malformed)", short("", "300 m"), "", ""},
		{"xoff cut, a name of the user's", short("roce_lossless", ""), "", ""},
		{"xoff cut, the name of another speed", short("pg_lossless_25000_40m_profile", ""), "", ""},
	} {
		var got []string
		var ev []string
		for _, fd := range lintFiles(t, editedDB(t, z9264f, c.edit)).Findings {
			if fd.ID == "pfc.headroom.short" {
				got = append(got, fd.Title)
				for _, e := range fd.Evidence {
					ev = append(ev, e.Text)
				}
			}
		}
		if c.want == "" && len(got) > 0 || c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want) || !strings.Contains(got[0], "(64 ports)")) {
			t.Errorf("%s: got %q, want %q", c.what, got, c.want)
		}
		if c.evidence != "" && !strings.Contains(strings.Join(ev, "\n"), c.evidence) {
			t.Errorf("%s: evidence %q, want %q", c.what, ev, c.evidence)
		}
	}
}

// TestLintHeadroomNamedMixed: with CABLE_LENGTH entries (40m) on half the
// Z9264f's ports and none on the other half, the ports whose cable comes
// from the profile's name are a finding of their own that says so; the
// ports with an entry are not told they have none.
func TestLintHeadroomNamedMixed(t *testing.T) {
	rep := lintFiles(t, editedDB(t, z9264f, func(db map[string]map[string]any) {
		db["BUFFER_PROFILE"]["pg_lossless_100000_40m_profile"].(map[string]any)["xoff"] = "10000"
		az := map[string]any{}
		for port := range db["PORT"] {
			if n := strings.TrimPrefix(port, "Ethernet"); len(n)%2 == 0 {
				az[port] = "40m"
			}
		}
		db["CABLE_LENGTH"] = map[string]any{"AZURE": az}
	}))
	var named, measured int
	for _, fd := range rep.Findings {
		if fd.ID != "pfc.headroom.short" {
			continue
		}
		if strings.Contains(fd.Mechanism, "no CABLE_LENGTH entry") {
			named++
		} else {
			measured++
		}
	}
	if named != 1 || measured != 1 {
		t.Errorf("findings: %d from the name, %d from CABLE_LENGTH, want 1 and 1", named, measured)
	}
}
