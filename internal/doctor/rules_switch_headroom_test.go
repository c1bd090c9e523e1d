package doctor

import "testing"

// SYNTHETIC `show buffer information` output: the profiles are the 100G rows
// of NVIDIA's static table for the SN2700 (sonic-buildimage
// device/mellanox/x86_64-mlnx_msn2700-r0/ACS-MSN2700/pg_profile_lookup.ini:
// 40 m xoff 38912, 300 m xoff 104448) and a dynamic profile sized by the
// lua for Spectrum-1 at 40 m (48128). The floor at 100G / 40 m is
// 1024 + (9100 + 5050.5 + 819.2 + 25216) → 41984 B (no cells), so the
// static 40 m row is short on any ASIC, and the others are not.
func TestProfileHeadroomShort(t *testing.T) {
	profile := func(name, xoff string) []string {
		return []string{"Profile: " + name, "----------  ---------------------", "dynamic_th  0", "pool        ingress_lossless_pool",
			"xon         19456", "xoff        " + xoff, "----------  ---------------------", ""}
	}
	lines := []string{"admin@leaf1:~$ show buffer information"}
	lines = append(lines, profile("pg_lossless_100000_40m_profile", "38912")...)
	lines = append(lines, profile("pg_lossless_100000_300m_profile", "104448")...)
	lines = append(lines, profile("pg_lossless_100000_40m_mtu4096_profile", "48128")...)
	fs := synthFindings(t, Options{}, lines...)
	nicMustFind(t, fs, "switch.headroom.short", Warn, "xoff 38912 B is below the 41984 B")
	if n := countID(fs, "switch.headroom.short"); n != 1 {
		t.Errorf("%d switch.headroom.short findings, want 1 (the 300 m and the lua-sized profiles hold enough)", n)
	}
}
