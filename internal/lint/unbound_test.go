package lint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPortsUnbound: sonic-utilities' `config qos reload` render of ASIC 0
// (real, testdata/corpus/sonic-stock), whose PORT_QOS_MAP and QUEUE are
// empty while it defines the AZURE maps and WRED profile for 32 ports,
// gives qos.ports.unbound; the same file with a port's PORT_QOS_MAP row, or
// beside another input that binds the ports, does not.
func TestPortsUnbound(t *testing.T) {
	const name = "utilities-qos_config_input-0-config_qos.json"
	data, err := os.ReadFile(filepath.Join(stockDir, name))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	const empty = `"PORT_QOS_MAP": {},`
	if strings.Count(text, empty) != 1 {
		t.Fatal("the file changed: no empty PORT_QOS_MAP")
	}
	bound := strings.Replace(text, empty, `"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "tc_to_pg_map": "AZURE", "tc_to_queue_map": "AZURE", "pfc_to_queue_map": "AZURE", "pfc_enable": "3,4"}},`, 1)
	patch := `{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}}}`
	elsewhere := `{"PORT_QOS_MAP": {"Ethernet999": {"pfc_enable": "3,4"}}}`
	global := strings.Replace(text, empty, `"PORT_QOS_MAP": {"global": {"dscp_to_tc_map": "AZURE"}},`, 1)
	// Two ASICs of one dump: asic0 bound, asic1 as rendered.
	asics := "{\n\"asic0\": " + bound + ",\n\"asic1\": " + text + "\n}\n"

	for _, c := range []struct {
		what  string
		files []string
		want  bool
		// title is in the finding's title when want.
		title string
	}{
		{"as rendered", []string{tempFile(t, "config_qos.json", text)}, true, "no port has pfc_enable, the DSCP map or a WRED profile"},
		{"a port bound", []string{tempFile(t, "config_qos.json", bound)}, false, ""},
		{"bound by another input", []string{tempFile(t, "config_qos.json", text), tempFile(t, "ports.json", patch)}, false, ""},
		{"another input binds other ports", []string{tempFile(t, "config_qos.json", text), tempFile(t, "ports.json", elsewhere)}, true, ""},
		{"asic0 bound, asic1 not", []string{tempFile(t, "running.json", asics)}, true, "running.json asic1:"},
		{"global DSCP map", []string{tempFile(t, "config_qos.json", global)}, true, "no port has pfc_enable or a WRED profile (the global row's DSCP map classifies)"},
	} {
		var got []string
		for _, fd := range lintFiles(t, c.files...).Findings {
			if fd.ID == "qos.ports.unbound" {
				got = append(got, fd.Title)
			}
		}
		if c.want && (len(got) != 1 || !strings.Contains(got[0], "for its 32 ports (CABLE_LENGTH)") || !strings.Contains(got[0], c.title)) || !c.want && len(got) > 0 {
			t.Errorf("%s: got %q, want a finding: %v", c.what, got, c.want)
		}
	}
}

