package collective

// How NCCL's planner spreads one collective over its channels
// (enqueue.cc). Up to 2.19 every channel of the call takes an equal
// share. From 2.20 the share is rounded up to the protocol's alignment
// (Simple 4 KiB, LL 8 bytes per thread, LL128 480 bytes per warp), so a
// small call runs on fewer channels. From 2.23 the data is cut into cells
// that each carry a minimum of traffic (16 KiB, 32 KiB from 2.29; LL
// counts four times from 2.26) and each channel takes a whole number of
// cells. A channel with no share opens no network operation on the
// proxies.

// minTrafficPerChannel is the planner's least traffic per channel
// (MinTrafficPerChannel): 16 KiB from 2.23, 32 KiB from 2.29; 0 before
// 2.23 (an equal share per channel).
func minTrafficPerChannel(v Version) int64 {
	switch {
	case v.AtLeast(2, 29, 0):
		return 32 << 10
	case v.AtLeast(2, 23, 0):
		return 16 << 10
	}
	return 0
}

// trafficPerByte is ncclFuncTrafficPerByte: the bytes a call moves per
// byte of its count (AllReduce 2, AllGather and ReduceScatter one per
// rank, the rest 1).
func trafficPerByte(f Func, nRanks int) int64 {
	switch f {
	case AllReduce:
		return 2
	case AllGather, ReduceScatter:
		return int64(nRanks)
	}
	return 1
}

// channelShares returns the bytes each channel carries of a call whose
// count is bytes (AllGather and ReduceScatter: one rank's piece), with
// NCCL's planner of version v: nc is the algorithm's channel count
// (nMaxChannels), threads its threads per channel and maxCh the most
// channels the planner may use (the communicator's). From 2.26 an LL call
// counts four times its traffic, in its cells and in its budget per
// channel. Trailing channels with no share are left out.
func channelShares(v Version, f Func, p Proto, bytes int64, nRanks, nc, threads, maxCh int) []int64 {
	shares := make([]int64, nc)
	minT := minTrafficPerChannel(v)
	switch {
	case nc <= 1 || bytes <= 0:
		return []int64{max(bytes, 0)}
	case !v.AtLeast(2, 20, 0):
		for ch := range shares {
			shares[ch] = part(bytes, ch, nc)
		}
		return shares
	case minT == 0:
		align := int64(4096)
		switch p {
		case LL:
			align = 8 * int64(threads)
		case LL128:
			align = 480 * int64(threads/32)
		}
		per := ceilDiv(ceilDiv(bytes, int64(nc)), max(align, 1)) * max(align, 1)
		for ch := range shares {
			shares[ch] = min(per, max(bytes-per*int64(ch), 0))
		}
		return trim(shares)
	}
	tpb := trafficPerByte(f, nRanks)
	if p == LL && v.AtLeast(2, 26, 0) {
		tpb *= 4 // the task's traffic and its cells count LL four times
	}
	traffic := max(minT, bytes*tpb)
	perCh := traffic / int64(nc)
	if v.AtLeast(2, 29, 0) {
		perCh = ceilDiv(perCh, 16) * 16
	} else {
		perCh = max(minT, perCh)
	}
	cellSize := ceilDiv(ceilDiv(minT, tpb), 16) * 16
	cells := ceilDiv(bytes, cellSize)
	perCell := cellSize * tpb
	cellsPer := min(cells, ceilDiv(perCh, perCell))
	lo := cells
	if maxCh > 1 {
		lo = min(cells, ceilDiv(perCh, perCell))
	}
	nMid := (cells - lo) / cellsPer
	hi := (cells - lo) % cellsPer
	used := 1 + nMid
	if hi != 0 {
		used++
	}
	if int64(maxCh) < used {
		nMid = int64(maxCh) - 2
		cellsPer = (cells - lo) / (nMid + 1)
		hi = cellsPer + (cells-lo)%(nMid+1)
	}
	if hi == 0 && nMid != 0 {
		hi = cellsPer
		nMid--
	}
	counts := []int64{lo}
	for range nMid {
		counts = append(counts, cellsPer)
	}
	if hi != 0 {
		counts = append(counts, hi)
	}
	shares = make([]int64, len(counts))
	for i, x := range counts {
		shares[i] = x * cellSize
	}
	fixLast(shares, bytes)
	return trim(shares)
}

// fixLast trims the last non-empty share so that the shares add up to
// bytes (the planner's last cell is partial).
func fixLast(shares []int64, bytes int64) {
	var sum int64
	last := -1
	for i, s := range shares {
		sum += s
		if s > 0 {
			last = i
		}
	}
	if last >= 0 {
		shares[last] -= sum - bytes
	}
}

// trim drops trailing channels with no share (keeping one).
func trim(shares []int64) []int64 {
	n := len(shares)
	for n > 1 && shares[n-1] == 0 {
		n--
	}
	return shares[:n]
}
