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
