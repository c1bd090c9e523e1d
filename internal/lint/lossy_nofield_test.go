package lint

import (
	"os"
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

// A SKU whose qos.json.j2 writes PORT_QOS_MAP rows without pfc_enable
// (sonic-buildimage's Nexthop NH-4010) runs every class lossy as surely as
// one that writes it empty: orchagent enables PFC on no priority. With no
// buffer profile keeping xoff and no WRED profile anywhere, RoCE has
// neither PFC nor ECN; lint said nothing of it.
func TestLossyByDesignWithoutPFCField(t *testing.T) {
	const file = "testdata/bi-nh4010-128x400g-qos-buffers-render-t1.json"
	rep := lintFiles(t, file)
	if len(rep.Findings) != 1 || rep.Findings[0].ID != "qos.lossy.by_design" || rep.Findings[0].Severity != doctor.Warn {
		t.Fatalf("findings %v, want qos.lossy.by_design warn alone", ids(rep))
	}
	f := rep.Findings[0]
	for _, want := range []string{"no PORT_QOS_MAP row writes pfc_enable", "no buffer profile keeps PFC headroom", "lands in class 3", "queue 3 has no WRED/ECN profile"} {
		if !strings.Contains(f.Title, want) {
			t.Errorf("title %q lacks %q", f.Title, want)
		}
	}
	// The evidence names the first port's row, where pfc_enable belongs.
	named := false
	for _, e := range f.Evidence {
		named = named || strings.Contains(e.Text, `"Ethernet0": {`)
	}
	if !named {
		t.Errorf("evidence %v does not name PORT_QOS_MAP's Ethernet0 row", f.Evidence)
	}
	// One port writing pfc_enable makes it no design: the other rules judge it.
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), `"tc_to_pg_map": "NH_DEFAULT_TC_TO_PRI_GROUP_MAP"`, `"tc_to_pg_map": "NH_DEFAULT_TC_TO_PRI_GROUP_MAP", "pfc_enable": "3"`, 1)
	for _, f := range lintFiles(t, tempFile(t, "config_db.json", text)).Findings {
		if f.ID == "qos.lossy.by_design" {
			t.Errorf("pfc_enable 3 on one port: %s", f.Title)
		}
	}
}
