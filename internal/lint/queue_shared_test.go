package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQueueShared: pfc.queue.shared names the classes in use that share
// RoCE's queue (one a DSCP maps to, or class 0, where unmapped code
// points land) and leaves out one no DSCP reaches (SYNTHETIC config_db of
// testdata/lint/sonic-ecn-kmin-above-xoff, its TC_TO_QUEUE_MAP moved).
func TestQueueShared(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(casesDir, "sonic-ecn-kmin-above-xoff", "fixed", "config_db-synthetic.json"))
	if err != nil {
		t.Fatal(err)
	}
	const identity = `"TC_TO_QUEUE_MAP": {
        "AZURE": {"0": "0", "1": "1", "2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "7"}`
	for _, c := range []struct{ entries, want string }{
		{`"0": "0", "1": "1", "2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "7"`, ""},
		{`"0": "0", "1": "1", "2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "3"`, ""},
		{`"0": "0", "1": "1", "2": "2", "3": "3", "4": "4", "5": "3", "6": "6", "7": "3"`, "which lossy class 5 share"},
		{`"0": "3", "1": "1", "2": "2", "3": "3", "4": "4", "5": "3", "6": "6", "7": "7"`, "which lossy classes 0,5 share"},
	} {
		text := string(data)
		if strings.Count(text, identity) != 1 {
			t.Fatal("the case changed: no identity TC_TO_QUEUE_MAP")
		}
		text = strings.Replace(text, identity, `"TC_TO_QUEUE_MAP": {
        "AZURE": {`+c.entries+`}`, 1)
		got := queueSharedTitles(t, text)
		if c.want == "" && len(got) > 0 || c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)) {
			t.Errorf("%s: got %q, want %q", c.entries, got, c.want)
		}
	}
}

// TestQueueSharedPFCApart: two ports with the same maps whose pfc_enable
// differs give a finding each, since one finds the class sharing RoCE's
// queue lossy and the other lossless (SYNTHETIC: the config_db of
// testdata/lint/sonic-ecn-kmin-above-xoff with class 5 moved to queue 3
// and Ethernet4's PFC on priorities 3 and 5).
func TestQueueSharedPFCApart(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(casesDir, "sonic-ecn-kmin-above-xoff", "fixed", "config_db-synthetic.json"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, r := range [][2]string{
		{`"TC_TO_QUEUE_MAP": {
        "AZURE": {"0": "0", "1": "1", "2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "7"}`, `"TC_TO_QUEUE_MAP": {
        "AZURE": {"0": "0", "1": "1", "2": "2", "3": "3", "4": "4", "5": "3", "6": "6", "7": "7"}`},
		{`"Ethernet0,Ethernet4": {
            "dscp_to_tc_map": "AZURE",
            "tc_to_queue_map": "AZURE",
            "tc_to_pg_map": "AZURE",
            "pfc_to_queue_map": "AZURE",
            "pfc_enable": "3"
        }`, `"Ethernet0": {
            "dscp_to_tc_map": "AZURE",
            "tc_to_queue_map": "AZURE",
            "tc_to_pg_map": "AZURE",
            "pfc_to_queue_map": "AZURE",
            "pfc_enable": "3"
        },
        "Ethernet4": {
            "dscp_to_tc_map": "AZURE",
            "tc_to_queue_map": "AZURE",
            "tc_to_pg_map": "AZURE",
            "pfc_to_queue_map": "AZURE",
            "pfc_enable": "3,5"
        }`},
	} {
		if strings.Count(text, r[0]) != 1 {
			t.Fatalf("the case changed: no %s", r[0])
		}
		text = strings.Replace(text, r[0], r[1], 1)
	}
	got := queueSharedTitles(t, text)
	want := []string{"Ethernet0: RoCE's lossless class 3 leaves by queue 3 (tc_to_queue_map AZURE), which lossy class 5 share",
		"Ethernet4: RoCE's lossless class 3 leaves by queue 3 (tc_to_queue_map AZURE), which lossless class 5 share"}
	if len(got) != len(want) {
		t.Fatalf("got %q, want a finding on each of %q", got, want)
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("finding %d: got %q, want %q", i, got[i], want[i])
		}
	}
}

// queueSharedTitles lints a config_db given as text and returns the titles
// of its pfc.queue.shared findings.
func queueSharedTitles(t *testing.T, text string) []string {
	t.Helper()
	var got []string
	for _, fd := range lintFiles(t, tempFile(t, "config_db.json", text)).Findings {
		if fd.ID == "pfc.queue.shared" {
			got = append(got, fd.Title)
		}
	}
	return got
}
