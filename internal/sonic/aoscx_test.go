package sonic

import (
	"slices"
	"strings"
	"testing"

	"rocelab/internal/aoscx"
)

func fromAOSCX(t *testing.T, text string) *ConfigDB {
	t.Helper()
	c, err := aoscx.Parse("leaf.cfg", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return FromAOSCX(c)
}

// TestFromAOSCX (synthetic): the global trust and threshold profile, an
// interface's override of both, the factory dscp-map (DSCP 26 in local
// priority 3, 46 in 5, 0 in 1) beside a dscp-map entry, PFC only where
// flow-control sends pause, and a threshold profile nothing applies named
// as marking nothing.
func TestFromAOSCX(t *testing.T) {
	db := fromAOSCX(t, strings.Join([]string{
		"qos trust dscp",
		"qos dscp-map 24 local-priority 4",
		"qos threshold-profile ECN",
		"    queue 3 action ecn all min-threshold 150 kbytes max-threshold 1500 kbytes",
		"qos threshold-profile SPARE",
		"    queue 5 action ecn all threshold 40 kbytes",
		"qos threshold-profile OWN",
		"    queue 3 action ecn all min-threshold 100 kbytes max-threshold 200 kbytes",
		"apply qos threshold-profile ECN",
		"interface 1/1/1",
		"    flow-control priority rxtx 3",
		"interface 1/1/2",
		"    qos trust cos",
		"    apply qos threshold-profile OWN",
		"    flow-control priority rx 3",
	}, "\n"))
	pq := map[string]PortQoS{}
	for _, p := range db.PortQoSMaps() {
		pq[p.Port] = p
	}
	if p := pq["1/1/1"]; !slices.Equal(p.PFCEnable, []int{3}) || p.PFCEnableAt.Line != 11 || p.DSCPToTC.Text != "qos dscp-map" {
		t.Errorf("1/1/1: %+v", p)
	}
	if p := pq["1/1/2"]; len(p.PFCEnable) != 0 || p.DSCPToTC.Text != "" {
		t.Errorf("1/1/2 (cos trust, rx only): %+v", p)
	}
	m, ok := db.NumMap("DSCP_TO_TC_MAP", "qos dscp-map")
	if !ok {
		t.Fatal("no DSCP map")
	}
	for d, lp := range map[int]int{26: 3, 46: 5, 0: 1, 8: 0, 24: 4} {
		if m.To[d] != lp {
			t.Errorf("DSCP %d in local priority %d, want %d", d, m.To[d], lp)
		}
	}
	want := map[string]int64{"1/1/1|3": 150 * 1024, "1/1/2|3": 100 * 1024}
	for _, q := range db.Queues() {
		w, ok := db.WREDProfile(q.WREDProfile.Text)
		if !ok || w.Min != want[q.Key] || w.ECN.Text != "ecn_all" {
			t.Errorf("%s: %+v, want ECN from %d", q.Key, w, want[q.Key])
		}
		delete(want, q.Key)
	}
	if len(want) != 0 {
		t.Errorf("no ECN on %v", want)
	}
	if v, ok := skipped(db, "threshold-profile SPARE queue 5 action ecn (applied neither"); !ok || v.Line != 6 {
		t.Errorf("SPARE: %+v, %v among %v", v, ok, db.Skipped)
	}
	if _, ok := skipped(db, "threshold-profile OWN"); ok {
		t.Errorf("OWN is applied by 1/1/2, named: %v", db.Skipped)
	}
}

// TestFromAOSCXTrustNone (synthetic): with no `qos trust` (none, the
// default) markings are ignored: no DSCP map, and the trust is named.
func TestFromAOSCXTrustNone(t *testing.T) {
	db := fromAOSCX(t, "interface 1/1/1\n    flow-control priority rxtx 3\n")
	if v, ok := skipped(db, "qos trust none"); !ok || v.Line != 1 {
		t.Errorf("trust none: %+v, %v among %v", v, ok, db.Skipped)
	}
	if len(db.Tables["DSCP_TO_TC_MAP"]) != 0 {
		t.Errorf("DSCP map %v", db.Tables["DSCP_TO_TC_MAP"])
	}
}

// TestFromAOSCXGlobalOnly (synthetic): a configuration whose QoS is all
// global (trust and threshold profile applied to every interface, none
// setting its own) is one port the rules judge, not SONiC's "global" key,
// which every per-port rule passes over: so written, lint said nothing of
// it, PFC left off everywhere included.
func TestFromAOSCXGlobalOnly(t *testing.T) {
	db := fromAOSCX(t, "!Version ArubaOS-CX GL.10.13.1000\nqos trust dscp\nqos threshold-profile T\n    queue 3 action ecn min-threshold 100 kbytes max-threshold 1000 kbytes\napply qos threshold-profile T\ninterface 1/1/1\n    mtu 9198\n")
	pqs := db.PortQoSMaps()
	if len(pqs) != 1 || pqs[0].Port == "global" || pqs[0].DSCPToTC.Text != "qos dscp-map" || !pqs[0].HasPFCEnable {
		t.Fatalf("ports %+v, want one judged port with the dscp-map and pfc_enable", pqs)
	}
	if _, lossy := db.LossyByDesign(); !lossy {
		t.Error("a whole configuration naming no PFC, with ECN on queue 3: not read as lossy by design")
	}
}
