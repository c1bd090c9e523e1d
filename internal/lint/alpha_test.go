package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

// TestLintLosslessDynamicTh: sonic-utilities' SN3800 config_db (lossless
// profiles at dynamic_th 0, NVIDIA's stock, pool 24219648 B) gives no
// pfc.pg.dynamic_th; each edit moves one lossless profile's dynamic_th and
// must name it: -8 (α 0 on Spectrum, 1/256 with the platform and hwsku
// edited to a Broadcom one, the pool's share 24219648/257 B) and -7 pause
// at light load, 3 (8/9 of the pool) and 7 let one group take the pool, 9
// is outside YANG's -8..7, and 1.5 is not an integer (before, it was
// dropped silently). -6 and 1, the ends of SONiC's stock lossless range,
// stay silent, as does the same 7 on a Tofino platform, whose stock
// profiles run it. The lossy
// egress_lossy_profile at 7 (a queue profile, no xoff) is not judged.
// Before, lint read no dynamic_th at all.
func TestLintLosslessDynamicTh(t *testing.T) {
	orig, err := os.ReadFile("testdata/util-dbmig-sn3800-c64-t1-v3_0_3.json")
	if err != nil {
		t.Fatal(err)
	}
	row := "\"BUFFER_PROFILE|pg_lossless_100000_40m_profile\": {\n        \"dynamic_th\": \"0\","
	write := func(th string, edits ...string) string {
		s := strings.Replace(string(orig), row, strings.Replace(row, "\"0\"", "\""+th+"\"", 1), 1)
		for i := 0; i+1 < len(edits); i += 2 {
			s = strings.Replace(s, edits[i], edits[i+1], 1)
		}
		if s == string(orig) {
			t.Fatal("the profile row is not in the file")
		}
		return tempFile(t, fmt.Sprintf("th%s-%d.json", th, len(edits)), s)
	}
	egressLossy := "\"BUFFER_PROFILE|egress_lossy_profile\": {\n        \"dynamic_th\": \"7\","
	if !strings.Contains(string(orig), egressLossy) {
		t.Fatal("egress_lossy_profile at 7 is not in the file")
	}
	cases := []struct {
		file string
		sev  doctor.Severity
		want string
	}{
		{"testdata/util-dbmig-sn3800-c64-t1-v3_0_3.json", 0, ""},
		{write("-6"), 0, ""},
		{write("1"), 0, ""},
		{write("7", "x86_64-mlnx_msn3800-r0", "x86_64-accton_as9516_32d-r0"), 0, ""},
		{write("-8"), doctor.Warn, "lossless dynamic_th -8 (α = 0 on NVIDIA Spectrum, whose SAI reads -8 and below so) lets the priority group hold none of the pool's free space"},
		{write("-7"), doctor.Warn, "lossless dynamic_th -7 (α = 1/128) lets the priority group hold 0.775 % of the pool's free space (187749B of ingress_lossless_pool's 23652KiB when it is empty)"},
		{write("3"), doctor.Warn, "lossless dynamic_th 3 (α = 8) lets one congested priority group hold 88.9 % of the pool's free space (21024KiB of"},
		{write("7"), doctor.Warn, "lossless dynamic_th 7 (α unbounded on NVIDIA Spectrum, whose SAI reads 7 and above so) lets one congested priority group hold all of the pool's free space"},
		{write("-7", "x86_64-mlnx_msn3800-r0", "x86_64-accton_as7712_32x-r0", "Mellanox-SN3800-C64", "Accton-AS7712-32X"), doctor.Warn, "lossless dynamic_th -7 (α = 1/128)"},
		{write("-8", "x86_64-mlnx_msn3800-r0", "x86_64-accton_as7712_32x-r0", "Mellanox-SN3800-C64", "Accton-AS7712-32X"), doctor.Warn, "lossless dynamic_th -8 (α = 1/256) lets the priority group hold 0.389 % of the pool's free space (94239B of"},
		{write("9"), doctor.Error, "dynamic_th 9 is outside -8..7"},
		{write("1.5"), doctor.Error, "dynamic_th \"1.5\" is not an integer"},
	}
	for _, c := range cases {
		rep := lintFiles(t, c.file)
		var got []doctor.Finding
		for _, f := range rep.Findings {
			if f.ID == "pfc.pg.dynamic_th" {
				got = append(got, f)
			}
		}
		name := filepath.Base(c.file)
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("%s: %s, want no pfc.pg.dynamic_th", name, got[0].Title)
		case c.want != "" && len(got) != 1:
			t.Errorf("%s: %d pfc.pg.dynamic_th findings, want 1", name, len(got))
		case c.want != "":
			f := got[0]
			if f.Severity != c.sev || !strings.Contains(f.Title, c.want) || !strings.Contains(f.Title, "BUFFER_PROFILE|pg_lossless_100000_40m_profile") {
				t.Errorf("%s: %s %q, want %s naming %q", name, f.Severity, f.Title, c.sev, c.want)
			}
			if len(f.Evidence) != 1 || f.Evidence[0].Line != 413 {
				t.Errorf("%s: evidence %+v, want line 413", name, f.Evidence)
			}
		}
	}
}

