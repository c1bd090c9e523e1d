package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A perftest run pasted a second time (into a summary, a ticket) is the
// same run: the client's own output, which names its host, is kept and
// the copy changes no finding.
func TestPerftestRunOnce(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/perftest/ib-write-bw-roce-gid3-duration-no-peak-perftest234.txt")
	if err != nil {
		t.Fatal(err)
	}
	run := string(data)[strings.Index(string(data), "-----"):]
	dir := t.TempDir()
	own := filepath.Join(dir, "h0-ib_write_bw.txt")
	copied := filepath.Join(dir, "summary.txt")
	os.WriteFile(own, []byte("[root@h0 ~]# ib_write_bw -D 10 -d mlx5_0 10.255.255.4\n"+run), 0o644)
	os.WriteFile(copied, []byte("the run, as pasted:\n"+run), 0o644)
	titles := func(paths ...string) string {
		var b strings.Builder
		for _, f := range Diagnose(paths, nil, Options{}).Findings {
			if f.ID != "input.unrecognized" {
				b.WriteString(f.ID + ": " + f.Title + "\n")
			}
		}
		return b.String()
	}
	alone, both := titles(own), titles(own, copied)
	if alone == "" || both != alone {
		t.Errorf("with the copy:\n%s\nalone:\n%s", both, alone)
	}
	if !strings.Contains(alone, "h0") {
		t.Errorf("the kept run does not name its host:\n%s", alone)
	}
}
