package ingest

import "testing"

// The pause counters of `show interface(s)` blocks and of Junos `show
// interfaces extensive`'s MAC statistics, real outputs each (testdata/
// corpus/switch, with their sources): a row per port and direction over
// all priorities, marked Link, on the counter's own line; an output
// discard's line is its own, not the input discard's.
func TestSwitchIfacePause(t *testing.T) {
	type row struct {
		port   string
		dir    Dir
		frames uint64
		line   int
	}
	for _, c := range []struct {
		file string
		want []row
	}{
		{"nxos-show-interface-crc-2211122-rx-pause-122-tx-pause-69-ntctemplates.txt", []row{{"Ethernet1/1", RX, 122, 38}, {"Ethernet1/1", TX, 69, 46}}},
		{"nxos-show-interface-fex-rx-pause-504222-output-discard-28m-yandexnoc.txt", []row{{"Ethernet1/1/1", RX, 39027, 32}, {"Ethernet1/1/1", TX, 0, 39}, {"Ethernet1/1/3", RX, 504222, 108}}},
		{"eos-show-interfaces-pause-0-ntctemplates.txt", []row{{"Ethernet1", RX, 0, 0}, {"Ethernet1", TX, 0, 0}}},
		{"junos-show-interfaces-extensive-ge-0-0-0-mac-pause-0-genieparser.txt", []row{{"ge-0/0/0", RX, 0, 69}, {"ge-0/0/0", TX, 0, 69}}},
	} {
		s := switchCorpus(t, "switch/"+c.file)
		for _, w := range c.want {
			found := false
			for _, p := range s.PFC {
				if p.Port != w.port || p.Dir != w.dir || !p.Link {
					continue
				}
				found = true
				if p.Prio != AllPrios || p.Frames != w.frames || w.line > 0 && p.Evidence.Line != w.line {
					t.Errorf("%s: %s dir %d: %+v, want %d frames on line %d", c.file, w.port, w.dir, p, w.frames, w.line)
				}
			}
			if !found {
				t.Errorf("%s: no pause row for %s dir %d in %+v", c.file, w.port, w.dir, s.PFC)
			}
		}
	}
	s := switchCorpus(t, "switch/nxos-show-interface-fex-rx-pause-504222-output-discard-28m-yandexnoc.txt")
	if len(s.Ports) != 8 || s.Ports[0].TxDrop != 28126154 || s.Ports[0].TxEvidence.Line != 38 {
		t.Errorf("ports %+v", s.Ports)
	}
}
