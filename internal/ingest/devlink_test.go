package ingest

import (
	"strings"
	"testing"
)

// `devlink health` is read reporter by reporter: the handle, the
// reporter's name, its state and counts, the last dump's date and time
// (the ice paste's wrapped onto the next line by the mail) and the
// `devlink health diagnose` output for it. Real pastes: an E810 port
// reporter in error with its diagnosis, an mlx5 function's four healthy
// reporters, an mlxsw fw_fatal test event, OcteonTX2's recovered errors.
func TestDevlinkHealthCorpus(t *testing.T) {
	ice := nicArtifact[*DevlinkHealth](t, nicReadCorpus(t, "ethtool/devlink-health-ice-e810-port-reporter-error-module-not-present-netdev.txt"))
	if len(ice.Reporters) != 2 || len(ice.Garbled) != 0 {
		t.Fatalf("reporters %+v garbled %v", ice.Reporters, ice.Garbled)
	}
	p := ice.Reporters[1]
	if p.Device != "pci/0000:b1:00.3" || p.Name != "port" || p.State != "error" || p.Errors != 1 || p.Recovers != 0 ||
		p.LastDump != "2024-03-17 09:29:29" || p.Evidence.Line != 9 {
		t.Errorf("port reporter %+v", p)
	}
	if len(ice.Diagnoses) != 1 || ice.Diagnoses[0].Name != "port" || ice.Diagnoses[0].Device != "pci/0000:b1:00.3" || len(ice.Diagnoses[0].Lines) != 4 ||
		!strings.Contains(ice.Diagnoses[0].Lines[1].Text, "Module is not present.") {
		t.Errorf("diagnoses %+v", ice.Diagnoses)
	}

	mlx5 := nicArtifact[*DevlinkHealth](t, nicReadCorpus(t, "ethtool/devlink-health-mlx5-fw-fw-fatal-tx-rx-healthy-netdev.txt"))
	var names []string
	for _, r := range mlx5.Reporters {
		names = append(names, r.Device+" "+r.Name+" "+r.State)
		if r.Errors != 0 || r.Recovers != 0 {
			t.Errorf("%+v", r)
		}
	}
	if got := strings.Join(names, ", "); got != "pci/0000:00:0b.0 fw healthy, pci/0000:00:0b.0 fw_fatal healthy, pci/0000:00:0b.0/1 tx healthy, pci/0000:00:0b.0/1 rx healthy" {
		t.Errorf("reporters %s", got)
	}
	if mlx5.Lines() != 10 {
		t.Errorf("%d lines", mlx5.Lines())
	}

	oct := nicArtifact[*DevlinkHealth](t, nicReadCorpus(t, "ethtool/devlink-health-octeontx2-npa-2872-errors-recovered-kernel-doc.txt"))
	if len(oct.Reporters) != 4 || oct.Reporters[2].Errors != 2871 || oct.Reporters[2].Recovers != 2871 || oct.Reporters[2].AutoRecover != "true" {
		t.Errorf("reporters %+v", oct.Reporters)
	}
}

// iproute2 before late 2019 named the reporter "name tx"; `devlink mon
// health` prefixes each handle; a count that is no number is reported
// where it is, the reporter left out. Synthetic.
func TestDevlinkHealthForms(t *testing.T) {
	d := nicArtifact[*DevlinkHealth](t, nicReadText(t, "dl.txt", "# synthetic\n"+
		"$ devlink mon health\n"+
		"[health,status] pci/0000:07:00.0:\n"+
		"  reporter fw\n"+
		"    state error error 1 recover 0\n"+
		"[health,status] pci/0000:07:00.0:\n"+
		"  reporter fw\n"+
		"    state error error 2 recover 0\n"+
		"$ devlink health show pci/0000:04:00.0 reporter tx\n"+
		"pci/0000:04:00.0:\n"+
		"   name tx\n"+
		"     state healthy error 3 recover 3 grace_period 500 auto_recover true\n"+
		"pci/0000:05:00.0:\n"+
		"  reporter rx\n"+
		"    state healthy error x3 recover 0\n"))
	if len(d.Reporters) != 3 || d.Reporters[1].Errors != 2 || d.Reporters[2].Name != "tx" || d.Reporters[2].Recovers != 3 {
		t.Fatalf("reporters %+v", d.Reporters)
	}
	if len(d.Garbled) != 1 || d.Garbled[0].Line != 15 || d.Garbled[0].Col != 25 || !strings.Contains(d.Garbled[0].Expected, "error count") {
		t.Errorf("garbled %+v", d.Garbled)
	}
}

// pdsh interleaves the hosts' lines: each host's reporter stays under
// its own handle, and a diagnosis under its own command. Synthetic.
func TestDevlinkHealthInterleavedHosts(t *testing.T) {
	d := nicArtifact[*DevlinkHealth](t, nicReadText(t, "dl.txt", "# synthetic\n"+
		"$ pdsh -w gpu[01-02] devlink health show\n"+
		"gpu01: pci/0000:3b:00.0:\n"+
		"gpu02: pci/0000:86:00.0:\n"+
		"gpu01:   reporter fw_fatal\n"+
		"gpu02:   reporter tx\n"+
		"gpu02:     state healthy error 4 recover 4 grace_period 500\n"+
		"gpu01:     state error error 1 recover 0\n"+
		"gpu02:   auto_recover false\n"))
	var got []string
	for _, r := range d.Reporters {
		got = append(got, r.Host+" "+r.Device+" "+r.Name+" "+r.State+" "+r.AutoRecover)
	}
	if s := strings.Join(got, ", "); s != "gpu02 pci/0000:86:00.0 tx healthy false, gpu01 pci/0000:3b:00.0 fw_fatal error " {
		t.Errorf("reporters %s", s)
	}
	if d.Lines() != 7 {
		t.Errorf("%d lines", d.Lines())
	}
}

// Garbled state lines are kept up to the bound the other readers keep.
// Synthetic.
func TestDevlinkHealthGarbledBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("# synthetic\npci/0000:3b:00.0:\n  reporter tx\n")
	for range maxEthtoolGarbled + 10 {
		b.WriteString("    state healthy error x recover 0\n")
	}
	d := nicArtifact[*DevlinkHealth](t, nicReadText(t, "dl.txt", b.String()))
	if len(d.Garbled) != maxEthtoolGarbled {
		t.Errorf("%d garbled", len(d.Garbled))
	}
}

func FuzzDevlinkHealth(f *testing.F) {
	nicFuzz(f, NewDevlinkParser, nicSeeds("corpus/ethtool/devlink-*.txt"), func(t *testing.T, a Artifact, n int) {
		d := a.(*DevlinkHealth)
		if len(d.Reporters) > maxDevlinkReporters || len(d.Diagnoses) > maxDevlinkReporters || len(d.Garbled) > maxEthtoolGarbled {
			t.Fatalf("%d reporters", len(d.Reporters))
		}
		for _, r := range d.Reporters {
			nicCheckEvidence(t, r.Evidence, n)
			if r.State == "" || r.Name == "" || r.Device == "" {
				t.Fatalf("reporter %+v", r)
			}
		}
		for _, g := range d.Diagnoses {
			if len(g.Lines) == 0 || len(g.Lines) > maxDiagnosisLines {
				t.Fatalf("diagnosis %+v", g)
			}
			for _, e := range g.Lines {
				nicCheckEvidence(t, e, n)
			}
		}
		for _, g := range d.Garbled {
			if g.Line < 1 || g.Line > n || g.Col < 1 {
				t.Fatalf("garble %+v", g)
			}
		}
	})
}
