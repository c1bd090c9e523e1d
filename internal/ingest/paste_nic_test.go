package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// signature summarises what the NIC-side parsers found, for comparing a
// corpus file with mangled copies of it.
func nicSignature(res *Result) string {
	var parts []string
	for _, a := range res.Artifacts {
		s := string(a.Kind())
		switch x := a.(type) {
		case *EthtoolStats:
			for _, c := range x.Samples {
				s += fmt.Sprintf(" [%s %d delta=%v]", c.Device, c.After.Len(), c.IsDelta())
			}
		case *HWCounters:
			s += fmt.Sprintf(" %d", len(x.Samples))
		case *Perftest:
			for _, r := range x.Runs {
				s += fmt.Sprintf(" [%s mtu=%d gid=%d rows=%d fail=%d]", r.Test, r.MTU, r.GIDIndex, len(r.Rows), len(r.Failures))
			}
		case *ShowGIDs:
			s += fmt.Sprintf(" %d", len(x.Entries))
		case *Devinfo:
			s += fmt.Sprintf(" %d", len(x.GIDEntries()))
		case *MlnxQoS:
			for _, c := range x.Configs {
				s += fmt.Sprintf(" [%s %s %v %d]", c.Interface, c.Trust, c.PFCPrios(), len(c.TCs))
			}
		case *Dmesg:
			s += fmt.Sprintf(" %d/%d", len(x.PCIe), len(x.Links))
		default:
			continue
		}
		parts = append(parts, s)
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

func nicMangle(text string, f func(string) string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = f(l)
	}
	return strings.Join(lines, "\n")
}

// TestPasteTransformsKeepArtifacts reads every corpus copy as pasted
// through a mail client (CRLF, "> " quoting), a terminal (ANSI colour) and a
// chat tool (indentation lost), and expects the same artifacts.
func TestPasteTransformsKeepArtifacts(t *testing.T) {
	files, _ := filepath.Glob(nicCorpusPath("*/*.txt"))
	if len(files) < 8 {
		t.Fatalf("corpus copies missing: %v", files)
	}
	transforms := map[string]func(string) string{
		"crlf":     func(l string) string { return l + "\r" },
		"quoted":   func(l string) string { return "> " + l },
		"ansi":     func(l string) string { return "\x1b[32m" + l + "\x1b[0m" },
		"unindent": func(l string) string { return strings.TrimLeft(l, " \t") },
	}
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := nicSignature(nicReadText(t, path, string(b)))
		if want == "" {
			continue
		}
		for name, tr := range transforms {
			if got := nicSignature(nicReadText(t, path, nicMangle(string(b), tr))); got != want {
				t.Errorf("%s %s:\n got  %s\n want %s", filepath.Base(path), name, got, want)
			}
		}
	}
}

// TestTruncatedCorpus cuts every corpus copy at many points: parsers must
// not panic and must never report more than the whole file holds.
func TestTruncatedCorpus(t *testing.T) {
	files, _ := filepath.Glob(nicCorpusPath("*/*.txt"))
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		full := nicReadText(t, path, string(b))
		for cut := 0; cut < len(b); cut += 1 + len(b)/97 {
			part := nicReadText(t, path, string(b[:cut]))
			for _, a := range part.Artifacts {
				if a.Lines() > part.LineCount {
					t.Fatalf("%s cut at %d: %s claims %d of %d lines", path, cut, a.Kind(), a.Lines(), part.LineCount)
				}
			}
			if len(part.Artifacts) > len(full.Artifacts)+1 {
				t.Errorf("%s cut at %d: %v vs %v", path, cut, nicKinds(part), nicKinds(full))
			}
		}
	}
}
