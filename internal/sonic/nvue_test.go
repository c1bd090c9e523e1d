package sonic

import (
	"os"
	"testing"

	"rocelab/internal/nvue"
)

func nvueDB(t testing.TB, name string, parse func(string, []byte) (*nvue.Config, error)) *ConfigDB {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := parse(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return FromNVUE(c)
}

// TestFromNVUE checks the rows the user guide's `nv show qos roce` and its
// `nv set` list (RoCE moved to switch priority 2, which drains into class
// 3) become: DSCP → switch priority, PFC on switch priorities, and each
// switch priority's queue carrying its traffic class's ECN and scheduler.
func TestFromNVUE(t *testing.T) {
	db := nvueDB(t, "cl515-nv-show-qos-roce-single-ipool.txt", nvue.ParseShowRoCE)
	m, ok := db.NumMap("DSCP_TO_TC_MAP", "default-global")
	if !ok || m.To[26] != 3 || m.To[48] != 6 || m.To[0] != 0 || m.At[26].Line != 30 {
		t.Fatalf("DSCP map %v (26 at line %d)", m.To, m.At[26].Line)
	}
	pq := db.PortQoSMaps()
	if len(pq) != 1 || pq[0].Port != "default-global" || len(pq[0].PFCEnable) != 1 || pq[0].PFCEnable[0] != 3 || pq[0].PFCEnableAt.Line != 7 {
		t.Errorf("PORT_QOS_MAP %+v", pq)
	}
	var wred, strict []int
	for _, q := range db.Queues() {
		if q.WREDProfile.Text != "" {
			w, _ := db.WREDProfile(q.WREDProfile.Text)
			if w.Min != 149996 || w.Max != 1499464 || w.Prob != 100 || w.ECN.Text != "ecn_all" || w.GreenEnable.Text != "false" {
				t.Errorf("queue %v: %+v", q.Queues, w)
			}
			wred = append(wred, q.Queues...)
		}
		if typ, ok := db.Field("SCHEDULER", q.Scheduler.Text, "type"); ok && typ.Text == "STRICT" {
			strict = append(strict, q.Queues...)
		}
	}
	// ECN on classes 0 and 3: switch priorities 0-2, 4, 5 and 7 drain
	// into class 0, 3 into 3; class 6 (priority 6) is strict.
	if len(wred) != 7 || len(strict) != 1 || strict[0] != 6 || !db.Spectrum() {
		t.Errorf("queues with ECN %v, strict %v", wred, strict)
	}

	db = nvueDB(t, "cl515-nv-set-roce-sp2.txt", nvue.ParseSet)
	m, _ = db.NumMap("DSCP_TO_TC_MAP", "default-global")
	pq = db.PortQoSMaps()
	if m.To[26] != 2 || m.To[27] != 3 || len(pq) != 1 || len(pq[0].PFCEnable) != 1 || pq[0].PFCEnable[0] != 2 {
		t.Errorf("sp2: DSCP 26 → %d, PFC %+v", m.To[26], pq)
	}
	if _, lossy := db.LossyByDesign(); lossy {
		t.Error("sp2 read as lossy by design")
	}
}

// FuzzFromNVUE writes whatever the NVUE readers accept as rows, and reads
// them back with the accessors lint uses: no panic.
func FuzzFromNVUE(f *testing.F) {
	for _, n := range []string{"cl515-nv-show-qos-roce-single-ipool.txt", "cl515-nv-set-roce-sp2.txt"} {
		data, err := os.ReadFile("testdata/" + n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, parse := range []func(string, []byte) (*nvue.Config, error){nvue.ParseYAML, nvue.ParseSet, nvue.ParseShowRoCE} {
			c, err := parse("f", data)
			if err != nil {
				continue
			}
			db := FromNVUE(c)
			for _, pq := range db.PortQoSMaps() {
				db.NumMap("DSCP_TO_TC_MAP", pq.DSCPToTC.Text)
			}
			for _, q := range db.Queues() {
				db.WREDProfile(q.WREDProfile.Text)
			}
			db.LossyByDesign()
		}
	})
}
