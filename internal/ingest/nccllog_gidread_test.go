package ingest

import "testing"

// The unwarned GID type read of NCCL 2.21/2.22 (NVIDIA/nccl#1332) is read
// only from its release's pair of lines, as the thread's next two
// return-code lines, and not in a log that prints another release
// (synthetic lines in the shape of #1332's).
func TestUnwarnedGIDReadKeyedByRelease(t *testing.T) {
	const p = "h1:11:12 [0] NCCL INFO "
	for _, c := range []struct {
		name, text string
		want       int
	}{
		{"2.21 pair", p + "NCCL version 2.21.5+cuda12.4\n" + p + "transport/net_ib.cc:282 -> 2\n" + p + "transport/net_ib.cc:305 -> 2\n", 1},
		{"2.22 pair", p + "NCCL version 2.22.3+cuda12.6\n" + p + "transport/net_ib.cc:285 -> 2\n" + p + "transport/net_ib.cc:338 -> 2\n", 1},
		{"no version", p + "transport/net_ib.cc:283 -> 2\n" + p + "transport/net_ib.cc:305 -> 2\n", 1},
		{"2.22 lines in a 2.21 log", p + "NCCL version 2.21.5+cuda12.4\n" + p + "transport/net_ib.cc:284 -> 2\n" + p + "transport/net_ib.cc:338 -> 2\n", 0},
		{"2.21 lines in a 2.23 log", p + "NCCL version 2.23.4+cuda12.6\n" + p + "transport/net_ib.cc:282 -> 2\n" + p + "transport/net_ib.cc:305 -> 2\n", 0},
		{"another line between", p + "transport/net_ib.cc:282 -> 2\n" + p + "misc/socket.cc:80 -> 2\n" + p + "transport/net_ib.cc:305 -> 2\n", 0},
		{"another result", p + "transport/net_ib.cc:282 -> 3\n" + p + "transport/net_ib.cc:305 -> 3\n", 0},
	} {
		l := parseLog(t, c.text)
		n := 0
		for _, s := range l.Setup {
			if s.Call == "ncclIbRoceGetVersionNum" {
				n++
			}
		}
		if n != c.want {
			t.Errorf("%s: %d GID type read failures, want %d (%+v)", c.name, n, c.want, l.Setup)
		}
	}
}
