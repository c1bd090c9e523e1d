package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

// TestLintMellanoxStaticHeadroom: two real Spectrum-1 (SN2700) traditional
// buffer configs of sonic-utilities' migrator tests. The 1.0.4 one carries
// NVIDIA's table profile (100G/40m, xoff 38912 B): short of the IEEE
// budget the lua uses since sonic-swss #1930, but above what the ASIC's
// fixed 3.8 KiB peer response needs, so it is an info that says so (a
// warning before, on 25 of sonic-utilities' 48 Spectrum migrator configs).
// The 1.0.1 one has a flat 16384 B at every speed, short even of the fixed
// response: those stay warnings.
func TestLintMellanoxStaticHeadroom(t *testing.T) {
	for _, c := range []struct {
		file       string
		info, warn int
	}{
		{"util-dbmig-msn2700-t1-v1_0_4.json", 1, 0},
		{"util-dbmig-msn2700-t0-v1_0_1.json", 3, 4},
	} {
		rep, err := Lint([]string{filepath.Join("testdata", c.file)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var info, warn int
		for _, fd := range rep.Findings {
			if fd.ID != "pfc.headroom.short" {
				continue
			}
			switch fd.Severity {
			case doctor.Info:
				info++
				if !strings.Contains(fd.Title, "fixed 3.8 KiB peer response") || !strings.Contains(fd.Title, "MELLANOX-SPECTRUM") {
					t.Errorf("%s: info without the fixed response: %s", c.file, fd.Title)
				}
			case doctor.Warn:
				warn++
			}
		}
		if info != c.info || warn != c.warn {
			t.Errorf("%s: %d info and %d warn pfc.headroom.short, want %d and %d", c.file, info, warn, c.info, c.warn)
		}
	}
}

// TestLintMMUConfig: `mmuconfig -l` (sonic-utilities' expected output)
// lists a lossless profile (headroom_profile, xoff 32768) but not the
// ports that use it. Lint says the headroom went unchecked and where the
// profile is, instead of 'No findings'; with xoff taken out nothing is
// lossless and nothing is said; named as buffermgrd names profiles
// (pg_lossless_100000_5m_profile), it is judged by its name instead
// (switch.headroom.short: 32768 B is below the 36864 B floor at 100G, 5 m).
func TestLintMMUConfig(t *testing.T) {
	file := filepath.Join("testdata", "util-mmuconfig-l.txt")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lossy := filepath.Join(t.TempDir(), "mmu.txt")
	if err := os.WriteFile(lossy, []byte(strings.Replace(string(data), "xoff        32768\n", "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(t.TempDir(), "mmu-named.txt")
	if err := os.WriteFile(named, []byte(strings.Replace(string(data), "Profile: headroom_profile", "Profile: pg_lossless_100000_5m_profile", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file  string
		want  int
		other string
	}{{file, 1, ""}, {lossy, 0, ""}, {named, 0, "switch.headroom.short"}} {
		rep, err := Lint([]string{c.file}, nil)
		if err != nil {
			t.Fatal(err)
		}
		n, other := 0, ""
		for _, fd := range rep.Findings {
			if fd.ID != "config.buffers.unmapped" {
				other += fd.ID
				continue
			}
			n++
			if !strings.Contains(fd.Title, "(headroom_profile)") || len(fd.Evidence) == 0 || fd.Evidence[0].Line != 54 {
				t.Errorf("%s: %s, evidence %v", c.file, fd.Title, fd.Evidence)
			}
		}
		if n != c.want || other != c.other {
			t.Errorf("%s: %d config.buffers.unmapped and %q, want %d and %q", c.file, n, other, c.want, c.other)
		}
	}
}

// A config_db fragment of BUFFER_PROFILE alone (sonic-mgmt#7016) has no
// BUFFER_PG to give its profiles' ports; buffermgrd's names give their
// speed and cable, and the profiles are judged by them as the doctor
// judges `mmuconfig -l`: the 100G 40 m profile's xoff 35840 B holds the
// static tables' floor (20 KiB) but not the IEEE budget's (41 KiB), an
// info; the 25G ones hold. Before, lint said the profiles went unchecked.
func TestLintBufferProfilesByName(t *testing.T) {
	f := filepath.Join("..", "..", "testdata", "corpus", "sonic", "sonic-configdb-fragment-buffer-profile-only-t1-sonicmgmt7016.json")
	rep, err := Lint([]string{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var short []doctor.Finding
	for _, fd := range rep.Findings {
		switch fd.ID {
		case "pfc.headroom.short":
			short = append(short, fd)
		case "config.qos.absent":
			if !strings.Contains(fd.Title, "only the headroom of the 3 lossless profiles named by speed and cable") {
				t.Errorf("config.qos.absent: %s", fd.Title)
			}
		}
	}
	if len(short) != 1 {
		t.Fatalf("%d pfc.headroom.short findings, want 1", len(short))
	}
	fd := short[0]
	if fd.Severity != doctor.Info || !strings.Contains(fd.Title, "pg_lossless_100000_40m_profile: xoff 35840 B covers the 20480 B") ||
		!strings.Contains(fd.Title, "not the 41984 B") || len(fd.Evidence) != 1 || fd.Evidence[0].Line != 35 {
		t.Errorf("%s %s %+v", fd.Severity, fd.Title, fd.Evidence)
	}
}

// A named profile that no BUFFER_PG row uses in a config that has the
// table is a leftover (the static buffer model keeps a speed's or cable's
// old profile after a change) and sets no port's headroom: it is not
// judged. Synthetic: sonic-mgmt#7016's 25G and 100G 40 m profiles, with
// one 25G port using the first.
func TestLintLeftoverProfileNotJudged(t *testing.T) {
	f := filepath.Join(t.TempDir(), "config_db.json")
	doc := `{"BUFFER_PROFILE": {
  "pg_lossless_25000_40m_profile": {"dynamic_th": "7", "pool": "ingress_lossless_pool", "size": "39936", "xoff": "21504", "xon": "18432"},
  "pg_lossless_100000_40m_profile": {"dynamic_th": "7", "pool": "ingress_lossless_pool", "size": "54272", "xoff": "35840", "xon": "18432"}},
 "BUFFER_PG": {"Ethernet0|3-4": {"profile": "pg_lossless_25000_40m_profile"}},
 "PORT": {"Ethernet0": {"speed": "25000", "mtu": "9100"}},
 "CABLE_LENGTH": {"AZURE": {"Ethernet0": "40m"}}}
`
	if err := os.WriteFile(f, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Lint([]string{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range rep.Findings {
		if fd.ID == "pfc.headroom.short" && strings.Contains(fd.Title, "pg_lossless_100000_40m_profile") {
			t.Errorf("a profile no port uses was judged: %s", fd.Title)
		}
	}
}
