package sonic

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestYANGTablesMatchModels checks each table lint reads from SONiC YANG
// instance data against its model (testdata/yang, sonic-buildimage
// 086b03bd): the module's container holds the table's container, which
// holds each list with its key leaves in order and the row containers
// the table reads, no other (a row container lint missed would be read
// as not a list lint knows), and a map list's inner list, named as the
// table, is keyed by mapKey and holds mapValue.
func TestYANGTablesMatchModels(t *testing.T) {
	for _, yt := range yangTables {
		data, err := os.ReadFile(filepath.Join("testdata/yang", yt.module+".yang"))
		if err != nil {
			t.Errorf("%s: %v", yt.module, err)
			continue
		}
		m := parseYANG(t, string(data)).find("module", yt.module)
		if m == nil {
			t.Errorf("%s: no module %s", yt.module, yt.module)
			continue
		}
		top := m.find("container", yt.module)
		if top == nil {
			t.Errorf("%s: no container %s", yt.module, yt.module)
			continue
		}
		table := top.find("container", yt.table)
		if table == nil {
			t.Errorf("%s: no container %s", yt.module, yt.table)
			continue
		}
		for _, l := range yt.lists {
			list := table.find("list", l.name)
			if list == nil {
				t.Errorf("%s: no list %s", yt.module, l.name)
				continue
			}
			if k := list.find("key", ""); k == nil || !reflect.DeepEqual(strings.Fields(k.arg), l.keys) {
				t.Errorf("%s %s: key %v, model %v", yt.module, l.name, l.keys, k)
			}
			inner := list.find("list", yt.table)
			switch {
			case l.mapKey == "" && inner != nil:
				t.Errorf("%s %s: a map list (inner list %s) read as rows", yt.module, l.name, yt.table)
			case l.mapKey != "" && inner == nil:
				t.Errorf("%s %s: no inner list %s", yt.module, l.name, yt.table)
			case l.mapKey != "":
				if k := inner.find("key", ""); k == nil || k.arg != l.mapKey || inner.find("leaf", l.mapValue) == nil {
					t.Errorf("%s %s: map %s -> %s not the model's", yt.module, l.name, l.mapKey, l.mapValue)
				}
			}
		}
		var lists []string
		for _, l := range table.all("list") {
			lists = append(lists, l.arg)
		}
		if len(lists) != len(yt.lists) {
			t.Errorf("%s: model lists %v, table has %d", yt.module, lists, len(yt.lists))
		}
		var rows []string
		for _, c := range table.all("container") {
			rows = append(rows, c.arg)
		}
		if !slices.Equal(rows, yt.rows) {
			t.Errorf("%s: model's row containers %v, table reads %v", yt.module, rows, yt.rows)
		}
	}
}

// yangQoS is a synthetic config in SONiC YANG instance data (RFC 7951
// JSON as sonic-yang-models' tests write it), and configDBQoS the same
// config as CONFIG_DB: both must give the same tables.
const yangQoS = `{
  "sonic-device_metadata:sonic-device_metadata": {
    "sonic-device_metadata:DEVICE_METADATA": {
      "localhost": {"hwsku": "Mellanox-SN4700-O28", "buffer_model": "traditional"}
    }
  },
  "sonic-port:sonic-port": {
    "sonic-port:PORT": {
      "PORT_LIST": [
        {"name": "Ethernet0", "lanes": "0,1,2,3", "speed": 400000, "mtu": "9100", "adv_speeds": [100000, 400000]}
      ]
    }
  },
  "sonic-dscp-tc-map:sonic-dscp-tc-map": {
    "sonic-dscp-tc-map:DSCP_TO_TC_MAP": {
      "DSCP_TO_TC_MAP_LIST": [
        {"name": "AZURE", "DSCP_TO_TC_MAP": [{"dscp": "26", "tc": "3"}, {"dscp": "0", "tc": "0"}]}
      ]
    }
  },
  "sonic-cable-length:sonic-cable-length": {
    "sonic-cable-length:CABLE_LENGTH": {
      "CABLE_LENGTH_LIST": [
        {"name": "AZURE", "CABLE_LENGTH": [{"port": "Ethernet0", "length": "5m"}]}
      ]
    }
  },
  "sonic-port-qos-map:sonic-port-qos-map": {
    "sonic-port-qos-map:PORT_QOS_MAP": {
      "PORT_QOS_MAP_LIST": [
        {"ifname": "Ethernet0", "dscp_to_tc_map": "AZURE", "pfc_enable": "3,4"}
      ]
    }
  },
  "sonic-buffer-pg:BUFFER_PG": {
    "BUFFER_PG_LIST": [
      {"port": "Ethernet0", "pg_num": "3-4", "profile": "pg_lossless_400000_5m_profile"}
    ]
  },
  "sonic-queue:QUEUE_LIST": [
    {"ifname": "Ethernet0", "qindex": "3", "wred_profile": "AZURE_LOSSLESS"}
  ],
  "sonic-wred-profile:sonic-wred-profile": {
    "sonic-wred-profile:WRED_PROFILE": {
      "WRED_PROFILE_LIST": [
        {"name": "AZURE_LOSSLESS", "ecn": "ecn_all", "wred_green_enable": true, "green_min_threshold": "250000"}
      ]
    }
  },
  "sonic-acl:sonic-acl": {"sonic-acl:ACL_TABLE": {"ACL_TABLE_LIST": [{"ACL_TABLE_NAME": "DATAACL"}]}}
}`

