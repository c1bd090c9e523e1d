package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rocelab runs the command line in-process and returns exit code, stdout
// and stderr.
func rocelab(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := execute(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestRunJSONIsDeterministic(t *testing.T) {
	code, a, stderr := rocelab(t, "run", "--json", "--example", "incast-pfc")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, b, _ := rocelab(t, "run", "--json", "--example", "incast-pfc")
	if a != b {
		t.Fatal("two runs of incast-pfc gave different JSON")
	}
	var res struct {
		Health map[string]struct {
			Value  float64 `json:"value"`
			Target float64 `json:"target"`
			Pass   bool    `json:"pass"`
		} `json:"health"`
		Totals map[string]any `json:"totals"`
		Flows  []struct {
			ID          int      `json:"id"`
			Src         string   `json:"src"`
			Dst         string   `json:"dst"`
			Bytes       int64    `json:"bytes"`
			FCTUS       *float64 `json:"fct_us"`
			GoodputGbps float64  `json:"goodput_gbps"`
		} `json:"flows"`
	}
	if err := json.Unmarshal([]byte(a), &res); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"p99_latency_us", "bandwidth_utilization", "loss_rate", "pfc_pause_ratio"} {
		if _, ok := res.Health[k]; !ok {
			t.Errorf("health.%s missing", k)
		}
	}
	for _, k := range []string{"sent", "retransmitted", "delivered", "dropped", "discarded", "in_flight", "frames", "drops_by_reason", "pause_frames", "ecn_marked"} {
		if _, ok := res.Totals[k]; !ok {
			t.Errorf("totals.%s missing", k)
		}
	}
	if len(res.Flows) != 17 || res.Flows[0].FCTUS == nil {
		t.Errorf("flows: %d, first %+v", len(res.Flows), res.Flows[0])
	}
}

func TestRunBadScenarioExits2(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.yaml")
	os.WriteFile(p, []byte("topology: {kind: single-switch, hosts: 2}\ntraffic: {flows: [{src: h0, dst: h1, bytes: 1MiB, colour: red}]}\n"), 0o644)
	code, out, stderr := rocelab(t, "run", p)
	if code != 2 || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	if !strings.Contains(stderr, p+":2:") || !strings.Contains(stderr, `unknown key "colour"`) {
		t.Errorf("stderr %q", stderr)
	}
	if code, _, _ := rocelab(t, "run", filepath.Join(dir, "missing.yaml")); code != 2 {
		t.Errorf("missing file: exit %d", code)
	}
	if code, _, _ := rocelab(t, "run", "--example", "nope"); code != 2 {
		t.Errorf("unknown example: exit %d", code)
	}
	if code, _, _ := rocelab(t, "bogus"); code != 2 {
		t.Errorf("unknown command: exit %d", code)
	}
}

func TestRunRefusesTooLarge(t *testing.T) {
	code, _, stderr := rocelab(t, "run", "--example", "leafspine-permutation", "--max-events", "1000")
	if code != 2 || !strings.Contains(stderr, "scenario too large") || !strings.Contains(stderr, "events") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

func TestRunOutDir(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := rocelab(t, "run", "--example", "incast-nopfc", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"result.json", "summary.txt", "flows.csv", "queues.csv", "ethtool/sw0-p0.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, "ethtool/sw0-p0.txt"))
	if !strings.Contains(string(data), "NIC statistics:\n") || !strings.Contains(string(data), "     rx_discards_phy: ") {
		t.Errorf("ethtool file:\n%s", data)
	}
}

func TestRunPcap(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "twin.pcapng")
	code, _, stderr := rocelab(t, "run", "--example", "single-flow", "--pcap", p, "--pcap-at", "sw0/p1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The twin's capture carries the link speed and the host names.
	code, out, stderr := rocelab(t, "capture", p)
	if code != 0 || !strings.Contains(out, "h0 > h1 qp 0x000100") || !strings.Contains(out, "snaplen 0, link speed 100Gbps (if_speed)") {
		t.Fatalf("capture exit %d:\n%s\n%s", code, out, stderr)
	}
	if code, _, stderr := rocelab(t, "run", "--example", "single-flow", "--pcap", p, "--pcap-at", "sw9/p0"); code != 2 || !strings.Contains(stderr, `no port "sw9/p0": expected NODE/pN`) {
		t.Errorf("bad --pcap-at: exit %d %s", code, stderr)
	}
	if code, _, _ := rocelab(t, "run", "--pcap-at", "h0/p0"); code != 2 {
		t.Errorf("--pcap-at without --pcap: exit %d", code)
	}
}
