package sonic

import (
	"maps"
	"os"
	"slices"
	"testing"
)

func readDB(t *testing.T, path string) *ConfigDB {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	db, err := Parse(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func portQoS(db *ConfigDB, port string) PortQoS {
	for _, p := range db.PortQoSMaps() {
		if p.Port == port {
			return p
		}
	}
	return PortQoS{}
}

// SONiC's rendered SN4600C QoS maps each class to its own queue and PG
// (AZURE), and PFC priority 3 to queue 3, each by the port's own maps.
func TestClassPathStock(t *testing.T) {
	db := readDB(t, realQoS)
	pq := portQoS(db, "Ethernet0")
	p := db.ClassPath(pq, 3)
	if p.Queue != 3 || p.PG != 3 || p.Paused != 3 || !p.PGKnown || !p.PausedKnown || p.QueueAt.Line == 0 || p.PGAt.Line == 0 || p.PausedAt.Line == 0 {
		t.Errorf("class 3 on Ethernet0: %+v, want queue, PG and paused queue 3, each read at a line", p)
	}
	// Class 1 (DSCP 26 on this switch) goes to PG 0 by AZURE's map.
	if p := db.ClassPath(pq, 1); p.PG != 0 || p.Queue != 1 {
		t.Errorf("class 1: %+v, want PG 0, queue 1", p)
	}
	// A port naming no map keeps SAI's identity and no judged PG.
	if p := db.ClassPath(PortQoS{Port: "EthernetX"}, 3); p.Queue != 3 || p.Paused != 3 || p.PGKnown || p.PausedKnown {
		t.Errorf("no maps: %+v, want the defaults", p)
	}
}

// The dynamic buffer model's lossless PG rows name profile "NULL"
// (buffermgrd computes the headroom), the lossy PG 0 a profile without
// xoff; the static model's rendered buffers hold PG 0 alone, buffermgrd
// adding the pfc_enable PGs when it starts.
func TestLosslessPGs(t *testing.T) {
	for _, c := range []struct {
		file            string
		lossless, lossy []int
		known           bool
	}{
		{"../../testdata/corpus/sonic-stock/buffers-mellanox4600c-t1-dynamic.json", []int{3, 4}, []int{0}, true},
		{"../../testdata/corpus/sonic-stock/buffers-mellanox4600c-t0.json", []int{3, 4}, []int{0}, true},
	} {
		db := readDB(t, c.file)
		pq := PortQoS{Port: "Ethernet0", PFCEnable: []int{3, 4}}
		lossless, lossy, known := db.LosslessPGs(pq)
		got, gotLossy := slices.Sorted(maps.Keys(lossless)), slices.Sorted(maps.Keys(lossy))
		if known != c.known || !slices.Equal(got, c.lossless) || !slices.Equal(gotLossy, c.lossy) {
			t.Errorf("%s: lossless %v lossy %v known %v, want %v %v %v", c.file, got, gotLossy, known, c.lossless, c.lossy, c.known)
		}
	}
	// A row naming a profile the input does not hold (a fragment): not known.
	db, err := Parse("frag", []byte(`{"BUFFER_PG": {"Ethernet0|3-4": {"profile": "pg_lossless_100000_5m_profile"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, known := db.LosslessPGs(PortQoS{Port: "Ethernet0", PFCEnable: []int{3, 4}}); known {
		t.Error("a profile the input lacks: known, want not")
	}
}

// A lossless profile of the dynamic buffer model written by `config buffer
// profile add` has headroom_type dynamic and no xoff (sonic-utilities'
// mock CONFIG_DB: alpha_profile). On the PG that `config interface buffer
// priority-group lossless set Ethernet0 3-4 alpha_profile` gives it, the PG
// is lossless: it read as lossy for want of an xoff.
func TestLosslessPGsDynamicHeadroom(t *testing.T) {
	path := "../../testdata/corpus/sonic-stock/utilities-mock_tables-config_db.json"
	db := readDB(t, path)
	p, ok := db.Profile("alpha_profile")
	if !ok || p.Xoff > 0 || !p.KeepsHeadroom() {
		t.Fatalf("alpha_profile: %+v, want no xoff and headroom kept", p)
	}
	row := db.Tables["BUFFER_PG"]["Ethernet0|3-4"]
	if row == nil {
		t.Fatal("no BUFFER_PG|Ethernet0|3-4")
	}
	row["profile"] = Value{Text: "alpha_profile", Line: 1}
	lossless, lossy, known := db.LosslessPGs(PortQoS{Port: "Ethernet0", PFCEnable: []int{3, 4}})
	if _, ok := lossless[3]; !ok || !known || len(lossy) != 1 {
		t.Errorf("lossless %v lossy %v known %v: want PG 3 lossless, PG 0 alone lossy", lossless, lossy, known)
	}
}

// A name a row gives is judged only against a table the config holds:
// SONiC's rendered qos.json names buffers.json's profiles and pools, and a
// fragment without BUFFER_PROFILE says nothing of them; "NULL" names none.
// Of the global row orchagent resolves dscp_to_tc_map alone.
func TestMissingRefs(t *testing.T) {
	db, err := Parse("frag", []byte(`{
"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE_UPLNK", "tc_to_pg_map": "AZURE", "pfc_enable": "3,4"},
  "global": {"dscp_to_tc_map": "AZURE", "tc_to_pg_map": "GLOBAL_PG"}},
"TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"3": "3"}},
"DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}},
"BUFFER_PG": {"Ethernet0|3-4": {"profile": "pg_lossless_100000_5m_profile"}, "Ethernet0|0": {"profile": "NULL"}}
}`))
	if err != nil {
		t.Fatal(err)
	}
	refs := db.MissingRefs()
	if len(refs) != 1 || refs[0].Table != "PORT_QOS_MAP" || refs[0].Field != "dscp_to_tc_map" || refs[0].To != "DSCP_TO_TC_MAP" || refs[0].At.Line != 2 {
		t.Errorf("missing refs %+v, want PORT_QOS_MAP|Ethernet0 dscp_to_tc_map alone, at line 2", refs)
	}
}

// NVIDIA's SONiC documentation example names pfc_to_pg_map AZURE (3 → 3,
// 4 → 4): class 3's pause follows PG 3, the PG it is counted in, and PG 3
// is named by priority 3 alone; class 1, counted in PG 0, has no entry.
func TestClassPathPFCToPG(t *testing.T) {
	db := readDB(t, "../../testdata/corpus/sonic/sonic-configdb-dscp-pfc-maps-nvidia-doc-new-cfg.json")
	pq := portQoS(db, "Ethernet0")
	p := db.ClassPath(pq, 3)
	if !p.PFCToPGKnown || !p.PausePGKnown || p.PausePG != 3 || p.PausePGAt.Line != 84 || !slices.Equal(p.PGPauses, []int{3}) || len(p.PGPausesAt) != 1 || p.PGPausesAt[0].Line != 84 {
		t.Errorf("class 3: %+v, want pause of priority 3 from PG 3 at line 84, PG 3 named by priority 3 alone", p)
	}
	if p := db.ClassPath(pq, 1); !p.PFCToPGKnown || p.PausePGKnown || p.PG != 0 || len(p.PGPauses) != 0 {
		t.Errorf("class 1: %+v, want PG 0, no entry, no priority naming PG 0", p)
	}
	if p := db.ClassPath(PortQoS{Port: "EthernetX"}, 3); p.PFCToPGKnown || p.PausePGKnown {
		t.Errorf("no maps: %+v, want pfc_to_pg_map unknown", p)
	}
}
