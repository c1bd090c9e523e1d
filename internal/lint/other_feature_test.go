package lint

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A PORT_QOS_MAP row that binds only a port shaper (SONiC's scheduler HLD,
// real) in an excerpt holding no QoS map or buffer table is about another
// feature: PFC is not judged and config.not_judged says so, where it gave
// qos.pfc.disabled before. The same row in a switch's whole CONFIG_DB
// (DEVICE_METADATA|localhost and PORT; synthetic) is PFC off on the port.
func TestPortShaperExcerptNotJudged(t *testing.T) {
	excerpt := "../../testdata/corpus/sonic/sonic-hld-scheduler-shaper-port-qos-map-scheduler-only.json"
	ids := func(f string) []string {
		rep, err := Lint([]string{f}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, fd := range rep.Findings {
			out = append(out, fd.ID)
		}
		return out
	}
	if got := ids(excerpt); !slices.Equal(got, []string{"config.not_judged"}) {
		t.Errorf("excerpt: %v, want config.not_judged alone", got)
	}
	whole := filepath.Join(t.TempDir(), "whole-synthetic.json")
	text := `{"DEVICE_METADATA": {"localhost": {"hwsku": "x"}}, "PORT": {"Ethernet52": {"speed": "100000"}},
"SCHEDULER": {"scheduler.port": {"meter_type": "bytes", "pir": "1000000000", "pbs": "8192"}},
"PORT_QOS_MAP": {"Ethernet52": {"scheduler": "scheduler.port"}}}`
	if err := os.WriteFile(whole, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := ids(whole); !slices.Contains(got, "qos.pfc.disabled") {
		t.Errorf("whole config: %v, want qos.pfc.disabled", got)
	}
}
