package doctor

import (
	"strings"
	"testing"
)

// SYNTHETIC `show buffer information` output: the profiles are the 100G rows
// of NVIDIA's static table for the SN2700 (sonic-buildimage
// device/mellanox/x86_64-mlnx_msn2700-r0/ACS-MSN2700/pg_profile_lookup.ini:
// 40 m xoff 38912, 300 m xoff 104448), a dynamic profile sized by the lua
// for Spectrum-1 at 40 m (48128), and an invented 5 m profile of 16384 B.
// The floor at 100G / 40 m is 1024 + (9100 + 5050.5 + 819.2 + 25216) →
// 41984 B (no cells); with the static tables' 3.8 KiB peer response in
// place of the IEEE budget, 20480 B. So the static 40 m row is short only
// of the IEEE budget (info), the 5 m one of both (warn: 16384 B static,
// 36864 B IEEE), and the others hold enough.
func TestProfileHeadroomShort(t *testing.T) {
	profile := func(name, xoff string) []string {
		return []string{"Profile: " + name, "----------  ---------------------", "dynamic_th  0", "pool        ingress_lossless_pool",
			"xon         19456", "xoff        " + xoff, "----------  ---------------------", ""}
	}
	lines := []string{"admin@leaf1:~$ show buffer information"}
	lines = append(lines, profile("pg_lossless_100000_40m_profile", "38912")...)
	lines = append(lines, profile("pg_lossless_100000_300m_profile", "104448")...)
	lines = append(lines, profile("pg_lossless_100000_40m_mtu4096_profile", "48128")...)
	lines = append(lines, profile("pg_lossless_100000_5m_profile", "12288")...)
	fs := synthFindings(t, Options{}, lines...)
	nicMustFind(t, fs, "switch.headroom.short", Info, "xoff 38912 B covers the 20480 B", "not the 41984 B of the IEEE budget")
	nicMustFind(t, fs, "switch.headroom.short", Warn, "xoff 12288 B is below the 16384 B even a peer", "the 36864 B of SONiC's formula")
	if n := countID(fs, "switch.headroom.short"); n != 2 {
		t.Errorf("%d switch.headroom.short findings, want 2 (the 300 m and the lua-sized profiles hold enough)", n)
	}
}

// SYNTHETIC, in mmuconfig's multi-ASIC format (scripts/mmuconfig: "Profile
// for namespace asicN: NAME", as sonic-mgmt#20422 prints a 400G 50 m
// lossless profile): a lossless profile's xoff short of the formula is
// judged, named with its namespace.
func TestMultiASICProfileHeadroom(t *testing.T) {
	text := strings.Join([]string{
		"Profile for namespace asic1: pg_lossless_400000_50m_profile",
		"----------  ---------------------",
		"dynamic_th  -5",
		"pool        ingress_lossless_pool",
		"size        19456",
		"xoff        10240",
		"xon         19456",
		"----------  ---------------------",
	}, "\n") + "\n"
	fs := Diagnose([]string{"-"}, strings.NewReader(text), Options{}).Findings
	nicMustFind(t, fs, "switch.headroom.short", Warn, "asic1 pg_lossless_400000_50m_profile")
}

// SYNTHETIC, in watermarkstat's multi-ASIC title form ("... occupancy:
// (Namespace asic1)"): a pool watermark joins the size of its own ASIC's
// pool in mmuconfig's multi-ASIC output (sonic-utilities' test vector),
// not a pool of that name on another ASIC.
func TestMultiASICPoolWatermarkJoin(t *testing.T) {
	text := strings.Join([]string{
		"admin@sonic:~$ show buffer_pool watermark -n asic1",
		"Shared pool maximum occupancy: (Namespace asic1)",
		"                 Pool     Bytes",
		"---------------------  --------",
		" egress_lossless_pool  13000000",
	}, "\n") + "\n"
	rep := Diagnose([]string{nicTestdata("corpus/switch/sonic-mmuconfig-multiasic-pool-profile-for-namespace-sonic-utilities.txt"), "-"}, strings.NewReader(text), Options{})
	nicMustFind(t, rep.Findings, "switch.buffer.pool", Warn, "asic1 egress_lossless_pool: shared buffer peaked at")
	// asic0 has no egress_lossless_pool: asic1's size is not taken for it.
	rep = Diagnose([]string{nicTestdata("corpus/switch/sonic-mmuconfig-multiasic-pool-profile-for-namespace-sonic-utilities.txt"), "-"}, strings.NewReader(strings.ReplaceAll(text, "asic1", "asic0")), Options{})
	if got := nicFind(rep.Findings, "switch.buffer.pool"); len(got) != 0 {
		t.Errorf("joined across ASICs:\n%s", nicTitles(rep.Findings))
	}
}
