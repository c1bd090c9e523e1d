package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExporterBadUsage: bad flags and inputs exit 2 with a message that
// names the problem, before anything listens.
func TestExporterBadUsage(t *testing.T) {
	dir := t.TempDir()
	badWeb := filepath.Join(dir, "web.yml")
	if err := os.WriteFile(badWeb, []byte("tls_server_config:\n  cert_file: /nonexistent.pem\n  key_file: /nonexistent.key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"exporter", "--twin", "../../examples/single-flow.yaml", "--speed", "0"}, "--speed"},
		{[]string{"exporter", "--twin", "../../examples/single-flow.yaml", "--twin.step", "0"}, "--twin.step"},
		{[]string{"exporter", "--twin", "../../examples/single-flow.yaml", "--twin.step", "-5ms"}, "--twin.step"},
		{[]string{"exporter", "--twin", "../../examples/single-flow.yaml", "--speed", "NaN"}, "--speed"},
		{[]string{"exporter", "--web.max-requests", "-1"}, "--web.max-requests"},
		{[]string{"exporter", "--collector.ethtool.exclude", "("}, "--collector.ethtool.exclude"},
		{[]string{"exporter", "--path.sysfs", filepath.Join(dir, "nope")}, "not a directory"},
		{[]string{"exporter", "--twin", filepath.Join(dir, "nope.yaml")}, "nope.yaml"},
		{[]string{"exporter", "--path.sysfs", dir, "--web.listen-address", "127.0.0.1:0", "--web.config.file", badWeb}, "nonexistent"},
		{[]string{"exporter", "--log.level", "loud"}, "--log.level"},
		{[]string{"exporter", "extra"}, "unknown command"},
	}
	for _, c := range cases {
		code, _, stderr := rocelab(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestRunOutSysfs: run --out-sysfs writes one tree per host that the
// plain exporter reads.
func TestRunOutSysfs(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := rocelab(t, "run", "--example", "single-flow", "--out-sysfs", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, h := range []string{"h0", "h1"} {
		for _, f := range []string{"sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", "sys/class/net/eth0/mtu", "ethtool-stats/eth0.txt", "mlnx_qos/eth0.txt"} {
			if _, err := os.Stat(filepath.Join(dir, h, f)); err != nil {
				t.Errorf("%s/%s: %v", h, f, err)
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "h0/sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data"))
	if err != nil || strings.TrimSpace(string(b)) == "0" {
		t.Errorf("h0 sent 64 MiB, port_xmit_data reads %q (%v)", b, err)
	}
}
