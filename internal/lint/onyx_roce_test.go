package lint

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/doctor"
	"rocelab/internal/nxos"
	"rocelab/internal/onyx"
)

// TestOnyxRoCECommand: Onyx's one-command RoCE setup is judged as `show
// roce` prints it (NVIDIA Onyx User Manual 3.10, "RoCE Commands"): `roce`
// is trust L3, PFC on switch priority 3 and ECN on traffic class 3 from
// 150 to 1500 KB, sound for DSCP 26; `roce lossy` is lossy by design with
// ECN on RoCE's queue; a running-config without QoS is a whole
// configuration on Onyx's defaults. Before, lint refused each as no
// configuration. The configurations are SYNTHETIC, in the layout of
// Onyx's `show running-config`.
func TestOnyxRoCECommand(t *testing.T) {
	const head = "##\n## Running database \"initial\"\n## Product release: 3.10.4006\n##\n"
	for _, c := range []struct{ name, body, want string }{
		{"roce-synthetic.cfg", "   roce\n   interface ethernet 1/1-1/2 speed 100G force\n", ""},
		{"roce-lossy-synthetic.cfg", "   roce lossy\n   interface ethernet 1/1-1/2 speed 100G force\n", "qos.lossy.by_design"},
		{"noqos-synthetic.cfg", "   hostname sw1\n   interface ethernet 1/1 speed 100G force\n", "config.qos.absent"},
	} {
		var ids []string
		var titles string
		for _, fd := range lintWritten(t, map[string]string{c.name: head + c.body, "nccl-synthetic.env": "NCCL_IB_TC=106\n"}) {
			ids = append(ids, fd.ID)
			titles += fd.Title + "\n"
		}
		if strings.Join(ids, " ") != c.want {
			t.Errorf("%s: %v, want %q\n%s", c.name, ids, c.want, titles)
		}
		if c.want == "config.qos.absent" && !strings.Contains(titles, "the whole configuration (## Running database") {
			t.Errorf("%s: not said to be whole:\n%s", c.name, titles)
		}
		if c.want == "qos.lossy.by_design" && !strings.Contains(titles, "marks ECN from 153600 to 1536000 bytes") {
			t.Errorf("%s: ECN on RoCE's queue not named:\n%s", c.name, titles)
		}
	}
	// A port's own trust wins over what `roce` sets: L2 on Eth1/2 leaves
	// RoCE's class to the frame's priority there, still paused on 3.
	fs := lintWritten(t, map[string]string{"roce-l2-synthetic.cfg": head + "   roce\n   interface ethernet 1/2 qos trust L2\n", "nccl-synthetic.env": "NCCL_IB_TC=106\n"})
	if slices.ContainsFunc(fs, func(f doctor.Finding) bool { return f.ID == "qos.pfc.disabled" }) {
		t.Errorf("roce with a port trusting L2: %v", fs)
	}
}

// TestNoRoCESwitchNotJudged: an InfiniBand switch's MLNX-OS config prints
// Onyx's `## Running database` header and a Cisco MDS's NX-OS's
// `!Command: show running-config`; neither carries RoCE, so each is
// refused as not judged at its InfiniBand or Fibre Channel line, not told
// that RoCE crossing it is dropped. An Onyx or Nexus configuration with
// Ethernet ports is still read. The configurations are SYNTHETIC, in the
// layouts of the switches' `show running-config`.
func TestNoRoCESwitchNotJudged(t *testing.T) {
	const ib = "##\n## Running database \"initial\"\n## Product release: 3.9.1014\n##\n   hostname ib-spine1\n   interface ib 1/1 speed hdr force\n   ib sm\n"
	const mds = "!Command: show running-config\n!Time: Mon Mar  4 10:00:00 2024\n\nversion 8.4(2c)\nfeature npiv\nvsan database\n  vsan 10\ninterface fc1/1\n  no shutdown\n"
	dir := t.TempDir()
	for _, c := range []struct{ name, text, want string }{
		{"ib-synthetic.cfg", ib, `ib-synthetic.cfg:6:4: "interface ib 1/1 speed hdr force": an InfiniBand switch's MLNX-OS configuration`},
		{"mds-synthetic.cfg", mds, `mds-synthetic.cfg:6:1: "vsan database": a Cisco MDS Fibre Channel switch's configuration`},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Lint([]string{p}, nil); !errors.Is(err, errNotConfig) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "not judged") {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, _, ok := onyx.InfiniBand([]byte(ib + "   interface ethernet 1/1 speed 100G force\n")); ok {
		t.Error("a gateway's config with Ethernet ports taken for InfiniBand's")
	}
	if _, _, ok := nxos.MDS([]byte(mds + "interface Ethernet1/1\n  priority-flow-control mode on\n")); ok {
		t.Error("a Nexus with unified FC ports taken for an MDS")
	}
}
