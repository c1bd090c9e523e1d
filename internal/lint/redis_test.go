package lint

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

// SYNTHETIC: Redis queries of databases other than CONFIG_DB are refused
// saying which database they read (they were read as CONFIG_DB rows, or
// as nothing); a CONFIG_DB row as sonic-db-cli prints it after a prompt
// was refused as invalid JSON.
func TestRedisQueries(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ text, want string }{
		{"admin@sonic:~$ sonic-db-cli STATE_DB hgetall 'BUFFER_MAX_PARAM_TABLE|Ethernet0'\n{'max_headroom_size': '0'}\n", ":1: a query of STATE_DB"},
		{"admin@sonic:~$ redis-cli -n 0 hgetall \"BUFFER_PG_TABLE:Ethernet0:3-4\"\n 1) \"profile\"\n 2) \"pg_lossless_100000_5m_profile\"\n", ":1: a query of APPL_DB"},
		{"127.0.0.1:6379[2]> keys *\n", ":1: a query of COUNTERS_DB"},
		{"admin@sonic:~$ sonic-db-cli CONFIG_DB hgetall 'PFC_WD|Ethernet0'\n{'action': 'drop', 'detection_time': '200', 'restoration_time': '200'}\n", ""},
	} {
		path := filepath.Join(dir, "redis.txt")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Lint([]string{path}, nil)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.text, err)
		case c.want == "" && rep.Inputs[0].Type != KindSONiCConfigDB:
			t.Errorf("%q read as %s", c.text, rep.Inputs[0].Type)
		case c.want != "" && (!errors.Is(err, errNotConfig) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
}

// Arista EOS's `show priority-flow-control` (democratic-csi#241: PFC on
// globally, D on the port) was "no configuration lint reads"; beside a NIC
// that runs PFC on priority 3 (a real mlnx_qos) the port that ignores its
// pauses is now named.
func TestEOSPriorityFlowControl(t *testing.T) {
	const eos = "../../testdata/corpus/switch/eos-show-priority-flow-control-port-disabled-democraticcsi241.txt"
	rep, err := Lint([]string{eos, "../../testdata/corpus/ethtool/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range rep.Findings {
		if f.ID == "qos.pfc.disabled" && strings.Contains(f.Title, "Et1: PFC is on none, but mce0 (mlnx_qos) puts RoCE on priority 3") {
			found = true
		}
	}
	if !found {
		t.Errorf("findings %v", ids(rep))
	}
	// Alone: no class is lossless, whichever RoCE takes.
	rep, err = Lint([]string{eos}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].ID != "qos.pfc.disabled" || rep.Findings[0].Severity != doctor.Warn || !strings.Contains(rep.Findings[0].Title, "Et1: PFC is off on every priority") {
		t.Errorf("alone: %v", ids(rep))
	}
}
