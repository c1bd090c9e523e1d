package collective

// NVLS and NVLSTree (NVLink SHARP): on an NVSwitch server of Hopper or
// later GPUs the switch reduces what the GPUs store into a multicast
// object and multicasts the result back. Each channel has a head, a GPU
// with a NIC of its own (on one server, every GPU in turn): the GPUs of
// a server contribute their part to the switch, the switch hands the sum
// to the channel's head, the heads of the servers run a tree across the
// network (NVLSTree; on one server there is none), and the head stores
// the result into the multicast object, which delivers it to every GPU.
//
// The switch is modelled as two kernels of no cost of their own per
// server and channel (a reduction fed by every GPU, a multicast fed by the
// head); a GPU's NVLink carries its contribution, and its head's the
// multicast, at NCCL's NVLS efficiency of the link (tuning.cc
// nvlsEfficiency), which gives each GPU 9/8 of the data per direction with
// eight heads, the load NCCL's NVLS search books (search.cc).

// nvlsChunk is NCCL's NVLS chunk (NCCL_NVLS_CHUNKSIZE, 128 KiB), and
// NVLSTree's from 4 servers on (treeMaxChunkSize, 64 KiB).
func (c *Comm) nvlsChunk() int64 {
	if c.NNodes() >= 4 {
		return 64 << 10
	}
	return 128 << 10
}

// nvlsHeads returns the local GPU indices (into GPUs) of the NVLS heads,
// in channel order.
func (c *Comm) nvlsHeads() []int {
	if c.NNodes() == 1 {
		return AllGPUs(c.PPN)
	}
	var heads []int
	seen := map[int]bool{}
	for _, n := range c.graphNICs() {
		g := c.dev.FirstGPU(n)
		for i, x := range c.GPUs {
			if x == g && !seen[i] {
				seen[i] = true
				heads = append(heads, i)
			}
		}
	}
	if len(heads) == 0 {
		heads = []int{0}
	}
	return heads
}

// switchID returns the pseudo-rank of server node's NVSwitch reduction
// (up) or multicast (down) in connection keys: below every real rank.
func switchID(node int, down bool) int32 {
	id := -1 - 2*int32(node)
	if down {
		id--
	}
	return id
}

func (e *engine) buildNVLS() {
	c := e.c
	nc := e.choice.Channels
	nn := c.NNodes()
	chunk := c.nvlsChunk()
	heads := c.nvlsHeads()
	for ch := 0; ch < nc; ch++ {
		hl := heads[ch%len(heads)]
		nic := c.dev.NICOf(c.GPUs[hl])
		pt := part(e.call.Bytes, ch, nc)
		conn := func(src, dst int32) int32 {
			ci := e.openConn(connKey{ckNVLS, int32(ch), src, dst}, nic, nic)
			e.conns[ci].window = nSteps
			return ci
		}
		head := func(n int) int32 { return int32(n*c.PPN + hl) }
		base := prog{f: AllReduce, part: pt, chunk: chunk, slices: 1}
		for n := 0; n < nn; n++ {
			up, down := switchID(n, false), switchID(n, true)
			h := head(n)
			red := base
			red.kind, red.virt = progTreeRoot, true
			mc := red
			for li := 0; li < c.PPN; li++ {
				r := int32(n*c.PPN + li)
				give := base
				give.kind = progTreeUp
				give.send[0], give.nsend = conn(r, up), 1
				take := base
				take.kind, take.passive = progTreeDown, true
				take.recv[0], take.nrecv = conn(down, r), 1
				e.addKernel(int(r), give)
				e.addKernel(int(r), take)
				red.recv[red.nrecv] = give.send[0]
				red.nrecv++
				mc.send[mc.nsend] = take.recv[0]
				mc.nsend++
			}
			red.send[0], red.nsend = conn(up, h), 1
			mc.recv[0], mc.nrecv = conn(h, down), 1
			e.addKernel(int(h), red)
			e.addKernel(int(h), mc)

			// The heads' tree across servers.
			var u, d0, d1 int
			if (ch/len(heads))%2 == 0 {
				u, d0, d1 = btree(nn, n)
			} else {
				u, d0, d1 = dtree(nn, n)
			}
			hu, hd := base, base
			hu.kind, hd.kind = progTreeUp, progTreeDown
			hu.recv[0], hu.nrecv = red.send[0], 1
			for _, d := range []int{d0, d1} {
				if d >= 0 {
					hu.recv[hu.nrecv] = conn(head(d), h)
					hu.nrecv++
					hd.send[hd.nsend] = conn(h, head(d))
					hd.nsend++
				}
			}
			hd.send[hd.nsend] = mc.recv[0]
			hd.nsend++
			if u < 0 {
				root := hu
				root.kind = progTreeRoot
				root.send, root.nsend = hd.send, hd.nsend
				e.addKernel(int(h), root)
				continue
			}
			hu.send[0], hu.nsend = conn(h, head(u)), 1
			hd.recv[0], hd.nrecv = conn(head(u), h), 1
			e.addKernel(int(h), hu)
			e.addKernel(int(h), hd)
		}
	}
}
