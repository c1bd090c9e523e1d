package collective

import (
	"cmp"
	"slices"
)

// Transfer is the network traffic of a call between two hosts: payload
// bytes on the wire (protocol lines included) in messages (slices), and
// the packets they make at an MTU.
type Transfer struct {
	Src, Dst int
	Bytes    int64
	Messages int64
	Packets  int64
	// CTS is the clear-to-send messages going the other way.
	CTS int64
}

// NetTraffic returns what iters calls put on the network, per host pair in
// ascending order, without running anything: the same layout and
// chunking the engine would use, for estimating a run's cost up front.
func (c *Comm) NetTraffic(call Call, iters int, mtu int64) ([]Transfer, error) {
	ch, err := c.Plan(call)
	if err != nil {
		return nil, err
	}
	var e engine
	e.init(c)
	e.call, e.choice, e.iters = call, ch, iters
	e.plan()
	e.setTiming()
	e.build()
	per := make([]Transfer, len(e.conns))
	for ki := range e.kernels {
		e.kernels[ki].p.sendOpsOn(func(ci int32, bytes, times int64) {
			wire := bytes * e.tm.wireNum / e.tm.wireDen
			tr := &per[ci]
			tr.Bytes += wire * times
			tr.Messages += times
			tr.Packets += max(1, (wire+mtu-1)/mtu) * times
		})
	}
	var out []Transfer
	for ci := range e.conns {
		cn := &e.conns[ci]
		if !cn.net || per[ci].Messages == 0 {
			continue
		}
		tr := per[ci]
		tr.Src, tr.Dst = int(cn.hostSrc), int(cn.hostDst)
		tr.Bytes *= int64(iters)
		tr.Messages *= int64(iters)
		tr.Packets *= int64(iters)
		if !cn.sock {
			tr.CTS = tr.Messages
		}
		out = append(out, tr)
	}
	return MergeTransfers(out), nil
}

// MergeTransfers adds up transfers between the same hosts, in ascending
// order of (source, destination).
func MergeTransfers(ts []Transfer) []Transfer {
	at := map[[2]int]int{}
	var out []Transfer
	for _, t := range ts {
		k := [2]int{t.Src, t.Dst}
		if i, ok := at[k]; ok {
			a := &out[i]
			a.Bytes += t.Bytes
			a.Messages += t.Messages
			a.Packets += t.Packets
			a.CTS += t.CTS
			continue
		}
		at[k] = len(out)
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b Transfer) int { return cmp.Or(cmp.Compare(a.Src, b.Src), cmp.Compare(a.Dst, b.Dst)) })
	return out
}
