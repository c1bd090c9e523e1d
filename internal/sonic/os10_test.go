package sonic

import (
	"os"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/os10"
)

func fromOS10(t *testing.T, text string) *ConfigDB {
	t.Helper()
	c, err := os10.Parse("tor1.cfg", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return FromOS10(c)
}

func skipped(db *ConfigDB, prefix string) (Value, bool) {
	i := slices.IndexFunc(db.Skipped, func(v Value) bool { return strings.HasPrefix(v.Text, prefix) })
	if i < 0 {
		return Value{}, false
	}
	return db.Skipped[i], true
}

// TestOS10UnappliedQueuing: Azure Stack's S5248F-ON attaches its `wred
// ecn` profile only in policy_q3, which no interface or system qos
// applies, so nothing marks; the note names the random-detect line
// (63:17) and no queue gets the profile. The same config with a host port
// applying policy_q3 marks on that port's queue 3, and the note is gone.
func TestOS10UnappliedQueuing(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/os10/azurestack-s5248f-tor1-running-configuration.cfg")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	db := fromOS10(t, text)
	v, ok := skipped(db, "random-detect ecn in policy-map type queuing policy_q3 (applied by no interface or system qos")
	if !ok || v.Line != 63 || v.Col != 17 {
		t.Errorf("unapplied policy_q3: %+v, %v; want it named at 63:17 among %v", v, ok, db.Skipped)
	}
	if len(db.Queues()) != 0 {
		t.Errorf("queues %v, want none with a WRED profile", db.Queues())
	}

	first := " service-policy output type queuing AZS_SERVICES_ets\n"
	db = fromOS10(t, strings.Replace(text, first, " service-policy output type queuing policy_q3\n", 1))
	if v, ok := skipped(db, "random-detect ecn in policy-map"); ok {
		t.Errorf("policy_q3 applied, still named: %+v", v)
	}
	qs := db.Queues()
	if len(qs) != 1 || qs[0].Key != "ethernet1/1/1|3" {
		t.Fatalf("queues %+v, want ethernet1/1/1|3 alone", qs)
	}
	w, ok := db.WREDProfile(qs[0].WREDProfile.Text)
	if !ok || w.ECN.Text != "ecn_all" || w.Min != 150*1024 || w.Max != 1500*1024 {
		t.Errorf("profile %+v, want ecn_all from 150 to 1500 KB", w)
	}
}

// TestOS10UnattachedWRED (synthetic): a wred profile no queuing class
// attaches is named at its block; in a cut without interfaces an
// unapplied policy's random-detect is named as not judged, as what its
// ports apply is not in the input.
func TestOS10UnattachedWRED(t *testing.T) {
	db := fromOS10(t, "wred ROCE\n random-detect ecn\n!\nclass-map type queuing Q3\n match queue 3\n!\npolicy-map type queuing ETS\n class Q3\n  random-detect OTHER\n")
	if v, ok := skipped(db, "wred ROCE (attached by no queuing class"); !ok || v.Line != 1 || v.Col != 6 {
		t.Errorf("wred ROCE: %+v, %v among %v", v, ok, db.Skipped)
	}
	if v, ok := skipped(db, "random-detect OTHER in policy-map type queuing ETS (no interface in the input)"); !ok || v.Line != 9 {
		t.Errorf("ETS's random-detect: %+v, %v among %v", v, ok, db.Skipped)
	}
}

// TestOS10ChannelMissingTrust: a member of a port-channel the input does
// not hold has its own trust-map, which the port-channel's would replace:
// no DSCP map is judged on it. Synthetic.
func TestOS10ChannelMissingTrust(t *testing.T) {
	db := fromOS10(t, "trust dscp-map ROCE\n qos-group 3 dscp 24-31\n!\ninterface ethernet1/1/3\n channel-group 77 mode active\n trust-map dscp ROCE\n")
	if m, ok := db.Tables["PORT_QOS_MAP"]["ethernet1/1/3"]["dscp_to_tc_map"]; ok {
		t.Errorf("ethernet1/1/3 judged on %v", m)
	}
}
