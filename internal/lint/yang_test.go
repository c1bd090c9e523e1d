package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SONiC YANG instance data (sonic-yang-models' own QoS map tests, real
// file) is linted as the CONFIG_DB it models, each test case a config of
// its own, with findings at the YANG text's lines: the invalid pfc_enable
// "8" of PORT_QOS_MAP_APPLY_INVALID_PFC at its leaf (line 876), the port
// PORT does not hold. The file was refused at its first module-qualified
// name. Each case is judged alone: another case's tables hold nothing for
// it, so PORT_QOS_MAP_APPLY_NON_EXISTS_MAPS's map2 is named as held by no
// input (DSCP_TO_TC_MAP_CRETAE holds a DSCP_TO_TC_MAP|map2 of its own), and
// the DSCP_TO_TC_MAP-only case is told what it cannot check.
func TestLintYANGInstance(t *testing.T) {
	const file = "../../testdata/corpus/sonic/buildimage-yang-models-tests_config-qosmaps-yang-instance.json"
	rep := lintFiles(t, file)
	var format, unknown, map2, dscpOnly bool
	for _, f := range rep.Findings {
		switch {
		case f.ID == "config.pfc_enable.format" && strings.Contains(f.Title, "PORT_QOS_MAP_APPLY_INVALID_PFC Ethernet4"):
			for _, e := range f.Evidence {
				format = format || e.Line == 876 && strings.Contains(e.Text, `"pfc_enable": "8"`)
			}
		case f.ID == "config.port.unknown" && strings.Contains(f.Title, "PORT_QOS_MAP_APPLY_NON_EXISTS_PORT"):
			unknown = true
		case f.ID == "config.not_judged" && strings.Contains(f.Title, " PORT_QOS_MAP_APPLY_NON_EXISTS_MAPS: names") && strings.Contains(f.Title, "DSCP_TO_TC_MAP|map2"):
			map2 = true
		case f.ID == "config.not_judged" && strings.Contains(f.Title, " DSCP_TO_TC_MAP_CRETAE: DSCP_TO_TC_MAP without PORT_QOS_MAP"):
			dscpOnly = true
		}
	}
	if !format || !unknown || !map2 || !dscpOnly {
		t.Errorf("pfc_enable \"8\" at line 876 %v, unknown port %v, map2 held by no input %v, DSCP-only case not judged %v: %v", format, unknown, map2, dscpOnly, ids(rep))
	}
}

// A YANG test file of modules lint reads none of (sonic-yang-models'
// ACL or VLAN tests; synthetic, in their form) is named not read, once per
// case at the case's name, and not told it sets no QoS as well; a case
// that reads a table but none of the QoS ones is told so at its name.
func TestLintYANGCasesAnchored(t *testing.T) {
	file := filepath.Join(t.TempDir(), "synthetic-acl-yang-tests.json")
	data := `{
  "ACL_ONLY": {
    "sonic-acl:sonic-acl": {"sonic-acl:ACL_TABLE": {"ACL_TABLE_LIST": [{"ACL_TABLE_NAME": "A", "type": "L3"}]}}
  },
  "PORT_ONLY": {
    "sonic-port:sonic-port": {"sonic-port:PORT": {"PORT_LIST": [{"name": "Ethernet0", "lanes": "65", "speed": 100000}]}}
  }
}
`
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := lintFiles(t, file)
	var aclNotRead, portAbsent bool
	for _, f := range rep.Findings {
		at := func(line, col int) bool {
			return len(f.Evidence) > 0 && f.Evidence[0].Line == line && f.Evidence[0].Col == col
		}
		switch {
		case f.ID == "config.qos.absent" && strings.Contains(f.Title, "ACL_ONLY"):
			t.Errorf("ACL-only case told it sets no QoS: %s", f.Title)
		case f.ID == "config.not_judged" && strings.Contains(f.Title, "ACL_ONLY: 1 YANG node not read"):
			aclNotRead = at(2, 3)
		case f.ID == "config.qos.absent" && strings.Contains(f.Title, "PORT_ONLY"):
			portAbsent = at(5, 3)
		}
	}
	if !aclNotRead || !portAbsent {
		t.Errorf("ACL case not read at 2:3 %v, PORT case qos.absent at 5:3 %v: %v", aclNotRead, portAbsent, rep.Findings)
	}
}