// TestLintMultiASICOtherNamespace: sonic-utilities' multi-ASIC mock
// config_dbs of asic0 and asic1 (real) joined into one dump as `show
// runningconfiguration all` prints it: each ASIC's PORT_QOS_MAP holds rows
// for the other's ports, and config.port.unknown names whose they are and
// says to move them, while Ethernet8, in neither PORT, is only unknown: the
// fix names the ports PORT holds for it.
func TestLintMultiASICOtherNamespace(t *testing.T) {
	var parts []string
	for _, f := range []string{filepath.Join("testdata", "util-mock-asic0-config_db.json"), filepath.Join("..", "..", "testdata", "corpus", "sonic", "utilities-mock_tables-asic1-config_db.json")} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, string(data))
	}
	dump := tempFile(t, "running.json", "{\n\"asic0\": "+parts[0]+",\n\"asic1\": "+parts[1]+"\n}\n")
	want := map[string]string{
		"asic0": "(Ethernet-BP256 is asic1's, Ethernet-BP260 is asic1's)",
		"asic1": "(Ethernet-BP0 is asic0's, Ethernet-BP4 is asic0's, Ethernet0 is asic0's and 1 more)",
	}
	for _, fd := range lintFiles(t, dump).Findings {
		if fd.ID != "config.port.unknown" {
			continue
		}
		for ns, w := range want {
			if strings.HasPrefix(fd.Title, dump+" "+ns+":") {
				if !strings.HasSuffix(fd.Title, w) || !strings.Contains(fd.Fix, "Move the other rows") || !strings.HasPrefix(fd.Fix, "For Ethernet8, in no namespace's PORT: name ports PORT holds (") {
					t.Errorf("%s: %q / %q, want the title to end %q", ns, fd.Title, fd.Fix, w)
				}
				delete(want, ns)
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("no config.port.unknown for %v", want)
	}
}

// TestConnectedUnbound: sonic-utilities' full T0 config_db (real, a Dell
// S6000 whose 28 connected ports have their PORT_QOS_MAP and QUEUE rows)
// gives no qos.ports.unbound; with Ethernet4's PORT_QOS_MAP row, or its
// QUEUE rows, taken out, it names Ethernet4 against the 27 others.
func TestConnectedUnbound(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", "sonic", "utilities-filter_fdb_input-config_db.json"))
	if err != nil {
		t.Fatal(err)
	}
	var db map[string]map[string]any
	if err := json.Unmarshal(data, &db); err != nil {
		t.Fatal(err)
	}
	without := func(table, port string) string {
		cut := map[string]map[string]any{}
		for tb, rows := range db {
			cut[tb] = map[string]any{}
			for k, v := range rows {
				if tb != table || k != port && !strings.HasPrefix(k, port+"|") {
					cut[tb][k] = v
				}
			}
		}
		out, err := json.MarshalIndent(cut, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	for _, c := range []struct{ what, text, want string }{
		{"as given", string(data), ""},
		{"no PORT_QOS_MAP row", without("PORT_QOS_MAP", "Ethernet4"), "Ethernet4, connected (DEVICE_NEIGHBOR), has no PORT_QOS_MAP row, unlike the 27 other connected ports"},
		{"no QUEUE rows", without("QUEUE", "Ethernet4"), "Ethernet4, connected with PFC on, has no QUEUE row binding a WRED profile, unlike the 27 other such ports"},
	} {
		var got []string
		for _, fd := range lintFiles(t, tempFile(t, "config_db.json", c.text)).Findings {
			if fd.ID == "qos.ports.unbound" {
				got = append(got, fd.Title)
				if len(fd.Evidence) < 2 || fd.Evidence[0].Line == 0 {
					t.Errorf("%s: evidence %v", c.what, fd.Evidence)
				}
			}
		}
		if c.want == "" && len(got) > 0 || c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)) {
			t.Errorf("%s: got %q, want %q", c.what, got, c.want)
		}
	}
}

// TestInbandPortNotUnbound: sonic-mgmt's virtual VOQ chassis linecard
// (real, testdata/corpus/sonic-stock) names Ethernet120 in DEVICE_NEIGHBOR
// (the other linecard's inband port) and gives it no PORT_QOS_MAP row:
// VOQ_INBAND_INTERFACE makes it the inband port, which carries the
// linecards' control traffic, not RoCE, so it is no unbound RoCE port. The same file without VOQ_INBAND_INTERFACE names it.
func TestInbandPortNotUnbound(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(stockDir, "mgmt-voq-vlab-t2-01_config_db.json"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	const inband = `"VOQ_INBAND_INTERFACE"`
	if strings.Count(text, inband) != 1 {
		t.Fatal("the file changed: no VOQ_INBAND_INTERFACE")
	}
	for _, c := range []struct{ what, text, want string }{
		{"as given", text, ""},
		{"without VOQ_INBAND_INTERFACE", strings.Replace(text, inband, `"NOT_INBAND"`, 1), "Ethernet120, connected (DEVICE_NEIGHBOR), has no PORT_QOS_MAP row"},
	} {
		var got []string
		for _, fd := range lintFiles(t, tempFile(t, "config_db.json", c.text)).Findings {
			if fd.ID == "qos.ports.unbound" {
				got = append(got, fd.Title)
			}
		}
		if c.want == "" && len(got) > 0 || c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)) {
			t.Errorf("%s: got %q, want %q", c.what, got, c.want)
		}
	}
}
