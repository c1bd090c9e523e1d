package doctor

import (
	"strings"
	"testing"
)

// A connect that fails through the proxy and the network transport
// (nccl-tests#166: "Connect to 10.0.0.2<45763> failed : Software caused
// connection abort" through net_socket.cc and proxy.cc; NVIDIA/nccl#952:
// the proxy's own "operation=Connect, res=2") is the channel's connection
// after the bootstrap, not the bootstrap's. Before, the first was called a
// failed bootstrap and the second an unexplained WARN.
func TestTransportConnectIsNotBootstrap(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccltests-socket-proxy-connect-abort-net-socket-chain-nccltests166.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "proxy could not connect a network channel to peer 10.0.0.2<45763>", "net_socket.cc:336", "on ubuntu; 1 line")
	if !strings.Contains(f.Mechanism, "3 later WARNs") {
		t.Errorf("the proxy's and the closed socket's WARNs are not its fallout: %s", f.Mechanism)
	}
	for _, f := range fs {
		if strings.Contains(f.Title, "bootstrap connection") {
			t.Errorf("called a bootstrap failure: %s", f.Title)
		}
	}
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-hpcx-ibext-socket-ipoib-proxy-connect-res2-placeholder-host-nccl952.txt")
	nicMustFind(t, fs, "nccl.warn.error", Error, "proxy could not connect a network channel to a peer", "returned 2 (unhandled system error)")
	// A CUDA failure in the proxy's Connect (res=3) is not a socket's.
	fs = synthFindings(t, Options{},
		"# synthetic",
		"h1:1:2 [0] proxy.cc:1485 NCCL WARN [Service thread] Error encountered progressing operation=Connect, res=3, closing connection")
	if got := nicFind(fs, "nccl.warn.error", "network channel"); len(got) > 0 {
		t.Errorf("res=3 read as a socket connect: %s", got[0].Title)
	}
}

// A bootstrap send reset by the peer (NVIDIA/nccl#1920: this rank connected
// out, ncclSocketConnect in bootstrap.cc) is the peer's doing; the port-scan
// story belongs to a connection the listener saw closed.
func TestBootstrapSendResetIsThePeer(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.2x-k8s-timestamps-bootstrap-send-reset-by-peer-nccl1920.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "bootstrap connection was reset by 10.44.137.149<52905>", "bootstrap.cc:868")
	if strings.Contains(f.Title, "scan") || !strings.Contains(f.Fix, "Bootstrap : Using") {
		t.Errorf("title %q, fix %q", f.Title, f.Fix)
	}
	if f.Evidence[0].Line != 2 || f.Evidence[0].Col != 54 {
		t.Errorf("evidence at %d:%d, want 2:54", f.Evidence[0].Line, f.Evidence[0].Col)
	}
}

// "socketFinalizeAccept: wrong magic 74656d2f20544547" (NVIDIA/nccl#1808)
// is a stranger's connection: its 8 bytes read "GET /met", an HTTP GET of
// /metrics. Before, the doctor said nothing of it.
func TestForeignClientMagic(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-collector-prefix-wrong-magic-http-get-ibext-v10-nccl1808.txt")
	f := nicMustFind(t, fs, "nccl.socket.foreign", Warn, `"GET /met", an HTTP request`)
	if f.Evidence[0].Line != 10 || !strings.Contains(f.Fix, "ip_local_reserved_ports") {
		t.Errorf("evidence %+v, fix %q", f.Evidence, f.Fix)
	}
	nicMustNot(t, fs, "nccl.warn.error")
	for _, c := range []struct {
		word uint64
		want string
	}{
		{0x74656d2f20544547, "GET /met"},
		{0x312e322d48535353, ""}, // "SSSH-2.1": printable, but no client named
		{0x7970663b906d70b9, ""}, // NCCL's own, not printable
	} {
		text := magicText(c.word)
		if got := magicClient(text); c.want != "" && (text != c.want || got != "an HTTP request") || c.want == "" && got != "" {
			t.Errorf("%016x: text %q client %q", c.word, text, got)
		}
	}
}

// socketPollConnect's "poll() returned 1, no POLLOUT events" (NVIDIA/nccl
// PR 1618: ranks of a 1024-rank job, their peer dropping TCP SYNs) is a
// failed TCP connect. Before, the doctor said nothing of it: a WARN
// without return codes whose text it did not know.
func TestPollConnectNoPollout(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.2x-grep-rank-files-custom-prefix-socketpollconnect-no-pollout-1024-ranks-nccl-pr1618.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Warn, "TCP connect of NCCL failed", "poll() returned 1, no POLLOUT events", "2 lines")
	if !strings.Contains(f.Mechanism, "SYNs went unanswered") || !strings.Contains(f.Fix, "NCCL_SOCKET_IFNAME") {
		t.Errorf("mechanism %q fix %q", f.Mechanism, f.Fix)
	}
	// SYNTHETIC, in misc/socket.cc's form of 2.23-2.26: poll(2) itself
	// failing ("failed with error", errno EINVAL or ENOMEM) says nothing of
	// a connect's outcome and is not told as one.
	fs = synthFindings(t, Options{},
		"h:1:2 [0] misc/socket.cc:580 NCCL WARN socketPollConnect poll() failed with error Invalid argument",
		"h:1:2 [0] NCCL INFO misc/socket.cc:624 -> 6",
		"h:1:2 [0] NCCL INFO bootstrap.cc:272 -> 6")
	for _, f := range fs {
		if strings.Contains(f.Title, "TCP connect of NCCL failed") {
			t.Errorf("poll(2)'s own failure told as a failed connect: %q", f.Title)
		}
	}
}

