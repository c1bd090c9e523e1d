package ecmp

import "testing"

// TestNS3Hash holds the hash to MurmurHash3's x86_32 (which the HPCC ns-3
// model's EcmpHash is) as an independent implementation computes it, one
// checked against the algorithm's published vector ("The quick brown fox
// jumps over the lazy dog", seed 0: 0x2e4ff723), on ns-3's keys: the
// addresses 11.x.y.1 of the nodes, the ports, the switch's node id as the
// seed. A data packet hashes (sip, dip, sport | dport<<16); the ACK back
// its own addresses with the ports swapped.
func TestNS3Hash(t *testing.T) {
	for _, c := range []struct {
		src, dst int32
		sport    uint16
		dport    uint16
		reply    bool
		node     uint32
		want     uint32
	}{
		{15, 8, 10000, 101, false, 32, 2000967763},
		{27, 26, 10000, 101, false, 35, 2638169198},
		{0, 16, 10000, 101, false, 32, 205489749},
		{300, 5, 10003, 100, false, 401, 880764882},
		{16, 0, 10000, 101, true, 42, 2987530556},
	} {
		ports := uint32(c.sport) | uint32(c.dport)<<16
		if c.reply {
			ports = uint32(c.dport) | uint32(c.sport)<<16
		}
		if got := murmur3(c.node, NS3Address(c.src), NS3Address(c.dst), ports); got != c.want {
			t.Errorf("%+v: hash %d, want %d", c, got, c.want)
		}
		k := Key{Src: c.src, Dst: c.dst, SrcPort: c.sport, Reply: c.reply}
		for _, n := range []int{2, 3, 8} {
			if got := (NS3{DstPort: c.dport}).Pick(c.node, k, n); got != int(c.want%uint32(n)) {
				t.Errorf("%+v: next hop %d of %d, want %d", c, got, n, c.want%uint32(n))
			}
		}
	}
	if a := NS3Address(257); a != 0x0b010101 {
		t.Errorf("node 257's address %#x, want 11.1.1.1", a)
	}
}
