package ingest

import "testing"

// The backtrace UCX prints under a "Caught signal" line gives the signal
// the first frame past the handler and the C library: UCX's own unwinder
// (NVIDIA/nccl#1996, case 1) and its libdw form, whose shape the same
// issue's case 2 shows (the lines below are synthetic, in that shape).
func TestCrashFrame(t *testing.T) {
	for _, c := range []struct{ text, lib, fn string }{
		{"[n1:288505:0:296459] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x48)\n==== backtrace (tid: 296459) ====\n 0  /usr/lib/libucs.so.0(ucs_handle_error+0x2d4) [0x7fedc925c274]\n 1  /usr/lib/libucs.so.0(+0x2d44c) [0x7fedc925c44c]\n 3  /opt/nccl/lib/libnccl.so(+0x120057) [0x7ff1c18c1057]\n 4  /opt/nccl/lib/libnccl.so(+0x12209d) [0x7ff1c18c309d]\n", "libnccl.so", ""},
		{"[n2:136570:0:136570] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x8)\n==== backtrace (tid: 136570) ====\n 0 0x000000000003c050 __sigaction() ???:0\n 1 0x0000000000122927 rasMsgHandlePeersUpdate() /src/ras/peers.cc:412\n", "peers.cc", "rasMsgHandlePeersUpdate"},
		{"[n3:1:0:1] Caught signal 7 (Bus error: nonexistent physical address)\nall done\n 3  /opt/nccl/lib/libnccl.so(+0x1) [0x1]\n", "", ""},
	} {
		tests := parseTests(t, c.text)
		if len(tests.Failures) != 1 {
			t.Fatalf("%q: no failure read", c.text)
		}
		if f := tests.Failures[0]; f.CrashIn != c.lib || f.CrashFunc != c.fn {
			t.Errorf("%q: crash in %q (%q), want %q (%q)", c.text, f.CrashIn, f.CrashFunc, c.lib, c.fn)
		}
	}
}
