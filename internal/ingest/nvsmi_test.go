package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nvidia-smi -q of eight H100s (leptonai/gpud's testdata): every GPU's
// block with its model, performance state, Gen5 x16 link and PCIe replay
// count; the A10's
// "Host Max : N/A" is no garble; the default table gives the GPU, its
// cut name and P-state.
func TestNVSMICorpus(t *testing.T) {
	s := corpusAs[*NVSMI](t, "nvsmi/nvidia-smi-q-h100x8-gen5-x16-gpud.txt", KindNVSMI)
	if s.Driver != "535.161.08" || s.CUDA != "12.2" || s.Evidence.Line != 6 || len(s.GPUs) != 8 || len(s.Garbled) != 0 {
		t.Fatalf("driver %q cuda %q at %d, %d GPUs, garbled %v", s.Driver, s.CUDA, s.Evidence.Line, len(s.GPUs), s.Garbled)
	}
	replays := int64(0) // 67+63+52+43+49+53+82+67, every GPU's since its reset
	for _, g := range s.GPUs {
		replays += g.Replays
		if g.Replays < 43 || g.Rollovers != 0 || g.Replay.Line != g.Evidence.Line+66 {
			t.Errorf("%s: replays %d, rollovers %d at %d", g.BusID, g.Replays, g.Rollovers, g.Replay.Line)
		}
		if g.Model != "NVIDIA H100 80GB HBM3" || g.Cap.GTs != 32 || g.Cap.Width != 16 || g.Sta.GTs != 32 || g.Sta.Width != 16 || g.PState != "P0" || g.Idle {
			t.Errorf("%+v", g)
		}
	}
	if replays != 476 {
		t.Errorf("%d replays", replays)
	}
	if g := s.GPUs[0]; g.BusID != "00000000:19:00.0" || g.Evidence.Line != 10 || g.Cap.Evidence.Line != 65 || g.Sta.Evidence.Line != 66 {
		t.Errorf("first GPU %s at %d, max at %d, current at %d", g.BusID, g.Evidence.Line, g.Cap.Evidence.Line, g.Sta.Evidence.Line)
	}

	s = corpusAs[*NVSMI](t, "nvsmi/nvidia-smi-q-rtx4090x8-idle-gen1-gpud.txt", KindNVSMI)
	idle := 0
	for _, g := range s.GPUs {
		if g.Idle {
			idle++
			if g.Sta.GTs != 2.5 || g.PState != "P8" {
				t.Errorf("idle %+v", g)
			}
		}
	}
	if len(s.GPUs) != 8 || idle != 3 {
		t.Errorf("%d GPUs, %d idle", len(s.GPUs), idle)
	}

	s = corpusAs[*NVSMI](t, "nvsmi/nvidia-smi-q-a10-host-max-na-gpud.txt", KindNVSMI)
	if len(s.GPUs) != 1 || len(s.Garbled) != 0 || s.GPUs[0].Cap.GTs != 16 || s.GPUs[0].Model != "NVIDIA A10" {
		t.Errorf("%+v garbled %v", s.GPUs, s.Garbled)
	}

	s = corpusAs[*NVSMI](t, "nvsmi/nvidia-smi-table-rtx4090-fan-err-gpud.txt", KindNVSMI)
	if s.Driver != "525.125.06" || s.CUDA != "12.0" || len(s.GPUs) != 1 {
		t.Fatalf("driver %q cuda %q, %d GPUs", s.Driver, s.CUDA, len(s.GPUs))
	}
	if g := s.GPUs[0]; g.BusID != "00000000:01:00.0" || g.Model != "NVIDIA GeForce ..." || g.PState != "P5" || g.Idle || g.Cap.Set() {
		t.Errorf("%+v", g)
	}
}

// A width that does not read is reported at its value's column.
func TestNVSMIGarbled(t *testing.T) {
	r := nicReadText(t, "nvidia-smi -q", "GPU 00000000:4C:00.0\n        GPU Link Info\n            Link Width\n                Max                       : 16x\n                Current                   : 16\n")
	s := nicArtifact[*NVSMI](t, r)
	if len(s.Garbled) != 1 || s.Garbled[0].Line != 5 || s.Garbled[0].Col != 45 || s.GPUs[0].Sta.Set() {
		t.Fatalf("garbled %+v, %+v", s.Garbled, s.GPUs)
	}
}

// What nvidia-smi prints for a field it could not read (a GPU fallen off
// the bus, a VM, a field the GPU lacks) is no garble, and leaves the field
// unset; a replay count with digits that do not read is one.
func TestNVSMIUnread(t *testing.T) {
	for _, v := range []string{"N/A", "[N/A]", "Unknown Error", "[Unknown Error]", "[Not Supported]", "ERR!", "[GPU is lost]", "[GPU requires reset]"} {
		r := nicReadText(t, "nvidia-smi -q", "GPU 00000000:4C:00.0\n        GPU Link Info\n            Link Width\n                Max                       : "+v+"\n                Current                   : 16x\n        Replays Since Reset               : "+v+"\n")
		s := nicArtifact[*NVSMI](t, r)
		if g := s.GPUs[0]; len(s.Garbled) != 0 || g.Cap.Set() || g.Sta.Width != 16 || g.Replays != -1 {
			t.Errorf("%q: garbled %+v, %+v", v, s.Garbled, g)
		}
	}
	r := nicReadText(t, "nvidia-smi -q", "GPU 00000000:4C:00.0\n        Replays Since Reset               : 12O\n")
	if s := nicArtifact[*NVSMI](t, r); len(s.Garbled) != 1 || s.Garbled[0].Line != 2 || s.GPUs[0].Replays != -1 {
		t.Errorf("garbled %+v, %+v", s.Garbled, s.GPUs)
	}
}

// pdsh pastes the hosts' lines as they arrive, so two hosts' nvidia-smi
// -q interleave: here the real H100 and RTX 4090 outputs, each line under
// its host's prefix, cut into runs of 37 and 23 lines taken in turn. Each
// GPU is read as from its host's output alone, and named by its host.
func TestNVSMIPdshInterleaved(t *testing.T) {
	rels := [2]string{"nvsmi/nvidia-smi-q-h100x8-gen5-x16-gpud.txt", "nvsmi/nvidia-smi-q-rtx4090x8-idle-gen1-gpud.txt"}
	var hosts [2][]string
	want := map[string]NVSMIGPU{}
	for i, rel := range rels {
		b, err := os.ReadFile(filepath.Join(corpusDir, rel))
		if err != nil {
			t.Fatal(err)
		}
		host := "gpu0" + string(rune('1'+i))
		for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")[1:] { // past the source line
			hosts[i] = append(hosts[i], host+": "+l)
		}
		for _, g := range corpusAs[*NVSMI](t, rel, KindNVSMI).GPUs {
			want[host+" "+g.BusID] = g
		}
	}
	var paste []string
	for i, run := 0, [2]int{37, 23}; len(hosts[0])+len(hosts[1]) > 0; i = 1 - i {
		n := min(run[i], len(hosts[i]))
		paste = append(paste, hosts[i][:n]...)
		hosts[i] = hosts[i][n:]
	}
	s := nicArtifact[*NVSMI](t, nicReadText(t, "pdsh.txt", strings.Join(paste, "\n")+"\n"))
	if len(s.GPUs) != 16 || len(s.Garbled) != 0 {
		t.Fatalf("%d GPUs, garbled %v", len(s.GPUs), s.Garbled)
	}
	for _, g := range s.GPUs {
		w, ok := want[g.Host+" "+g.BusID]
		delete(want, g.Host+" "+g.BusID)
		if !ok || g.Model != w.Model || g.Cap.GTs != w.Cap.GTs || g.Cap.Width != w.Cap.Width || g.Sta.GTs != w.Sta.GTs ||
			g.Sta.Width != w.Sta.Width || g.PState != w.PState || g.Idle != w.Idle || g.Replays != w.Replays || g.Rollovers != w.Rollovers {
			t.Errorf("%s %s: %+v, want %+v", g.Host, g.BusID, g, w)
		}
	}
}

// The clocks' Idle reason Active marks a GPU idle whatever its performance
// state, under either name the section has had; "Not Active" does not.
// SYNTHETIC lines in the layout of the corpus's -q outputs.
func TestNVSMIClocksIdle(t *testing.T) {
	for _, c := range []struct {
		section, idle string
		want          bool
	}{
		{"Clocks Event Reasons", "Active", true},
		{"Clocks Throttle Reasons", "Active", true},
		{"Clocks Event Reasons", "Not Active", false},
	} {
		r := nicReadText(t, "nvidia-smi -q", "GPU 00000000:4C:00.0\n    Performance State                     : P2\n    "+c.section+"\n        Idle                              : "+c.idle+"\n")
		if g := nicArtifact[*NVSMI](t, r).GPUs[0]; g.Idle != c.want || g.PState != "P2" {
			t.Errorf("%s Idle %s: idle %v, state %q", c.section, c.idle, g.Idle, g.PState)
		}
	}
}
