package packet

import "rocelab/internal/unit"

// MaxINTHops is how many hops an INT record holds, as HPCC's: five, the
// switch hops of the longest path in a three-tier Clos.
const MaxINTHops = 5

// INTBytes is what in-band telemetry adds to a data packet and to the ACK
// that echoes it: five 8-byte hop records and a 2-byte hop count (the HPCC
// ns-3 model's IntHeader; HPCC, SIGCOMM 2019, §4: "42 bytes").
const INTBytes = MaxINTHops*8 + 2

// INTHop is what one switch egress port writes into a passing packet's
// INT record: when the packet left, the bytes the port had sent before it,
// the bytes queued behind it, and the port's line rate.
type INTHop struct {
	Port    int32 // network port id, to tell a changed path
	Time    unit.Time
	TxBytes int64
	QLen    int64
	Rate    unit.BitRate
}

// INTRecord is one packet's telemetry, hop by hop.
type INTRecord struct {
	Hops [MaxINTHops]INTHop
	N    uint8
	// Wire is what the record occupies on the wire, in the data packet
	// and in the ACK that echoes it: INTBytes, or what the sender's HPCC
	// says (int_bytes).
	Wire uint8
	next *INTRecord
}

// Push appends a hop; past MaxINTHops it overwrites from the first, as
// HPCC's does.
func (r *INTRecord) Push(h INTHop) {
	r.Hops[int(r.N)%MaxINTHops] = h
	if r.N < 255 {
		r.N++
	}
}

// An INTPool recycles INT records, so telemetry costs no allocation per
// packet once warm. A record travels with its packet (a data packet's,
// then the ACK's that echoes it) and goes back to the pool of whichever
// node frees it.
type INTPool struct {
	free *INTRecord
	live int
}

// Get returns an empty record.
func (ip *INTPool) Get() *INTRecord {
	r := ip.free
	if r == nil {
		r = new(INTRecord)
	} else {
		ip.free = r.next
		*r = INTRecord{}
	}
	ip.live++
	return r
}

// Put returns r to the pool.
func (ip *INTPool) Put(r *INTRecord) {
	r.next = ip.free
	ip.free = r
	ip.live--
}

// Live returns how many records are handed out and not yet returned to
// this pool (negative when records came from another pool).
func (ip *INTPool) Live() int { return ip.live }
