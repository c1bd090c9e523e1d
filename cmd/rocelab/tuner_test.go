package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The tuner's commands: exit codes, and bad input reported at file:line:col.
func TestTunerCommands(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badJSON := write("config_db.json", "{\n  \"PORT\": {\n    \"Ethernet0\": {\"mtu\": 9100,,}\n  }\n}\n")
	badYAML := write("cluster.yaml", "topology: {kind: single-switch, hosts: 2}\nswitch:\n  ecn: {kmin: lots}\n")
	badSpace := write("space.yaml", "params:\n  switch.pfc.headroom: [auto, lots]\n")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"lint", "../../testdata/lint/seed-002/bad/seed-as-found-synthetic.yaml"}, 1, "switch.ecn.thresholds"},
		{[]string{"lint", "../../testdata/lint/seed-002/fixed/seed-fixed-synthetic.yaml"}, 0, "0 error, 0 warn"},
		{[]string{"lint", badJSON}, 2, badJSON + ":3:31: invalid JSON"},
		{[]string{"lint", badYAML}, 2, badYAML + ":3:15: switch.ecn.kmin"},
		{[]string{"lint", filepath.Join(dir, "missing.json")}, 2, "no such file"},
		{[]string{"lint", "../../testdata/corpus/nccl-tests/allreduce-a3mega-16xh100-tcpxo-338GBps-good.txt"}, 2, "use rocelab diagnose"},
		{[]string{"calc", "headroom", "--speed", "100G", "--cable", "300m"}, 0, "82944 B"},
		{[]string{"calc", "timeout", "--timeout", "40"}, 2, "--timeout: expected 0 to 31"},
		{[]string{"calc", "ecn", "--json"}, 0, `"name": "bdp"`},
		{[]string{"config", "gen", "--target", "nccl-env", "../../testdata/lint/seed-002/fixed/seed-fixed-synthetic.yaml"}, 0, "export NCCL_IB_TC=106"},
		{[]string{"config", "gen", "--target", "junos", "../../testdata/lint/seed-002/fixed/seed-fixed-synthetic.yaml"}, 2, "unknown target"},
		{[]string{"config", "gen", "--target", "sonic", badYAML}, 2, ":3:15:"},
		{[]string{"tune", "../../examples/headroom-short.yaml", "--space", badSpace}, 2, badSpace + ":2:31: params.switch.pfc.headroom = lots"},
		{[]string{"tune", "../../examples/headroom-short.yaml"}, 2, "no tune: section"},
		{[]string{"tune", "../../examples/headroom-short.yaml", "--space", "../../internal/tune/testdata/headroom-space.yaml", "--shard-index", "3", "--shard-count", "2"}, 2, "shard 3 of 2"},
		{[]string{"tune", "merge", badJSON}, 2, "not a rocelab tune result"},
	} {
		code, out, errOut := rocelab(t, c.args...)
		if code != c.code || !strings.Contains(out+errOut, c.want) {
			t.Errorf("rocelab %s: exit %d, want %d with %q\nstdout: %s\nstderr: %s", strings.Join(c.args, " "), code, c.code, c.want, out, errOut)
		}
	}
}

// tune --out writes the results, the chosen scenario and its configs, and
// the chosen scenario lints without warnings.
func TestTuneOut(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := rocelab(t, "tune", "../../examples/headroom-short.yaml", "--space", "../../internal/tune/testdata/headroom-space.yaml", "--workers", "2", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "best: #") || !strings.Contains(out, "(the base meets 0)") {
		t.Errorf("output:\n%s", out)
	}
	for _, f := range []string{"results.json", "results.txt", "best.yaml", "config/sonic", "config/sonic.provenance", "config/mlnx_qos", "config/nccl-env"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	code, out, _ = rocelab(t, "lint", filepath.Join(dir, "best.yaml"))
	if code != 0 || strings.Contains(out, "pfc.headroom.short") {
		t.Errorf("lint of the chosen scenario: exit %d\n%s", code, out)
	}
}
