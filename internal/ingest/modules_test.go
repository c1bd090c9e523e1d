package ingest

import (
	"slices"
	"strings"
	"testing"
)

// lsmod read from real pastes: a grep's row of nvidia_peermem beside
// NCCL's lines; two greps that printed nothing before the next prompt;
// a grep that printed nothing before a bare "#" prompt. Before, none of
// these inputs was recognised as lsmod.
func TestModulesCorpus(t *testing.T) {
	m := nicArtifact[*Modules](t, nicReadCorpus(t, "modules/lsmod-peermem-loaded-nccl-gdr-disabled-nccl1537.txt"))
	if len(m.Listings) != 1 {
		t.Fatalf("listings %+v", m.Listings)
	}
	l := m.Listings[0]
	if l.Evidence.Line != 10 || l.Filter == nil || !slices.Equal(l.Filter.Alternatives, []string{"peermem"}) || len(l.Modules) != 1 ||
		l.Modules[0].Name != "nvidia_peermem" || l.Modules[0].Evidence.Line != 11 || !l.Shows("nvidia_peermem") || l.Shows("nv_peer_mem") {
		t.Errorf("listing %+v", l)
	}

	m = nicArtifact[*Modules](t, nicReadCorpus(t, "modules/lsmod-grep-peermem-nv-peer-mem-empty-nccl988.txt"))
	if len(m.Listings) != 2 || m.Listings[0].Host != "gpu3" || len(m.Listings[0].Modules)+len(m.Listings[1].Modules) != 0 ||
		!m.Listings[0].Shows("nvidia_peermem") || !m.Listings[1].Shows("nv_peer_mem") || m.Listings[1].Shows("nvidia_peermem") {
		t.Errorf("listings %+v", m.Listings)
	}

	m = nicArtifact[*Modules](t, nicReadCorpus(t, "modules/lsmod-grep-nv-peer-empty-modinfo-nvpeermemory46.txt"))
	if len(m.Listings) != 1 || m.Listings[0].Evidence.Line != 3 || len(m.Listings[0].Modules) != 0 || !m.Listings[0].Shows("nv_peer_mem") {
		t.Errorf("listings %+v", m.Listings)
	}
}

// Shapes: a whole lsmod under its header shows every module; /proc/modules
// rows are read without a command; grep -E alternatives and -i; a
// pattern with other regular expression syntax is not judged; a grep cut
// off by prose, or lsmod named in prose, is no listing; a row with too
// many columns ends a listing. Synthetic.
func TestModulesShapes(t *testing.T) {
	read := func(lines ...string) *Modules {
		t.Helper()
		res := nicReadText(t, "m.txt", strings.Join(lines, "\n"))
		for _, a := range res.Artifacts {
			if m, ok := a.(*Modules); ok {
				return m
			}
		}
		return nil
	}
	m := read("[root@gpu01 ~]# lsmod", "Module                  Size  Used by", "nvidia_uvm           1437696  0",
		"mlx5_ib               434176  0", "ib_core               491520  2 mlx5_ib,ib_uverbs", "[root@gpu01 ~]# uptime")
	if m == nil || len(m.Listings) != 1 || m.Listings[0].Filter != nil || len(m.Listings[0].Modules) != 3 ||
		!slices.Equal(m.Listings[0].Modules[2].Users, []string{"mlx5_ib", "ib_uverbs"}) || !m.Listings[0].Shows("nv_peer_mem") || m.Listings[0].Host != "gpu01" {
		t.Fatalf("whole lsmod %+v", m)
	}
	m = read("nvidia_peermem 16384 0 - Live 0x0000000000000000 (OE)")
	if m == nil || len(m.Listings) != 1 || m.Listings[0].Modules[0].Name != "nvidia_peermem" {
		t.Fatalf("/proc/modules %+v", m)
	}
	m = read("$ lsmod | grep -Ei 'NVIDIA|mlx5' | sort", "mlx5_core 2064384 1 mlx5_ib", "$")
	if m == nil || !m.Listings[0].Filter.Fold || !m.Listings[0].Shows("nvidia_peermem") || m.Listings[0].Shows("nv_peer_mem") {
		t.Fatalf("grep -Ei %+v", m.Listings[0].Filter)
	}
	m = read("$ lsmod | grep 'nv.*peer'", "$")
	if m == nil || !m.Listings[0].Filter.Unread || m.Listings[0].Shows("nvidia_peermem") {
		t.Fatalf("regex %+v", m)
	}
	m = read("$ lsmod | grep -w nvidia", "nvidia              56860672  1 nvidia_peermem", "$")
	if m == nil || !m.Listings[0].Filter.Word || m.Listings[0].Shows("nvidia_peermem") || !m.Listings[0].Shows("nvidia") {
		t.Fatalf("grep -w %+v", m.Listings[0].Filter)
	}
	for _, cmd := range []string{"$ lsmod | grep -v peermem", "$ lsmod | grep -x nvidia_peermem", "$ lsmod | grep --invert-match peermem"} {
		m = read(cmd, "mlx5_core 2064384 1 mlx5_ib", "$")
		if m == nil || !m.Listings[0].Filter.Unread || m.Listings[0].Shows("nvidia_peermem") {
			t.Fatalf("%s: %+v", cmd, m)
		}
	}
	if m = read("$ lsmod | grep peermem", "it printed nothing", "I also ran `lsmod | grep nv` with nothing", "$"); m != nil {
		t.Errorf("prose read as lsmod: %+v", m.Listings)
	}
}

func FuzzModules(f *testing.F) {
	nicFuzz(f, NewModulesParser, nicSeeds("corpus/modules/*.txt"), func(t *testing.T, a Artifact, n int) {
		m := a.(*Modules)
		if len(m.Listings) > maxModuleListings {
			t.Fatalf("%d listings", len(m.Listings))
		}
		for _, l := range m.Listings {
			nicCheckEvidence(t, l.Evidence, n)
			if len(l.Modules) == 0 && l.Filter == nil || len(l.Modules) > maxListedModules {
				t.Fatalf("listing %+v", l)
			}
			for _, mod := range l.Modules {
				nicCheckEvidence(t, mod.Evidence, n)
				if !isModuleName(mod.Name) {
					t.Fatalf("module %+v", mod)
				}
			}
		}
	})
}
