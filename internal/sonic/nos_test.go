package sonic

import (
	"os"
	"strings"
	"testing"

	"rocelab/internal/aoscx"
	"rocelab/internal/eos"
	"rocelab/internal/junos"
	"rocelab/internal/nxos"
	"rocelab/internal/onyx"
	"rocelab/internal/os10"
	"rocelab/internal/trafficconf"
)

// FuzzFromNOS writes whatever the EOS, NX-OS, OS10, AOS-CX, Onyx, Junos and traffic.conf readers accept as
// rows, and reads them back with the accessors lint uses: no panic.
func FuzzFromNOS(f *testing.F) {
	for _, n := range []string{"eos/rocm-arista7388-dcqcn-qos-profile.cfg", "nxos/azurelocal-tor-qos-policy-nexus.cfg", "junos/rocm-qfx5240-dcqcn-class-of-service.conf", "os10/azurestack-s5248f-tor1-running-configuration.cfg", "cumulus-traffic-conf/cl41-nclu-storage-optimized-pfc-traffic.conf", "onyx/netarbiter-mlnxos-dscp-lossless-advanced-buffer.cfg", "../lint/aoscx-dscp26-lossy/bad/leaf-running-config-synthetic.cfg"} {
		data, err := os.ReadFile("../../testdata/corpus/" + n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var dbs []*ConfigDB
		if c, err := eos.Parse("f", data); err == nil {
			dbs = append(dbs, FromEOS(c))
		}
		if c, err := nxos.Parse("f", data); err == nil {
			dbs = append(dbs, FromNXOS(c))
		}
		if c, err := aoscx.Parse("f", data); err == nil {
			dbs = append(dbs, FromAOSCX(c))
		}
		if c, err := os10.Parse("f", data); err == nil {
			dbs = append(dbs, FromOS10(c))
		}
		if c, err := onyx.Parse("f", data); err == nil {
			dbs = append(dbs, FromOnyx(c))
		}
		if c, err := trafficconf.Parse("f", data); err == nil {
			dbs = append(dbs, FromTrafficConf(c))
		}
		if root, err := junos.Parse("f", data); err == nil {
			dbs = append(dbs, FromJunos("f", strings.Split(string(data), "\n"), root))
		}
		for _, db := range dbs {
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

// Onyx's `roce` and `roce lossless` set lossless RoCE up; `roce lossy`
// does not: a configuration (synthetic) with no PFC line and `roce lossy`
// names PFC nowhere, and is lossy by design.
func TestOnyxRoCELossy(t *testing.T) {
	for text, noPFC := range map[string]bool{
		"interface ethernet 1/1 qos trust L3\nroce\n":          false,
		"interface ethernet 1/1 qos trust L3\nroce lossless\n": false,
		"interface ethernet 1/1 qos trust L3\nroce lossy\n":    true,
	} {
		c, err := onyx.Parse("f", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if got := FromOnyx(c).noPFC; got != noPFC {
			t.Errorf("%q: names PFC nowhere %v, want %v", text, got, noPFC)
		}
	}
}

// Onyx's `roce` is read as onyx.Parse reads it: typed at a prompt it is
// set up; `no roce` after it clears it, so the configuration (synthetic)
// writes no ECN and names no lossless class.
func TestOnyxRoCEAsParsed(t *testing.T) {
	for text, want := range map[string]bool{
		"interface ethernet 1/1 qos trust L3\nroce\nno roce\n":                            false,
		"switch (config) # interface ethernet 1/1 qos trust L3\nswitch (config) # roce\n": true,
	} {
		c, err := onyx.Parse("f", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		db := FromOnyx(c)
		if db.noECN == want || db.noPFC == want {
			t.Errorf("%q: writes no ECN %v, names PFC nowhere %v; want both %v", text, db.noECN, db.noPFC, !want)
		}
	}
}

// `roce` alone writes no PFC line: OnyxPFCWritten says so, and the parsed
// configuration is left as its lines wrote it (synthetic).
func TestOnyxRoCEDefaultsOnCopies(t *testing.T) {
	c, err := onyx.Parse("f", []byte("roce\n"))
	if err != nil {
		t.Fatal(err)
	}
	db := FromOnyx(c)
	if on, prios := db.OnyxPFCWritten(); on || prios {
		t.Errorf("OnyxPFCWritten = %v, %v: no PFC line was written", on, prios)
	}
	if len(c.Prios) != 0 || len(c.Interfaces) != 0 {
		t.Errorf("the parsed configuration changed: priorities %v, %d interfaces", c.Prios, len(c.Interfaces))
	}
	if len(db.Tables["PORT_QOS_MAP"]) != 1 {
		t.Errorf("PORT_QOS_MAP %v, want the one port roce sets up", db.Tables["PORT_QOS_MAP"])
	}
}
