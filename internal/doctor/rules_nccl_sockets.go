package doctor

import (
	"encoding/binary"
	"fmt"
	"path"
	"strconv"
	"strings"

	"rocelab/internal/ingest"
)

// NCCL's own TCP connections past the bootstrap's first connect: who
// reached a port NCCL listens on, and which stage a failed socket belongs
// to. The bootstrap connects the ranks first (bootstrap.cc); the proxy
// thread then connects each network channel to its peer (proxy.cc through
// transport/net.cc into the transport: net_socket.cc opens TCP connections
// to the peer's NET/Socket addresses, net_ib.cc exchanges the queue pair's
// details over a socket on its OOB interface). A socket failing in that
// second stage is not the bootstrap's: the ranks already reached each
// other once.

func ncclSocketRules() []Rule {
	return []Rule{
		{IDs: []string{"nccl.socket.foreign"}, Check: checkForeignClients},
		{IDs: []string{"nccl.socket.connect_retry"}, Check: checkConnectRetries},
	}
}

// checkConnectRetries reports NCCL's retried TCP connects ("Call to
// connect returned Connection timed out, retrying"; Oneflow-Inc/oneflow#3586:
// channels over NET/Socket/1, a docker veth with only an IPv6 link-local
// address; the excerpt kept ends after two such lines, the post's WARN
// after them having reached us cut off) on hosts whose log
// holds no WARN of the connect's final failure: that WARN is
// nccl.warn.error's, and says the same.
func checkConnectRetries(inc *Incident) []Finding {
	var ev evidence
	var hosts []string
	n, timedOut, noRoute := 0, false, false
	var logs []*ingest.NCCLLog
	for _, l := range All[*ingest.NCCLLog](inc) {
		failed := map[string]bool{}
		for _, w := range l.Warnings {
			if m := strings.ToLower(w.Message); connectFailed(m) || strings.Contains(m, "exceeded") {
				failed[w.Host] = true
			}
		}
		r := l.ConnectRetries
		kept := r.Lines
		if len(failed) > 0 {
			// Only the first line of each host still retrying.
			kept = nil
			for i, h := range r.Hosts {
				if !failed[h] {
					kept = append(kept, r.First[i])
				}
			}
		} else {
			n += r.Count - len(kept)
		}
		for _, h := range r.Hosts {
			if !failed[h] {
				hosts = append(hosts, h)
			}
		}
		for _, e := range kept {
			n++
			ev.add(e)
			m := strings.ToLower(e.Text)
			timedOut = timedOut || strings.Contains(m, "timed out")
			noRoute = noRoute || strings.Contains(m, "no route to host")
		}
		if len(kept) > 0 {
			logs = append(logs, l)
		}
	}
	if n == 0 {
		return nil
	}
	f := Finding{ID: "nccl.socket.connect_retry", Layer: LayerNCCL, Evidence: ev.sorted(),
		Mechanism: "NCCL connects its TCP sockets (the bootstrap's, the proxy's, NET/Socket's channels) with connect(2) and, when one fails with a timeout or a refusal (from 2.24 also no route to the host), sleeps and tries again; this INFO line is such a retry, and only the last retry's failure becomes a WARN ('Connect to <address> failed : ...', from 2.16 'exceeded retries' or 'exceeded error retry count'), after which init fails. No such WARN follows on this host in the log given: it ends first, or the job is still retrying. "}
	if !timedOut && !noRoute {
		f.Severity = Info
		f.Title = "NCCL's TCP connect to a peer was refused and retried" + onHosts(hosts) + " (" + plural(n, "line", "lines") + ")"
		f.Mechanism += "A refusal means the peer's host answered but nothing listened on the port yet: a rank that had not reached that step (ranks start at different times, so it is routine at a job's start) or one that had exited. NCCL 2.5 to 2.23 print the line once every 1000 refused attempts, a millisecond apart; 2.24 and later print each attempt, numbered against NCCL_SOCKET_RETRY_CNT (34 by default), and sleep 100 ms longer after each."
		f.Fix = "Nothing while the job goes on. If it stops there, find the peer rank that never started or exited first (its own log, an OOM kill, the launcher's output)."
		return []Finding{f}
	}
	f.Severity = Warn
	how := "timed out"
	if !timedOut {
		how = "found no route to the host"
	}
	f.Title = "NCCL's TCP connect to a peer " + how + " and was retried" + onHosts(hosts) + " (" + plural(n, "line", "lines") + "): the peer's address does not answer from there"
	f.Mechanism += "A timeout means the connect's SYNs went unanswered until the kernel gave up (about two minutes with the default net.ipv4.tcp_syn_retries), and no route to the host that this host has no route there or an ICMP unreachable came back: the address is not reachable from this host (an address on an interface that does not route between hosts, a firewall dropping the SYNs, the peer's host down), unlike a peer slow to start, whose host refuses at once."
	test := "From this host, test TCP to the peer's address on the interface NCCL uses (`ip route get <address>`, `nc -zv <address> <port>`), and look for a firewall dropping SYNs between the hosts (iptables/nftables rules, a cloud's security group)."
	f.Fix = "Set NCCL_SOCKET_IFNAME to the interface the hosts reach each other on, the same on every rank. " + test
	if bad, kinds, good := unreachableSockets(logs); len(bad) > 0 {
		f.Mechanism += " NCCL's socket transport here lists " + list(bad, 2) + " among its interfaces and uses each as a device of its own (NET/Socket/1, ...), so channels connect to the peer's address on it: " + strings.Join(kinds, "; ") + "."
		f.Fix = socketIfnameFix(bad, good) + " " + test
		for _, l := range logs {
			for _, d := range l.SocketDevices {
				ev.add(d.Evidence)
			}
		}
		f.Evidence = ev.sorted()
	}
	return []Finding{f}
}

