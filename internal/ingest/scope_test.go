package ingest

import (
	"strings"
	"testing"
)

// TestHostSameNames: host names compare by SameHostName, the one rule for every
// input. NCCL's prefix and nccl-tests print the name cut at its first dot,
// `hostname` or a collect archive may print it whole, and DNS ignores
// case; an IP address as a name is kept whole; two names that both carry
// a domain compare whole.
func TestHostSameNames(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"node-1", "node-1.cluster.local", true},
		{"node-1", "NODE-1", true},
		{"NODE-1.Cluster.Local", "node-1", true},
		{"ip-10-0-0-1", "ip-10-0-0-1.ec2.internal", true},
		{"node-1", "node-2.cluster.local", false},
		{"10.0.0.1", "10.0.0.2", false},
		{"10.0.0.1", "10", false},
		{"123.cluster.local", "123", true},
		{"fe80::1", "FE80::1", true},
		{"fe80::1", "fe80::2", false},
		{"2001:db8::1", "2001", false},
		{"::ffff:10.0.0.1", "::ffff:10.0.0.2", false},
		{"::ffff:10.0.0.1", "::ffff", false},
		{"gpu-1.rack2", "gpu-1.rack3", false},
		{"spine01.pod1.example.net", "SPINE01.pod2.example.net", false},
		{"gpu-1.rack2", "GPU-1.Rack2", true},
		{"gpu-1", "gpu-1.rack3", true},
	} {
		same, known := Host{Name: c.a}.Same(Host{Name: c.b})
		if !known || same != c.same {
			t.Errorf("Host{%q}.Same(Host{%q}) = %v, %v; want %v, true", c.a, c.b, same, known, c.same)
		}
	}
}

// One input whose prompt says "root@NODE-1" and whose `hostname` prints
// "node-1.cluster.local" names one host (synthetic): its artifacts take
// that host. Before, the names compared exactly and the input named two,
// so none.
func TestInputOneHostAcrossNameForms(t *testing.T) {
	res, err := Read("h.txt", strings.NewReader("root@NODE-1:~# hostname\nnode-1.cluster.local\nroot@NODE-1:~# lsmod\nModule                  Size  Used by\nnvidia              56860672  1 nvidia_uvm\nroot@NODE-1:~#\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Artifacts) == 0 {
		t.Fatal("no artifact")
	}
	for _, a := range res.Artifacts {
		if h := a.Scope().Host.Name; HostKey(h) != "node-1" {
			t.Errorf("%T: host %q", a, h)
		}
	}
}
