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
}

// An INTPool holds the INT records of the packets in flight. Records are
// recycled, so telemetry costs no allocation per packet once warm; index 0
// is never used, so that a packet's zero INT means none.
type INTPool struct {
	recs []INTRecord
	free []uint32
}

// Get returns the index of an empty record.
func (ip *INTPool) Get() uint32 {
	if n := len(ip.free); n > 0 {
		i := ip.free[n-1]
		ip.free = ip.free[:n-1]
		ip.recs[i].N = 0
		return i
	}
	if len(ip.recs) == 0 {
		ip.recs = append(ip.recs, INTRecord{})
	}
	ip.recs = append(ip.recs, INTRecord{})
	return uint32(len(ip.recs) - 1)
}

// Put returns record i to the pool; 0 is ignored.
func (ip *INTPool) Put(i uint32) {
	if i != 0 {
		ip.free = append(ip.free, i)
	}
}

// Record returns record i.
func (ip *INTPool) Record(i uint32) *INTRecord { return &ip.recs[i] }

// Push appends a hop to record i; past MaxINTHops it overwrites from the
// first, as HPCC's does.
func (ip *INTPool) Push(i uint32, h INTHop) {
	r := &ip.recs[i]
	r.Hops[int(r.N)%MaxINTHops] = h
	if r.N < 255 {
		r.N++
	}
}

// Live returns how many records are in use.
func (ip *INTPool) Live() int { return max(len(ip.recs)-1-len(ip.free), 0) }
