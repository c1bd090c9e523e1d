package ingest

import "testing"

// TestHostSameNames: host names compare by HostKey, the one rule for every
// input. NCCL's prefix and nccl-tests print the name cut at its first dot,
// `hostname` or a collect archive may print it whole, and DNS ignores
// case; an IPv4 address as a name keeps its dots.
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
	} {
		same, known := Host{Name: c.a}.Same(Host{Name: c.b})
		if !known || same != c.same {
			t.Errorf("Host{%q}.Same(Host{%q}) = %v, %v; want %v, true", c.a, c.b, same, known, c.same)
		}
	}
}