// TestLintDefaultDynamicTh: the dynamic buffer model's
// DEFAULT_LOSSLESS_BUFFER_PARAMETER default_dynamic_th is the dynamic_th
// buffermgrd writes into every lossless profile it generates; -7 is
// judged there as in a profile (synthetic fragment), SONiC's 0 is not.
func TestLintDefaultDynamicTh(t *testing.T) {
	for th, want := range map[string]bool{"0": false, "-7": true} {
		frag := "{\n  \"DEFAULT_LOSSLESS_BUFFER_PARAMETER\": {\n    \"AZURE\": {\n      \"default_dynamic_th\": \"" + th + "\",\n      \"over_subscribe_ratio\": \"2\"\n    }\n  }\n}\n"
		rep := lintFiles(t, tempFile(t, "default"+th+".json", frag))
		found := false
		for _, f := range rep.Findings {
			if f.ID == "pfc.pg.dynamic_th" {
				found = true
				if !strings.Contains(f.Title, "DEFAULT_LOSSLESS_BUFFER_PARAMETER|AZURE") || f.Evidence[0].Line != 4 {
					t.Errorf("%s: %q at %+v", th, f.Title, f.Evidence)
				}
			}
		}
		if found != want {
			t.Errorf("default_dynamic_th %s: finding %v, want %v", th, found, want)
		}
	}
}

// A lossless profile at dynamic_th 7 in a fragment whose DEVICE_METADATA
// gives a Barefoot Tofino hwsku (montara, the Wedge 100BF-32X) and no
// platform is Tofino's stock value: no finding. Before, the hwsku counted
// as naming the switch, but only the platform was read for Tofino, so it
// warned. A Broadcom hwsku still warns.
func TestLintDynamicThTofinoHwsku(t *testing.T) {
	for hwsku, want := range map[string]string{"montara": "", "Arista-7170-64C": "", "Accton-AS7712-32X": "warn"} {
		frag := `{
  "DEVICE_METADATA": {
    "localhost": {
      "hwsku": "` + hwsku + `"
    }
  },
  "BUFFER_PROFILE": {
    "pg_lossless_100000_300m_profile": {
      "dynamic_th": "7",
      "pool": "ingress_lossless_pool",
      "size": "56368",
      "xoff": "55120",
      "xon": "18432"
    }
  }
}
`
		got := ""
		for _, f := range lintFiles(t, tempFile(t, hwsku+".json", frag)).Findings {
			if f.ID == "pfc.pg.dynamic_th" {
				got = f.Severity.String()
			}
		}
		if got != want {
			t.Errorf("hwsku %s: pfc.pg.dynamic_th %q, want %q (\"\" for none)", hwsku, got, want)
		}
	}
}

// A lossless profile with no dynamic_th field is not judged as if it had
// the default's value (or -1, BufferProfile's absent number): against an
// out-of-range default_dynamic_th of 9, only the default's row is named.
func TestLintDynamicThAbsentField(t *testing.T) {
	frag := `{
  "DEFAULT_LOSSLESS_BUFFER_PARAMETER": {
    "AZURE": {
      "default_dynamic_th": "9"
    }
  },
  "BUFFER_PROFILE": {
    "pg_lossless_100000_300m_profile": {
      "pool": "ingress_lossless_pool",
      "size": "56368",
      "xoff": "55120",
      "xon": "18432"
    }
  }
}
`
	var got []doctor.Finding
	for _, f := range lintFiles(t, tempFile(t, "absent.json", frag)).Findings {
		if f.ID == "pfc.pg.dynamic_th" {
			got = append(got, f)
		}
	}
	if len(got) != 1 || got[0].Severity != doctor.Error || !strings.Contains(got[0].Title, "DEFAULT_LOSSLESS_BUFFER_PARAMETER|AZURE: dynamic_th 9 is outside") || strings.Contains(got[0].Title, "BUFFER_PROFILE|") || len(got[0].Evidence) != 1 {
		t.Errorf("want one error naming the default's row alone, got %+v", got)
	}
}