const configDBQoS = `{
  "DEVICE_METADATA": {"localhost": {"hwsku": "Mellanox-SN4700-O28", "buffer_model": "traditional"}},
  "PORT": {"Ethernet0": {"lanes": "0,1,2,3", "speed": "400000", "mtu": "9100", "adv_speeds": "100000,400000"}},
  "DSCP_TO_TC_MAP": {"AZURE": {"26": "3", "0": "0"}},
  "CABLE_LENGTH": {"AZURE": {"Ethernet0": "5m"}},
  "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3,4"}},
  "BUFFER_PG": {"Ethernet0|3-4": {"profile": "pg_lossless_400000_5m_profile"}},
  "QUEUE": {"Ethernet0|3": {"wred_profile": "AZURE_LOSSLESS"}},
  "WRED_PROFILE": {"AZURE_LOSSLESS": {"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "250000"}}
}`

// tableTexts returns a config's tables without positions.
func tableTexts(db *ConfigDB) map[string]map[string]map[string]string {
	out := map[string]map[string]map[string]string{}
	for name, tab := range db.Tables {
		out[name] = map[string]map[string]string{}
		for key, row := range tab {
			out[name][key] = map[string]string{}
			for f, v := range row {
				out[name][key][f] = v.Text
			}
		}
	}
	return out
}

// TestYANGInstance reads SONiC YANG instance data as the CONFIG_DB it
// models (it was refused at its first module-qualified name): the module's
// container, a table's container and a list at the top level, a map
// list's inner list as fields, a list's key leaves joined as the row key,
// DEVICE_METADATA's localhost container as a row; positions are the YANG
// text's, and a module lint has no mapping for is named, not dropped.
func TestYANGInstance(t *testing.T) {
	y, err := Parse("y.json", []byte(yangQoS))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse("c.json", []byte(configDBQoS))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tableTexts(y), tableTexts(c); !reflect.DeepEqual(got, want) {
		t.Errorf("YANG form read as\n%v\nwant\n%v", got, want)
	}
	if !y.YANG || c.YANG {
		t.Errorf("YANG %v %v", y.YANG, c.YANG)
	}
	if v := y.Tables["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"]; v.Line != 31 || v.Col != 74 {
		t.Errorf("pfc_enable at %d:%d", v.Line, v.Col)
	}
	if v := y.Tables["DSCP_TO_TC_MAP"]["AZURE"]["26"]; v.Line != 17 || v.Col != 67 {
		t.Errorf("DSCP 26 at %d:%d", v.Line, v.Col)
	}
	if v, ok := y.KeyPos("BUFFER_PG|Ethernet0|3-4"); !ok || v.Line != 37 || v.Col != 16 {
		t.Errorf("BUFFER_PG row at %v", v)
	}
	if v, ok := y.KeyPos("CABLE_LENGTH|AZURE|Ethernet0"); !ok || v.Line != 24 || v.Col != 53 {
		t.Errorf("cable port at %v", v)
	}
	if v, ok := y.TablePos("QUEUE"); !ok || v.Line != 40 {
		t.Errorf("QUEUE at %v", v)
	}
	if len(y.Skipped) != 1 || !strings.HasPrefix(y.Skipped[0].Text, "sonic-acl:sonic-acl (") || y.Skipped[0].Line != 50 {
		t.Errorf("skipped %v", y.Skipped)
	}
}

// sonic-mgmt-common's models (models/yang/sonic/sonic-port.yang,
// cvl/testdata/schema/sonic-buffer-pg.yang at f71cf829) key PORT_LIST and
// BUFFER_PG_LIST on "ifname" where sonic-yang-models' key on "name" and
// "port", for the same CONFIG_DB keys (PORT|{ifname},
// BUFFER_PG|{ifname}|{pg_num}): such entries are read as the same rows.
func TestYANGIfnameKey(t *testing.T) {
	y, err := Parse("y.json", []byte(`{
  "sonic-port:sonic-port": {"sonic-port:PORT": {"PORT_LIST": [{"ifname": "Ethernet0", "speed": 400000}]}},
  "sonic-buffer-pg:sonic-buffer-pg": {"sonic-buffer-pg:BUFFER_PG": {"BUFFER_PG_LIST": [{"ifname": "Ethernet0", "pg_num": "3-4", "profile": "p"}]}}
}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := tableTexts(y); !reflect.DeepEqual(got, map[string]map[string]map[string]string{
		"BUFFER_PG": {"Ethernet0|3-4": {"profile": "p"}}, "PORT": {"Ethernet0": {"speed": "400000"}}}) {
		t.Errorf("read as %v", got)
	}
}
