package lint

import (
	"strings"
	"testing"
)

// TestLintSharedHeadroomPool: the stock Z9264f config_db's shared headroom
// pool (ingress_lossless_pool xoff 7847424 B) holds many groups' xoff
// (177632 B at most); cut to 100000 B it is smaller than one, and
// pfc.headroom.shared_pool quotes both. A pool that large enough for the
// profiles the BUFFER_PG rows name, without xoff, or an egress pool (SAI's
// xoff is an ingress pool's) gives nothing. The finding cites SAI's
// attributes and Spectrum's private headroom.
func TestLintSharedHeadroomPool(t *testing.T) {
	pool := func(xoff string, rowsOn string) func(db map[string]map[string]any) {
		return func(db map[string]map[string]any) {
			p := db["BUFFER_POOL"]["ingress_lossless_pool"].(map[string]any)
			if xoff == "" {
				delete(p, "xoff")
			} else {
				p["xoff"] = xoff
			}
			if rowsOn != "" {
				for _, row := range db["BUFFER_PG"] {
					if r := row.(map[string]any); strings.HasPrefix(r["profile"].(string), "pg_lossless_") {
						r["profile"] = rowsOn
					}
				}
			}
		}
	}
	for _, c := range []struct {
		what string
		edit func(db map[string]map[string]any)
		want string // in the title; "" for none
	}{
		{"as copied", pool("7847424", ""), ""},
		{"pool xoff 100000", pool("100000", ""), "(xoff 100000 B) is smaller than the headroom of one lossless priority group drawing on it (BUFFER_PROFILE pg_lossless_100000_40m_profile, xoff 177632 B)"},
		{"pool xoff 100000, the profile's xoff with spaces", func(db map[string]map[string]any) {
			pool(" 100000 ", "")(db)
			db["BUFFER_PROFILE"]["pg_lossless_100000_40m_profile"].(map[string]any)["xoff"] = " 177632"
		}, "(xoff 100000 B) is smaller than the headroom of one lossless priority group drawing on it (BUFFER_PROFILE pg_lossless_100000_40m_profile, xoff 177632 B)"},
		{"pool xoff 100000, rows on the 10G profile", pool("100000", "pg_lossless_10000_40m_profile"), ""},
		{"no shared headroom pool", pool("", ""), ""},
		{"pool xoff 100000 on an egress pool", func(db map[string]map[string]any) {
			pool("100000", "")(db)
			db["BUFFER_POOL"]["ingress_lossless_pool"].(map[string]any)["type"] = "egress"
		}, ""},
	} {
		var got []string
		for _, fd := range lintFiles(t, editedDB(t, z9264f, c.edit)).Findings {
			if fd.ID == "pfc.headroom.shared_pool" {
				got = append(got, fd.Title)
				if !strings.Contains(fd.Mechanism, "SAI_BUFFER_POOL_ATTR_XOFF_SIZE") || !strings.Contains(fd.Mechanism, "private headroom") || !strings.Contains(fd.Fix, "dynamic buffer model (Mellanox/Barefoot)") {
					t.Errorf("%s: mechanism or fix without SAI's attribute, Spectrum's private headroom or the dynamic model's platforms: %s / %s", c.what, fd.Mechanism, fd.Fix)
				}
				if len(fd.Evidence) != 2 {
					t.Errorf("%s: evidence %v, want the pool's xoff and the profile's", c.what, fd.Evidence)
				}
			}
		}
		if c.want == "" && len(got) > 0 || c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)) {
			t.Errorf("%s: got %q, want %q", c.what, got, c.want)
		}
	}
}
