package doctor

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The corpus pcap directory holds four captures and a provenance note
// (*.pcap.source) for each: the notes are listed as unknown inputs and
// reported once, at info level.
func TestDirectoryUnknownFiles(t *testing.T) {
	dir := nicTestdata("corpus/pcap")
	rep := Diagnose([]string{dir}, nil, Options{})
	unknown := 0
	for _, in := range rep.Inputs {
		if in.InDir != dir {
			t.Errorf("input %s: in_dir %q", in.Path, in.InDir)
		}
		if in.Type == "unknown" {
			unknown++
			if !strings.HasSuffix(in.Path, ".pcap.source") || in.Error != "" {
				t.Errorf("unknown input %+v", in)
			}
		}
	}
	if unknown != 4 {
		t.Errorf("%d unknown inputs, want 4", unknown)
	}
	var un []Finding
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.ID, "input.") {
			un = append(un, f)
		}
	}
	if len(un) != 1 || un[0].ID != "input.unrecognized" || un[0].Severity != Info || len(un[0].Evidence) != 4 ||
		!strings.Contains(un[0].Title, "4 files found in directories not recognised and skipped") {
		t.Fatalf("input findings %+v", un)
	}
	if rep.ExitCode() != 0 {
		t.Errorf("exit %d, want 0", rep.ExitCode())
	}
}