// NCCL 2.0 to 2.3 named their sources .cu: a bootstrap connect that timed
// out returns through "bootstrap.cu:28 -> 2 [Net]" (nccl-tests#15, NCCL
// 2.2.13). Before, only bootstrap.cc was read as the bootstrap, and the
// WARN was an unexplained failure whose fix was to read its source file.
func TestOldCUSourcesBootstrapConnect(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.2.13-no-nccl-marker-cu-sources-bootstrap-connect-timed-out-nccltests15.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "NCCL's bootstrap connection between ranks failed", "bootstrap.cu:28", "on gpu-bql-144-103; 1 line")
	if !strings.Contains(f.Fix, "NCCL_SOCKET_IFNAME") || f.Evidence[0].Line != 12 {
		t.Errorf("fix or evidence: %s %+v", f.Fix, f.Evidence)
	}
	// The connection closed after it, on the same process, is its fallout.
	for _, f := range fs {
		if strings.Contains(f.Title, "closed") {
			t.Errorf("the closed connection is a finding of its own: %s", f.Title)
		}
	}
}

// NCCL's INFO "Call to connect returned Connection timed out, retrying"
// with no final WARN after it (Oneflow-Inc/oneflow#3586: the channels go
// via NET/Socket/1, a docker veth with only a link-local address; the
// excerpt ends after two retries, the post's own WARN after them cut off
// where it reached us, so this is the log of a job still retrying). Before, the lines were not read: the
// report said the job fell back to sockets, not that its connects were
// timing out.
func TestConnectRetries(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-socket-veth-linklocal-net-socket-1-connect-timed-out-retrying-oneflow3586.txt")
	f := nicMustFind(t, fs, "nccl.socket.connect_retry", Warn, "timed out and was retried on worker (2 lines)")
	if !strings.Contains(f.Mechanism, "veth25f2e72 fe80::380d:bfff:fe5b:54d2") || !strings.HasPrefix(f.Fix, "Set NCCL_SOCKET_IFNAME=eno1") {
		t.Errorf("the link-local veth is not named: %s / %s", f.Mechanism, f.Fix)
	}
	if len(f.Evidence) != 3 || f.Evidence[1].Line != 13 || f.Evidence[2].Line != 14 {
		t.Errorf("evidence %+v, want the NET/Socket line and both retries", f.Evidence)
	}
	// SYNTHETIC: a refusal is a peer not listening yet; and a host whose
	// connect then failed with a WARN is nccl.warn.error's alone.
	fs = synthFindings(t, Options{},
		"# synthetic",
		"h1:1:2 [0] NCCL INFO Call to connect returned Connection refused, retrying",
		"h2:1:2 [0] NCCL INFO Call to connect returned Connection timed out, retrying",
		"h2:1:2 [0] include/socket.h:403 NCCL WARN Connect to 10.0.0.1<40000> failed : Connection timed out")
	f = nicMustFind(t, fs, "nccl.socket.connect_retry", Info, "refused and retried on h1 (1 line)")
	if strings.Contains(f.Title, "h2") {
		t.Errorf("h2's retry is told again: %s", f.Title)
	}
}

// NCCL 2.24 rewrote the retry: every attempt is an INFO numbered against
// NCCL_SOCKET_RETRY_CNT, "socketPollConnect: connect returned Connection
// refused, retrying (1/34) after sleep for 100 msec" (src/misc/socket.cc
// of 2.24.3; NVIDIA/nccl#1618 quotes such a line from a job), 2.28 adds
// the address, and no route to the host is retried too. Before, none of
// these lines was read.
func TestConnectRetriesNumbered(t *testing.T) {
	// SYNTHETIC: lines built from the format strings of 2.24.3 and
	// 2.28.9's socketConnectCheck.
	fs := synthFindings(t, Options{},
		"# synthetic",
		"a:1:2 [0] NCCL INFO socketPollConnect: connect returned Connection refused, retrying (1/34) after sleep for 100 msec")
	f := nicMustFind(t, fs, "nccl.socket.connect_retry", Info, "refused and retried on a (1 line)")
	if !strings.Contains(f.Mechanism, "2.24 and later print each attempt") {
		t.Errorf("the numbered form is told as 2.5-2.23's: %s", f.Mechanism)
	}
	fs = synthFindings(t, Options{},
		"# synthetic",
		"b:1:2 [0] NCCL INFO socketPollConnect: connect to 10.0.0.2<40000> returned No route to host, retrying (1/34) after sleep for 100 msec",
		"c:1:2 [0] NCCL INFO socketStartConnect: connect to 10.0.0.3<40000> returned Connection timed out, retrying (34/34) after sleep for 3400 msec",
		"c:1:2 [0] misc/socket.cc:580 NCCL WARN socketStartConnect: connect to 10.0.0.3<40000> returned Connection timed out, exceeded error retry count after 35 attempts")
	// c's retries ended in a WARN: nccl.warn.error's, not named here.
	nicMustFind(t, fs, "nccl.socket.connect_retry", Warn, "found no route to the host and was retried on b (1 line)")
}
