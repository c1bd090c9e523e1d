package lint

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A table pasted as `sonic-cfggen -d --var-json TABLE` prints it is read
// as that table (the renderer's real qos-dell6100.json rows: pfc_enable
// 3,4, their maps named but not given); the rows cut from the command line
// are refused at the first row, with the shape lint expected, rather than
// read as tables named after ports.
func TestLintVarJSON(t *testing.T) {
	const file = "../sonic/testdata/public/bi-dell6100-var-json-port-qos-map.txt"
	rep := lintFiles(t, file)
	if got := ids(rep); len(got) != 1 || !hasID(rep, "config.not_judged") {
		t.Errorf("findings %v, want config.not_judged alone (the AZURE maps it names)", got)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rows := data[bytes.IndexByte(data, '\n')+1 : bytes.LastIndex(data, []byte("admin@"))]
	p := filepath.Join(t.TempDir(), "rows.json")
	if err := os.WriteFile(p, rows, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Lint([]string{p}, nil)
	if err == nil || !strings.Contains(err.Error(), `rows.json:2:5: "global": expected CONFIG_DB tables`) || !strings.Contains(err.Error(), "--var-json TABLE") {
		t.Errorf("rows without their table: %v", err)
	}
}

// A pfc_enable written as a range (an edit of a real config_db,
// sonic-utilities' multi-ASIC mock asic0) is judged as orchagent reads it, priority
// 3 alone, and named with the comma list it most likely means.
func TestLintPFCEnableFormat(t *testing.T) {
	const file = "testdata/util-mock-asic0-config_db.json"
	if hasID(lintFiles(t, file), "config.pfc_enable.format") {
		t.Fatalf("%s: config.pfc_enable.format on \"3,4\"", file)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.ReplaceAll(string(data), `"pfc_enable": "3,4"`, `"pfc_enable": "3-4"`)
	if edited == string(data) {
		t.Fatal("no pfc_enable 3,4 to edit")
	}
	p := filepath.Join(t.TempDir(), "edited-synthetic.json")
	if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range lintFiles(t, p).Findings {
		if f.ID == "config.pfc_enable.format" {
			if !strings.Contains(f.Title, `pfc_enable "3-4"`) || !strings.Contains(f.Title, "priority 3 alone") || !strings.Contains(f.Fix, `"pfc_enable": "3,4"`) {
				t.Errorf("title %q fix %q", f.Title, f.Fix)
			}
			return
		}
	}
	t.Error("no config.pfc_enable.format on \"3-4\"")
}

// A port counters dump (`show interfaces counters -j`, synthetic values in
// portstat's JSON shape) is refused as no config_db, with or without its
// command line above it: it is no table's rows cut from their command, and
// telling to paste the command line that is there would mislead.
func TestLintCountersJSONNotFieldsOnly(t *testing.T) {
	const rows = `{
    "Ethernet0": {
        "STATE": "U",
        "RX_OK": "1,234",
        "RX_ERR": "0",
        "TX_OK": "5,678"
    }
}
`
	for name, text := range map[string]string{
		"counters-j-prompt-synthetic.json": "admin@sonic:~$ show interfaces counters -j\n" + rows,
		"counters-j-synthetic.json":        rows,
	} {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Lint([]string{p}, nil)
		if err == nil || strings.Contains(err.Error(), "paste the command line") || !strings.Contains(err.Error(), "this JSON is not a config_db") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