// foreignMagic reads "socketFinalizeAccept: wrong magic 74656d2f20544547 !=
// 7970663b906d70b9" from a lower-cased message: the first 8 bytes a
// client sent to a port NCCL listens on, as NCCL printed them (one
// little-endian 64-bit word, so "GET /met" prints as 74656d2f20544547).
func foreignMagic(m string) (got uint64, ok bool) {
	_, rest, ok := strings.Cut(m, "socketfinalizeaccept: wrong magic ")
	if !ok {
		return 0, false
	}
	word, _, _ := strings.Cut(rest, " ")
	v, err := strconv.ParseUint(strings.TrimPrefix(word, "0x"), 16, 64)
	return v, err == nil
}

// magicText is the magic's bytes as the client sent them, when all are
// printable ASCII ("GET /met"), else "".
func magicText(v uint64) string {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return ""
		}
	}
	return string(b[:])
}

// magicClient names the program the bytes come from, when they say.
func magicClient(text string) string {
	for _, p := range []string{"GET ", "POST", "HEAD", "PUT ", "OPTI"} {
		if strings.HasPrefix(text, p) {
			return "an HTTP request"
		}
	}
	if strings.HasPrefix(text, "SSH-") {
		return "an SSH client"
	}
	return ""
}

// checkForeignClients reports connections NCCL accepted whose first 8 bytes
// were not its magic: something other than this job's ranks reached a port
// NCCL listens on (NVIDIA/nccl#1808: "wrong magic 74656d2f20544547", the
// bytes "GET /met" of an HTTP GET /metrics, and the job's proxy hung
// after it).
func checkForeignClients(inc *Incident) []Finding {
	var ev evidence
	var seen, hosts []string
	for _, l := range All[*ingest.NCCLLog](inc) {
		for _, w := range l.Warnings {
			v, ok := foreignMagic(strings.ToLower(w.Message))
			if !ok {
				continue
			}
			ev.add(w.Evidence)
			if w.Host != "" {
				hosts = append(hosts, w.Host)
			}
			s := fmt.Sprintf("%016x", v)
			if t := magicText(v); t != "" {
				s = strconv.Quote(t)
				if c := magicClient(t); c != "" {
					s += ", " + c
				}
			}
			seen = append(seen, s)
		}
	}
	if len(ev.list) == 0 {
		return nil
	}
	return []Finding{{
		ID: "nccl.socket.foreign", Severity: Warn, Layer: LayerNCCL,
		Title:    fmt.Sprintf("A client that is no rank of this job connected to a port NCCL listens on (wrong magic: the first bytes were %s)%s", list(distinct(seen), 2), onHosts(hosts)),
		Evidence: ev.sorted(),
		Mechanism: "NCCL's bootstrap and proxy listen on ephemeral TCP ports of the bootstrap interface, and every connection they accept must begin with the 8-byte magic of this job's unique id; NCCL prints the first 8 bytes of any other connection (one little-endian word, so text reads backwards in the hex) and drops it. " +
			"Such a client is another program: a metrics scraper or health check whose target port NCCL's listener took while the exporter was not bound to it (an HTTP GET /metrics reads \"GET /met\"), a port scanner, or a rank of another job reusing the port. " +
			"NCCL goes on after the drop, but NVIDIA/nccl#1808 saw the proxy thread hang after one, and NCCL before 2.27.3 fails init when such a client closes before sending 8 bytes (#1612).",
		Fix: "Find the client from its bytes and the time: an HTTP request is a scraper or probe (Prometheus targets, Kubernetes probes, a load balancer's health check) aimed at a port in the ephemeral range. Keep NCCL's listeners off the ports such clients use: reserve them with sysctl net.ipv4.ip_local_reserved_ports (or move the exporters below net.ipv4.ip_local_port_range), and exclude the GPU hosts' ephemeral ports from security scans while jobs run.",
	}}
}

