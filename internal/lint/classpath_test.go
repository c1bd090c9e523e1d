package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

// orchagent applies only dscp_to_tc_map of PORT_QOS_MAP|global and skips
// its other fields, so a TC_TO_PRIORITY_GROUP_MAP named there is no
// port's: the sonic-tc-pg-lossy case (TC 3 to PG 0) with its map moved
// from Ethernet0 and Ethernet4 to the global row leaves the ports SAI's
// default, no judged PG, and no pfc.pg.lossy.
func TestClassPathGlobalMapsNotPorts(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "lint", "sonic-tc-pg-lossy", "bad", "sn4600c-c64-t1-qos-buffers-edited-synthetic.json")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if rep := lintFiles(t, src); !hasID(rep, "pfc.pg.lossy") {
		t.Fatalf("the case itself: no pfc.pg.lossy in %v", rep.Findings)
	}
	const global = "\"global\": {\n            \"dscp_to_tc_map\": \"AZURE\"\n        },"
	const port = "\"tc_to_pg_map\": \"AZURE\",\n"
	if !strings.Contains(text, global) || strings.Count(text, port) != 2 {
		t.Fatal("the case's PORT_QOS_MAP rows changed")
	}
	text = strings.Replace(text, global, "\"global\": {\n            \"dscp_to_tc_map\": \"AZURE\",\n            \"tc_to_pg_map\": \"AZURE\"\n        },", 1)
	text = strings.ReplaceAll(text, port, "")
	moved := filepath.Join(t.TempDir(), "global-tc-pg.json")
	if err := os.WriteFile(moved, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep := lintFiles(t, moved); hasID(rep, "pfc.pg.lossy") {
		t.Errorf("pfc.pg.lossy from the global row's tc_to_pg_map, which orchagent does not apply to ports")
	}
}

func hasID(rep *doctor.Report, id string) bool {
	_, ok := ids(rep)[id]
	return ok
}
