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

// Open MPI's own signal report ("[host:pid] Signal: Aborted (6)", its
// "Signal code:" and "Failing at address:" lines, then "[ N]" frames in
// glibc's backtrace form; uccl-project/uccl#172 shows the shape, these
// lines are synthetic in it) is a process's crash: the "Signal:" line is
// the failure, and its first frame past the C library names where it
// stopped (an abort's past glog's and the C++ runtime's frames; a
// segmentation fault's in the C++ runtime is its own); Open MPI built
// without strsignal prints the number alone ("Signal: 6", opal/util/
// stacktrace.c, v3.1-v5.0); "*** End of error message ***" ends the frames, and a frame
// before any "Signal:" line, or a PyTorch rank tag, is none.
func TestOpenMPISignalReport(t *testing.T) {
	for _, c := range []struct {
		text, host, desc, lib, fn string
		sig                       int
	}{
		{"[h1:42] *** Process received signal ***\n[h1:42] Signal: Aborted (6)\n[h1:42] Signal code:  (-6)\n[h1:42] [ 0] /lib/x86_64-linux-gnu/libc.so.6(+0x45330)[0x7f79e21df330]\n[h1:42] [ 1] /lib/x86_64-linux-gnu/libc.so.6(abort+0xdf)[0x7f79e21c28ff]\n[h1:42] [ 2] /opt/x/libnccl-net-x.so(bindListen+0x1c)[0x7f7900001000]\n[h1:42] [ 3] /lib/x86_64-linux-gnu/libnccl.so.2(+0x76fe7)[0x7fe824ca0fe7]\n", "h1", "Aborted", "libnccl-net-x.so", "bindListen", 6},
		{"[h3:00042] *** Process received signal ***\n[h3:00042] Signal: 6\n[h3:00042] [ 0] /lib64/libc.so.6(abort+0x1)[0x2]\n[h3:00042] [ 1] /lib64/libglog.so.1(_ZN6google15LogMessageFatalD2Ev+0xd)[0x3]\n[h3:00042] [ 2] /lib64/libstdc++.so.6(+0x9a)[0x4]\n[h3:00042] [ 3] /w/libnccl-net-uccl.so(bind_listen+0x1)[0x5]\n", "h3", "", "libnccl-net-uccl.so", "bind_listen", 6},
		{"[h4:9] Signal: Segmentation fault (11)\n[h4:9] [ 0] /lib64/libc.so.6(+0x1)[0x2]\n[h4:9] [ 1] /lib64/libstdc++.so.6(_ZNSsC1ERKSs+0x1)[0x3]\n", "h4", "Segmentation fault", "libstdc++.so.6", "_ZNSsC1ERKSs", 11},
		{"[h2:7] [13] /lib/x86_64-linux-gnu/libnccl.so.2(+0xbdb12)[0x7fe824ce7b12]\n[h2:7] *** End of error message ***\n[h2:8] Signal: Segmentation fault (11)\n[h2:8] Signal code: Address not mapped (1)\n[h2:8] Failing at address: 0x48\n[h2:8] [ 0] /lib/x86_64-linux-gnu/libc.so.6(+0x45330)[0x1]\n[h2:8] *** End of error message ***\n[h2:8] [ 1] /lib/x86_64-linux-gnu/libnccl.so.2(+0x1)[0x2]\n", "h2", "Segmentation fault", "", "", 11},
	} {
		tests := parseTests(t, c.text)
		if tests == nil || len(tests.Failures) != 1 {
			t.Fatalf("%q: read %+v, want one failure", c.text, tests)
		}
		f := tests.Failures[0]
		if f.Host != c.host || f.Signal != c.sig || f.Message != c.desc || f.CrashIn != c.lib || f.CrashFunc != c.fn {
			t.Errorf("%q: got %s signal %d (%q) in %q (%q)", c.text, f.Host, f.Signal, f.Message, f.CrashIn, f.CrashFunc)
		}
	}
	if tests := parseTests(t, "[rank0]:[E603 17:48:01.005271823 ProcessGroupNCCL.cpp:632] [Rank 0] Signal: x (6)\n[2025-06-23 15:06:59 TP0] Signal: y (6)\n"); tests != nil && len(tests.Failures) != 0 {
		t.Errorf("tagged lines read as crashes: %+v", tests.Failures)
	}
}
