package doctor

import (
	"fmt"
	"slices"

	"rocelab/internal/ingest"
)

// transportFailures counts, per host, the lines of NCCL's IB transport
// that report a failure of its own: completion errors, failed queue-pair
// setup and async events. A peer's closed connection on another host is
// their fallout.
type transportFailures struct {
	hosts []string
	lines map[string]int
}

func transportFailuresOf(inc *Incident) transportFailures {
	tf := transportFailures{lines: map[string]int{}}
	add := func(h string) {
		if !ingest.RealHost(h) {
			return
		}
		if tf.lines[h] == 0 {
			tf.hosts = append(tf.hosts, h)
		}
		tf.lines[h]++
	}
	for _, l := range All[*ingest.NCCLLog](inc) {
		for _, c := range l.Completions {
			add(c.Host)
		}
		for _, s := range l.Setup {
			add(s.Host)
		}
		for _, a := range l.AsyncEvents {
			add(a.Host)
		}
	}
	return tf
}

// elsewhere returns the hosts with transport failures other than those
// given, and how many lines they hold.
func (tf transportFailures) elsewhere(hosts []string) ([]string, int) {
	var out []string
	n := 0
	for _, h := range tf.hosts {
		if !slices.Contains(hosts, h) {
			out = append(out, h)
			n += tf.lines[h]
		}
	}
	return out, n
}

// remoteFallout reports whether a failure class is one a rank sees when
// its peer fails: a socket closed by the peer, or a remote error raised
// without NCCL's reason.
func remoteFallout(c failureClass) bool {
	return c.what == peerGoneClass.what || c.what == raisedClass(6, "", "").what
}

// foldRemoteFallout marks f, a peer's closed connection on hosts, as the
// fallout of the IB transport failures the incident holds on other hosts:
// a warning whose mechanism names them, the cause being told by the
// nccl.ib rules; a closed connection whose host is unknown is left as
// it is. It returns the words its title takes ("" when there are
// none).
func foldRemoteFallout(f *Finding, tf transportFailures, hosts []string) string {
	hosts = distinct(hosts)
	others, n := tf.elsewhere(hosts)
	if len(hosts) == 0 || len(others) == 0 {
		// A line that names no host may be on a failing host itself.
		return ""
	}
	f.Severity = Warn
	f.Mechanism += fmt.Sprintf(" This incident holds %s of NCCL's IB transport failing on %s (completion errors, queue-pair setup, async events; see the nccl.ib findings): that is the likely cause, and this rank's closed connection its consequence.", plural(n, "line", "lines"), list(others, 3))
	return ": fallout of the IB transport failure on " + list(others, 3)
}
