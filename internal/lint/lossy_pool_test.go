package lint

import (
	"os"
	"strings"
	"testing"
)

// A lossy SKU's RoCE queue that marks only above the pool it draws on
// never marks: the pool bounds the queue, whatever the ASIC's whole
// buffer (SN5640 C448O16: 136 MB threshold, 108 MB egress_lossy_pool). It
// was judged against a fixed 64 MiB "switch's buffer", below Spectrum-4's
// and Tomahawk 5's, and its thresholds were judged again as
// switch.ecn.thresholds; a pool larger than the threshold lets it mark.
func TestLossyECNJudgedAgainstQueuePool(t *testing.T) {
	const file = "testdata/bi-sn5640-c448o16-qos-buffers-render-t0.json"
	rep := lintFiles(t, file)
	if len(rep.Findings) != 1 || rep.Findings[0].ID != "qos.lossy.by_design" {
		t.Fatalf("findings %v, want qos.lossy.by_design alone", ids(rep))
	}
	if want := "beyond the 108270592 bytes of egress_lossy_pool, the pool queue 4 draws on (BUFFER_QUEUE profile queue4_downlink_lossy_profile): in practice never"; !strings.Contains(rep.Findings[0].Title, want) {
		t.Errorf("title %q lacks %q", rep.Findings[0].Title, want)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), `"size": "108270592",
            "type": "egress"`, `"size": "216541184",
            "type": "egress"`, 1)
	if text == string(data) {
		t.Fatal("egress_lossy_pool's size not found")
	}
	rep = lintFiles(t, tempFile(t, "config_db.json", text))
	var title string
	for _, f := range rep.Findings {
		if f.ID == "qos.lossy.by_design" {
			title = f.Title
		}
	}
	if !strings.Contains(title, "marks ECN from 136200192 to 136200192 bytes") {
		t.Errorf("with a 216 MB pool: %q, want the queue judged as marking", title)
	}
}
