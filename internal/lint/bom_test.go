package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

// TestByteOrderMark: a file a Windows editor saved with a UTF-8 byte order
// mark (real configs with one prepended: a config_db, an EOS config, an
// NVUE YAML) is read as without it, with the same findings; a syntax error
// keeps its line:col on lines past the first.
func TestByteOrderMark(t *testing.T) {
	for _, file := range []string{"../../testdata/corpus/sonic/utilities-filter_fdb_input-config_db.json", "testdata/eos-ecn-only-synthetic.txt", "testdata/cl551-air-workshop-applied-qos.yaml"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		titles := func(text string) string {
			var out []string
			p := tempFile(t, filepath.Base(file), text)
			for _, f := range lintFiles(t, p).Findings {
				out = append(out, f.ID+" "+strings.ReplaceAll(f.Title, filepath.Dir(p), ""))
			}
			return strings.Join(out, "\n")
		}
		if plain, bom := titles(string(data)), titles("\ufeff"+string(data)); plain != bom {
			t.Errorf("%s with a BOM:\n%s\nwant\n%s", file, bom, plain)
		}
	}
	_, err := Lint([]string{tempFile(t, "config_db.json", "\ufeff{\n\"PORT\": x}")}, nil)
	if err == nil || !strings.Contains(err.Error(), "config_db.json:2:9: invalid JSON") {
		t.Errorf("syntax error after a BOM: %v", err)
	}
}

// TestUTF16Config: a config_db PowerShell wrote as UTF-16LE with a
// byte-order mark (a real config re-encoded) is linted as the UTF-8 file
// is; UTF-16 that stops being text is refused at its line:col.
func TestUTF16Config(t *testing.T) {
	file := "../../testdata/corpus/sonic/utilities-filter_fdb_input-config_db.json"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	le16 := func(s string) string {
		out := []byte{0xff, 0xfe}
		for _, u := range utf16.Encode([]rune(s)) {
			out = append(out, byte(u), byte(u>>8))
		}
		return string(out)
	}
	report := func(text string) string {
		p := tempFile(t, "config_db.json", text)
		var out []string
		for _, f := range lintFiles(t, p).Findings {
			out = append(out, f.ID+" "+strings.ReplaceAll(f.Title+" "+fmt.Sprint(f.Evidence), filepath.Dir(p), ""))
		}
		return strings.Join(out, "\n")
	}
	if rep := lintFiles(t, tempFile(t, "config_db.json", le16(string(data)))); len(rep.Inputs) != 1 || rep.Inputs[0].Encoding != "UTF-16LE" {
		t.Errorf("inputs %+v, want one decoded from UTF-16LE", rep.Inputs)
	}
	if plain, wide := report(string(data)), report(le16(string(data))); plain != wide || plain == "" {
		t.Errorf("UTF-16LE config_db:\n%s\nwant\n%s", wide, plain)
	}
	_, err = Lint([]string{tempFile(t, "config_db.json", le16("{\n\"PORT\": {}}")+"x")}, nil)
	if err == nil || !strings.Contains(err.Error(), "config_db.json:2:12: UTF-16LE text ends in half a character") {
		t.Errorf("odd byte: %v", err)
	}
}