func TestNamedUnknownFileWarns(t *testing.T) {
	dir := t.TempDir()
	readme := filepath.Join(dir, "README")
	if err := os.WriteFile(readme, []byte("notes about the incident\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	png := filepath.Join(dir, "screenshot.png")
	if err := os.WriteFile(png, []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Named explicitly: a warning each; nothing usable: exit 2.
	rep := Diagnose([]string{readme, png}, nil, Options{})
	n := 0
	for _, f := range rep.Findings {
		if f.ID == "input.unrecognized" && f.Severity == Warn {
			n++
		}
	}
	if n != 2 || rep.ExitCode() != 2 {
		t.Errorf("%d warnings, exit %d; findings %v", n, rep.ExitCode(), ids(rep.Findings))
	}
	if f := find(rep.Findings, "input.unrecognized"); f == nil || !strings.Contains(findingText(rep, "screenshot.png"), "binary data") {
		t.Errorf("binary file not explained: %+v", rep.Findings)
	}
	// Found in a directory: one info finding; still nothing usable: exit 2.
	rep = Diagnose([]string{dir}, nil, Options{})
	if len(rep.Findings) != 1 || rep.Findings[0].Severity != Info || rep.ExitCode() != 2 {
		t.Errorf("findings %v, exit %d", ids(rep.Findings), rep.ExitCode())
	}
	// An unreadable path stays a warning.
	rep = Diagnose([]string{filepath.Join(dir, "missing.txt"), readme}, nil, Options{})
	if f := find(rep.Findings, "input.unreadable"); f == nil || f.Severity != Warn {
		t.Errorf("findings %v", ids(rep.Findings))
	}
}

// findingText returns the evidence text of the finding citing file.
func findingText(rep *Report, file string) string {
	for _, f := range rep.Findings {
		for _, e := range f.Evidence {
			if strings.HasSuffix(e.File, file) {
				return e.Text
			}
		}
	}
	return ""
}

// FuzzLintConfig: the configuration sniff never panics, and what it
// names begins as that configuration does: a CONFIG_DB a quoted key
// followed by a colon, an NVUE tree a set or qos key, nv set commands the
// command.
func FuzzLintConfig(f *testing.F) {
	for _, s := range []string{"{\"PORT\": {", "\"BUFFER_PG\":{", "{\"localhost\":{\"PORT\":{}}}", "\"A\":", "{\"\"", "\ufeff{ \"X1_Y\" :\n{",
		"- header:\n    rev-id: 1.0\n- set:\n    qos:\n", "nvue-api-version: nvue_v1\n  qos:\n", "cumulus@switch:~$ nv set qos pfc default-global switch-priority 2\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		got := lintConfig(head)
		var ok bool
		switch {
		case got == "":
			ok = true
		case strings.HasPrefix(got, "a SONiC CONFIG_DB"):
			ok = bytes.Contains(head, []byte("\":")) || bytes.Contains(head, []byte("\" ")) || bytes.Contains(head, []byte("\"\t")) || bytes.Contains(head, []byte("\"\n")) || bytes.Contains(head, []byte("\"\r"))
		case strings.Contains(got, "nv set"):
			ok = bytes.Contains(head, []byte("nv set ")) || bytes.Contains(head, []byte("nv unset "))
		default:
			ok = bytes.Contains(head, []byte("set:")) || bytes.Contains(head, []byte("qos:"))
		}
		if !ok {
			t.Errorf("lintConfig(%q) = %q", head, got)
		}
	})
}

// A row with two cells that do not read is one line of the input: cited
// once and counted once, each cell's column in the title. SYNTHETIC rows
// in nvidia-smi topo -m's layout.
func TestGarbledRowCitedOnce(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"\tGPU0\tGPU1\tGPU2\tGPU3\tNIC0\tNIC1\tNIC2\tNIC3\tCPU Affinity\tNUMA Affinity",
		"GPU0\t X \tNV12\tNV12\tNV12\tPXB\tFOO\tSYS\tBAR\t0-31\t0",
		"GPU1\tNV12\t X \tNV12\tNV12\tPXB\tPXB\tSYS\tSYS\t0-31\t0")
	f := nicMustFind(t, fs, "input.garbled", Warn, "1 line of nvidia-smi topo -m could not be read", ":3:", "\"FOO", "\"BAR")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 3 {
		t.Errorf("evidence %v", f.Evidence)
	}
}

// A SONiC CONFIG_DB given to diagnose (sonic-mgmt#7016's BUFFER_PROFILE
// fragment) is said to be a configuration for lint, in the finding and
// in the exit-2 message; before, it was "in no format rocelab
// recognises". Other JSON keeps the plain message.
func TestConfigDBPointsToLint(t *testing.T) {
	f := nicTestdata("corpus/sonic/sonic-configdb-fragment-buffer-profile-only-t1-sonicmgmt7016.json")
	rep := Diagnose([]string{f}, nil, Options{})
	g := nicMustFind(t, rep.Findings, "input.unrecognized", Warn, "is a SONiC CONFIG_DB (BUFFER_PROFILE): a configuration, which rocelab lint judges")
	if g.Fix == "" || !strings.HasPrefix(g.Fix, "rocelab lint "+f) {
		t.Errorf("fix %q", g.Fix)
	}
	if why := rep.Unusable(); !strings.Contains(why, "use rocelab lint "+f) || rep.ExitCode() != 2 {
		t.Errorf("exit %d: %s", rep.ExitCode(), why)
	}
	for head, want := range map[string]string{
		"{\n  \"localhost\": {\n": "a SONiC CONFIG_DB (localhost)",
		"\"BUFFER_PG\": {":        "a SONiC CONFIG_DB (BUFFER_PG)",
		"{\"README\": [":          "",
		"{\n \"helper_data\": {":  "",
		"{\"version\":1,":         "",
		"\"PORT\":":               "",
	} {
		if got := lintConfig([]byte(head)); got != want {
			t.Errorf("lintConfig(%q) = %q, want %q", head, got, want)
		}
	}
}

// A CONFIG_DB longer than the reader's buffer (arista7060x6's QoS
// config, 132 KiB) is named as a configuration too: the sniffers read
// the input's head after the input was read through, and were once given
// what the buffer then held, a later part of the file ("in no format
// rocelab recognises").
func TestLongConfigDBPointsToLint(t *testing.T) {
	f := nicTestdata("corpus/sonic-stock/qos-arista7060x6.json")
	if st, err := os.Stat(f); err != nil || st.Size() <= 64<<10 {
		t.Fatalf("%s: want a file past 64 KiB (%v)", f, err)
	}
	rep := Diagnose([]string{f}, nil, Options{})
	nicMustFind(t, rep.Findings, "input.unrecognized", Warn, "is a SONiC CONFIG_DB (TC_TO_PRIORITY_GROUP_MAP): a configuration, which rocelab lint judges")
}

// A Cumulus NVUE configuration given to diagnose, its tree (the NVIDIA Air
// workshop's applied qos section) or nv set commands (the 5.15 guide's
// RoCE change), is named as a configuration for lint the same way; `nv
// show qos roce`, which diagnose reads, is not.
func TestNVUEConfigPointsToLint(t *testing.T) {
	for file, want := range map[string]string{
		"cl551-air-workshop-applied-qos.yaml": "is a Cumulus NVUE configuration (nv config show -o yaml, startup.yaml): a configuration, which rocelab lint judges",
		"cl515-nv-set-roce-sp2.txt":           "is a Cumulus NVUE configuration (nv set commands): a configuration, which rocelab lint judges",
	} {
		f := filepath.Join("..", "lint", "testdata", file)
		rep := Diagnose([]string{f}, nil, Options{})
		g := nicMustFind(t, rep.Findings, "input.unrecognized", Warn, want)
		if !strings.HasPrefix(g.Fix, "rocelab lint "+f) {
			t.Errorf("%s: fix %q", file, g.Fix)
		}
		if why := rep.Unusable(); !strings.Contains(why, "use rocelab lint "+f) || rep.ExitCode() != 2 {
			t.Errorf("%s: exit %d: %s", file, rep.ExitCode(), why)
		}
	}
	rep := Diagnose([]string{filepath.Join("..", "lint", "testdata", "cl515-nv-show-qos-roce-single-ipool.txt")}, nil, Options{})
	nicMustNot(t, rep.Findings, "input.unrecognized")
}