// transportChain reports whether an error chain passes through the proxy's
// connection of a network channel (proxy.cc, transport/net.cc, or the
// transport's net_socket.cc or net_ib.cc) before any bootstrap file.
func transportChain(chain []string) bool {
	for _, c := range chain {
		switch b := path.Base(c); {
		case strings.HasPrefix(b, "bootstrap.cc"):
			return false
		case strings.HasPrefix(b, "proxy.cc"), strings.HasPrefix(b, "net.cc"),
			strings.HasPrefix(b, "net_socket.cc"), strings.HasPrefix(b, "net_ib.cc"):
			return true
		}
	}
	return false
}

// connectFailed reports whether a lower-cased WARN is a TCP connect that
// failed outright.
func connectFailed(m string) bool {
	if !strings.Contains(m, "connect to ") {
		return false
	}
	for _, s := range []string{"timed out", "refused", "no route", "connection abort", "unreachable"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// proxyConnectFailed reports the proxy thread's own WARN for a channel it
// could not connect ("[Service thread] Error encountered progressing
// operation=Connect, res=2", "[Proxy Service 11] Failed to execute
// operation Connect from rank 11, retcode 2"): a system error (2) or a
// remote one (6) is a socket's; other codes (a CUDA failure's 1, 3) are
// not the network's.
func proxyConnectFailed(w ingest.Warning, m string) bool {
	return (strings.Contains(m, "operation=connect") || strings.Contains(m, "operation connect")) &&
		(w.Result == 2 || w.Result == 6)
}

// peerAddress is the "addr<port>" a lower-cased socket WARN names after
// "to " ("connect to 10.0.0.2<45763> failed", "send to ..."), or "".
func peerAddress(m string) string {
	for {
		_, rest, ok := strings.Cut(m, " to ")
		if !ok {
			return ""
		}
		if addr, _, _ := strings.Cut(rest, " "); strings.Contains(addr, "<") {
			return addr
		}
		m = rest
	}
}

// transportConnectClass is the proxy failing to connect a network channel
// to a peer (NVIDIA/nccl-tests#166: "Connect to 10.0.0.2<45763> failed :
// Software caused connection abort" through net_socket.cc and proxy.cc;
// NVIDIA/nccl#952: the proxy's "operation=Connect, res=2" on NET/Socket
// over IPoIB).
func transportConnectClass(m string) failureClass {
	what := "NCCL's proxy could not connect a network channel to a peer (after the bootstrap)"
	if a := peerAddress(m); a != "" {
		what = "NCCL's proxy could not connect a network channel to peer " + a + " (after the bootstrap)"
	}
	return failureClass{what,
		"The error returns through the proxy thread and the network transport (proxy.cc, transport/net.cc, net_socket.cc or net_ib.cc), not the bootstrap: the ranks had already reached each other on the bootstrap interface, and the proxy was now connecting a channel. NET/Socket opens a TCP connection to each address the peer's 'NET/Socket : Using' line lists (it uses every interface it lists, NET/Socket/0, /1, ...), and NET/IB exchanges its queue pair's details over a TCP socket on its OOB interface. Such a connect fails when it goes to an address of the peer this host cannot reach (a second interface, a bridge, an IPoIB or link-local address on another subnet), when a firewall passes the bootstrap's port but not the ephemeral ports the channels listen on, or when the peer process died.",
		"Compare the interfaces of the peer's 'NET/Socket : Using' (or NET/IB's OOB) line with what this host reaches (`ip route get <address>`, `nc -zv <address> <port>`); set NCCL_SOCKET_IFNAME to the one interface every host shares, the same on every rank; open the hosts' ephemeral ports (net.ipv4.ip_local_port_range) to each other. If the peer died, its own log holds the first failure."}
}

// bootstrapResetClass is a rank's bootstrap send reset by its peer
// (NVIDIA/nccl#1920: "socketProgressOpt: Call to send to
// 10.44.137.149<52905> failed : Connection reset by peer" through
// bootstrap.cc's ncclSocketConnect): this rank connected out and the
// listener's side dropped the connection. A port scan or probe cannot do
// that; it is the peer, or whoever now holds that port.
func bootstrapResetClass(m string) failureClass {
	to := "its peer"
	if a := peerAddress(m); a != "" {
		to = a
	}
	return failureClass{"a rank's bootstrap connection was reset by " + to + ": that peer's process died or closed the socket, or the address is not a rank of this job",
		"During init each rank connects out to its peers' bootstrap listeners (the addresses they published through the unique id and the ring) and sends its magic and socket type first. A reset on that send comes from the other end: its process exited or aborted (its own failure comes first in its log), it refused the connection (a listener of another NCCL version or another communicator that found the wrong magic), or the address and port now belong to another process (a stale NCCL_COMM_ID or unique id reused across jobs, a rank restarted on a new port while this one still holds the old address). Unlike a connection the listener saw closed, a port scan does not cause it.",
		"Look up the peer address among the hosts' 'Bootstrap : Using' lines: if it is a rank of this job, find that rank's first failure (its log, dmesg, an OOM kill, a restart by the launcher); if not, the job's unique id or NCCL_COMM_ID points at another process: give every launch its own. Run one NCCL version on every rank."}
}

// pollConnectClass reads socketPollConnect's WARN of NCCL 2.23 to 2.26
// (misc/socket.cc): "poll() returned 1, no POLLOUT events": poll reported
// an event other than POLLOUT (an error or hang-up) on a non-blocking TCP
// connect still in progress, and NCCL returned a system error without
// retrying and without naming the peer. 2.27 reads the socket's error
// instead and retries (NVIDIA/nccl PR 1618). Its neighbour "poll() failed
// with error X" is poll(2) itself failing (EINVAL, ENOMEM), no connect's
// outcome: it is not read here.
func pollConnectClass(msg string) (failureClass, bool) {
	const head = "socketPollConnect poll() returned "
	msg = strings.TrimSpace(msg)
	if len(msg) < len(head) || !strings.EqualFold(msg[:len(head)], head) || !strings.HasSuffix(strings.ToLower(msg), "no pollout events") {
		return failureClass{}, false
	}
	return failureClass{"a TCP connect of NCCL failed before it was established (" + msg + ")",
		"NCCL connects its sockets (the bootstrap's, the proxy's, NET/Socket's) without blocking and polls until the socket is writable; NCCL 2.23 to 2.26 stop at the first poll that reports an event without POLLOUT (an error or hang-up on a connect still in progress) and return a system error at once, without retrying and without naming the peer (2.27 reads the socket's error instead and retries: NVIDIA/nccl PR 1618). The connect itself failed: its SYNs went unanswered or were answered by an error (a host or firewall dropping SYNs: in PR 1618, ranks of a 1024-rank job failed so at bootstrap and the destination node was dropping TCP SYNs), or the address belongs to an interface the peers cannot reach (docker0, a bridge, a VPN or link-local address picked for lack of NCCL_SOCKET_IFNAME).",
		"Set NCCL_SOCKET_IFNAME to the interface the hosts reach each other on, the same on every host; test TCP between the hosts on it (a connect to a high port from each host), look for SYN drops on the receiving host (`nstat -az TcpExtListenDrops TcpExtListenOverflows`, firewall logs) when many ranks connect at once, rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,BOOTSTRAP,NET to see which connection failed, and use NCCL 2.27 or later, which retries such a connect."}, true
}
