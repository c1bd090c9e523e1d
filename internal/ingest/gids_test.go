package ingest

import "testing"

func TestShowGIDsIssue1131(t *testing.T) {
	g := nicArtifact[*ShowGIDs](t, nicReadCorpus(t, "ethtool/show-gids-h100-gid0-3-issue1131.txt"))
	if len(g.Entries) != 8 || g.Found != -1 {
		t.Fatalf("%d entries, found %d", len(g.Entries), g.Found)
	}
	want := []struct {
		dev   string
		idx   int
		ver   string
		ipv4  string
		class GIDClass
	}{
		{"mlx5_0", 0, "v1", "", GIDLinkLocal}, {"mlx5_0", 1, "v2", "", GIDLinkLocal},
		{"mlx5_0", 2, "v1", "11.0.0.72", GIDIPv4}, {"mlx5_0", 3, "v2", "11.0.0.72", GIDIPv4},
		{"mlx5_1", 0, "v1", "", GIDLinkLocal}, {"mlx5_1", 3, "v2", "11.0.0.73", GIDIPv4},
	}
	for _, w := range want {
		found := false
		for _, e := range g.Entries {
			if e.Device == w.dev && e.Index == w.idx {
				found = true
				c, _ := ClassifyGID(e.GID)
				if e.Version != w.ver || e.IPv4 != w.ipv4 || c != w.class || e.Port != 1 {
					t.Errorf("%s[%d] = %+v (class %v)", w.dev, w.idx, e, c)
				}
			}
		}
		if !found {
			t.Errorf("no %s[%d]", w.dev, w.idx)
		}
	}
	if g.Entries[3].Netdev != "ens3np0" || g.Entries[7].Netdev != "ens2np0" {
		t.Errorf("netdevs %q %q", g.Entries[3].Netdev, g.Entries[7].Netdev)
	}
}

func TestShowGIDsNoNetdevAndCount(t *testing.T) {
	g := nicArtifact[*ShowGIDs](t, nicReadCorpus(t, "ethtool/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt"))
	if len(g.Entries) != 5 || g.Found != 5 {
		t.Fatalf("%d entries, found %d", len(g.Entries), g.Found)
	}
	last := g.Entries[4]
	if last.Device != "mlx5_1" || last.Netdev != "" || last.Version != "v1" || last.IPv4 != "" {
		t.Errorf("row without netdev: %+v", last)
	}
	if g.Entries[3].IPv4 != "192.168.6.132" || g.Entries[3].Netdev != "mce0" {
		t.Errorf("row 3 %+v", g.Entries[3])
	}
}

func TestShowGIDsTabsAndContainers(t *testing.T) {
	// synthetic: tab-separated rows starting at index 4 (container), an
	// IPv6 RoCEv2 GID, and junk that must not parse.
	in := "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n" +
		"mlx5_4\t1\t4\t0000:0000:0000:0000:0000:ffff:0a00:0105\t10.0.1.5  \tv1\tnet1\n" +
		"mlx5_4\t1\t5\t0000:0000:0000:0000:0000:ffff:0a00:0105\t10.0.1.5  \tv2\tnet1\n" +
		"mlx5_4\t1\t6\tfd00:0000:0000:0000:0000:0000:0000:0005\t\tv2\tnet1\n" +
		"mlx5_4 1 x fe80::1 v1\nmlx5_4 1 7 nonsense v2\n"
	g := nicArtifact[*ShowGIDs](t, nicReadText(t, "synthetic-gids", in))
	if len(g.Entries) != 3 {
		t.Fatalf("%d entries", len(g.Entries))
	}
	if e := g.Entries[1]; e.Index != 5 || e.Version != "v2" || e.IPv4 != "10.0.1.5" || e.Netdev != "net1" {
		t.Errorf("%+v", e)
	}
	if c, _ := ClassifyGID(g.Entries[2].GID); c != GIDIPv6 {
		t.Errorf("fd00 class %v", c)
	}
}

func TestClassifyGID(t *testing.T) {
	for in, want := range map[string]GIDClass{
		"fe80::ac0:ebff:feda:1cfb": GIDLinkLocal, "fe80:0000:0000:0000:0ac0:ebff:feda:1cfb": GIDLinkLocal,
		"::ffff:200.0.209.6": GIDIPv4, "0000:0000:0000:0000:0000:ffff:c800:d106": GIDIPv4,
		"0000:0000:0000:0000:0000:0000:0000:0000": GIDZero, "fd00::5": GIDIPv6, "10.0.0.1": GIDUnknown, "x": GIDUnknown,
	} {
		if got, _ := ClassifyGID(in); got != want {
			t.Errorf("ClassifyGID(%q) = %v, want %v", in, got, want)
		}
	}
	if _, v4 := ClassifyGID("0000:0000:0000:0000:0000:ffff:c800:d106"); v4 != "200.0.209.6" {
		t.Errorf("v4 %q", v4)
	}
}

// Huawei's `hiroce3 gids` (hinic3/hrn3 NICs) prints the GID table in its
// own column order; it was "in no format rocelab recognises". Its hrn3
// table has v2 rows only: the IPv4 GID is index 1, not the 3 of mlx5.
func TestHiroceGIDsCorpus(t *testing.T) {
	g := corpusAs[*ShowGIDs](t, "ethtool/hiroce3-gids-huawei-hrn3-v2-only-index1-ipv4.txt", KindShowGIDs)
	if len(g.Entries) != 6 {
		t.Fatalf("%d entries, want 6: %+v", len(g.Entries), g.Entries)
	}
	e := g.Entries[1]
	if e.Device != "hrn3_bond_0" || e.Netdev != "bond0" || e.Port != 1 || e.Index != 1 || e.Version != "v2" || e.IPv4 != "27.105.180.3" {
		t.Errorf("hrn3 row %+v", e)
	}
	if e := g.Entries[4]; e.Device != "mlx5_1" || e.Index != 0 || e.Version != "v1" || e.IPv4 != "" {
		t.Errorf("mlx5_1 row %+v", e)
	}
}
