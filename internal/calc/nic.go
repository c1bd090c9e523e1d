package calc

import (
	"fmt"
	"math"

	"rocelab/internal/unit"
)

// RoCEOverhead is what iboe_get_mtu subtracts from the netdev MTU: GRH 40,
// UDP 8, BTH 12, XRC 4, AtomicETH 28 and ICRC 4 bytes.
const RoCEOverhead = 96

// RoCEMTU returns the RoCE path MTU a netdev MTU allows: the largest of
// 256, 512, 1024, 2048 and 4096 that fits in netdevMTU − 96; 0 if none.
func RoCEMTU(netdevMTU int) int {
	for m := 4096; m >= 256; m /= 2 {
		if m <= netdevMTU-RoCEOverhead {
			return m
		}
	}
	return 0
}

// PathMTU is the RoCE path MTU calculator.
func PathMTU(netdevMTU int) *Result {
	m := RoCEMTU(netdevMTU)
	r := &Result{
		Name:    "RoCE path MTU from the netdev MTU",
		Formula: []string{"active_mtu = largest of 256, 512, 1024, 2048, 4096 with mtu ≤ netdev_mtu − 96", "96 = GRH 40 + UDP 8 + BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4"},
		Inputs:  []Quantity{q("netdev_mtu", float64(netdevMTU), "B", "given")},
		Outputs: []Quantity{q("active_mtu", float64(m), "B", srcIBoE)},
		Notes: []string{
			"4096 needs a netdev MTU of at least 4192; 1500 gives 1024.",
			"NCCL and perftest use the smaller active_mtu of the two ends; every switch port on the path must carry the frame (netdev MTU + 14 B Ethernet, + 4 with a VLAN tag).",
		},
		Sources: []string{srcIBoE},
	}
	if m == 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("netdev MTU %d is too small for any RoCE MTU (needs ≥ %d)", netdevMTU, 256+RoCEOverhead))
	}
	return r
}

// ACKTimeout returns the IB local ACK timeout for a QP timeout exponent:
// 4.096 µs × 2^exp, and unit.MaxTime for 0, which the IB spec
// (§12.7.34) and ibv_modify_qp(3) define as infinite: no timeout at all.
func ACKTimeout(exp int) unit.Time {
	if exp == 0 {
		return unit.MaxTime
	}
	return unit.Time(math.Round(4096 * math.Pow(2, float64(exp)) * float64(unit.Nanosecond)))
}

// TimeoutInput is an RC QP's retransmission setting.
type TimeoutInput struct {
	Timeout, RetryCnt int
	// TimeoutGiven and RetryGiven say whether the values were given or
	// are NCCL's defaults.
	TimeoutGiven, RetryGiven bool
}

// Timeout computes the ACK timeout and the retry budget of an RC QP.
func Timeout(in TimeoutInput) *Result {
	src := func(given bool) string {
		if given {
			return "given"
		}
		return "default: " + srcNCCLDefaults
	}
	if in.Timeout == 0 {
		return &Result{
			Name:    "RC local ACK timeout and retry budget",
			Formula: []string{"timeout 0 is infinite: the requester never times out"},
			Inputs: []Quantity{
				q("timeout", 0, "", src(in.TimeoutGiven)+" (NCCL_IB_TIMEOUT, 5 bits: 0–31)"),
				q("retry_cnt", float64(in.RetryCnt), "", src(in.RetryGiven)+" (NCCL_IB_RETRY_CNT, 3 bits: 0–7; unused without a timeout)"),
			},
			Outputs: []Quantity{
				{Name: "ack_timeout", Infinite: true, Unit: "s", Text: "infinite", Source: srcIBTimeout},
				{Name: "budget", Infinite: true, Unit: "s", Text: "infinite", Source: "a lost tail packet is never retransmitted"},
			},
			Notes:   []string{"With no ACK timeout a packet lost at the end of a message (no later packet to trigger a NAK) is never retransmitted: the QP, and the job, hang instead of failing with IBV_WC_RETRY_EXC_ERR (12). Use 20-22 for NCCL."},
			Sources: []string{srcIBTimeout, srcNCCLDefaults},
		}
	}
	per := ACKTimeout(in.Timeout)
	total := per * unit.Time(in.RetryCnt+1)
	return &Result{
		Name: "RC local ACK timeout and retry budget",
		Formula: []string{
			"ack_timeout = 4.096 µs × 2^timeout",
			"budget = ack_timeout × (retry_cnt + 1): the first try and retry_cnt retries, after which the WQE completes with IBV_WC_RETRY_EXC_ERR (12)",
		},
		Inputs: []Quantity{
			q("timeout", float64(in.Timeout), "", src(in.TimeoutGiven)+" (NCCL_IB_TIMEOUT, 5 bits: 0–31)"),
			q("retry_cnt", float64(in.RetryCnt), "", src(in.RetryGiven)+" (NCCL_IB_RETRY_CNT, 3 bits: 0–7)"),
		},
		Outputs: []Quantity{
			{Name: "ack_timeout", Value: per.Seconds(), Unit: "s", Text: per.String(), Source: srcIBTimeout},
			{Name: "budget", Value: total.Seconds(), Unit: "s", Text: total.String(), Source: "until the QP fails on tail loss or a dead path"},
		},
		Notes: []string{
			"This is the spec's upper setting. ConnectX adaptive retransmission starts lower and randomised and is capped by it; some older NICs clamp upward (NVIDIA \"Adaptive Retransmission\" parameters).",
			"The budget must outlast the longest pause the fabric can hold a packet for (a PFC storm lasts until the watchdog acts: detection + restoration), or QPs fail before the watchdog breaks the storm.",
		},
		Sources: []string{srcIBTimeout, srcNCCLDefaults},
	}
}

// BusBWInput describes a collective on a cluster.
type BusBWInput struct {
	Op          string // allreduce, allgather, reducescatter, broadcast, reduce, alltoall, sendrecv
	Rate        unit.BitRate
	NICsPerNode int
	Nodes       int
	GPUsPerNode int
	Efficiency  float64    // fraction of line rate NCCL reaches; 0 means 0.97
	Size        unit.Bytes // optional message size for a time estimate
}

// busFactors are nccl-tests' busbw/algbw factors for n ranks.
func busFactor(op string, n int) (float64, string, error) {
	f := float64(n-1) / float64(n)
	switch op {
	case "allreduce":
		return 2 * f, "2(n−1)/n", nil
	case "allgather", "reducescatter", "alltoall":
		return f, "(n−1)/n", nil
	case "broadcast", "reduce", "sendrecv":
		return 1, "1", nil
	}
	return 0, "", fmt.Errorf("unknown collective %q (allreduce, allgather, reducescatter, broadcast, reduce, alltoall, sendrecv)", op)
}

// BusBW estimates the large-message busbw of a collective across nodes.
func BusBW(in BusBWInput) (*Result, error) {
	ranks := in.Nodes * in.GPUsPerNode
	if in.Nodes < 1 || in.GPUsPerNode < 1 || in.NICsPerNode < 1 {
		return nil, fmt.Errorf("nodes, gpus and nics must be at least 1")
	}
	factor, fText, err := busFactor(in.Op, ranks)
	if err != nil {
		return nil, err
	}
	eff, effSrc := in.Efficiency, "given"
	if eff == 0 {
		eff, effSrc = 0.97, "default: middle of the 96–98 % NCCL's maintainers quote"
	}
	nics := in.NICsPerNode
	nicNote := "a node's inter-node bandwidth is the NICs its rings use"
	if in.Op == "alltoall" {
		nics = 1
		nicNote = "AllToAll cannot combine NICs: one NIC's bandwidth (nccl-tests #267)"
	}
	line := in.Rate.Gbps() / 8 * float64(nics) // GB/s
	bus := line * eff
	alg := bus / factor
	r := &Result{
		Name: "Expected nccl-tests busbw at large sizes",
		Formula: []string{
			"busbw ≈ NIC line rate (GB/s) × NICs used per node × efficiency",
			"algbw = busbw / factor, factor = " + fText + " for " + in.Op + " over n ranks",
			"time(S) ≈ S / algbw (latency terms left out)",
		},
		Inputs: []Quantity{
			q("collective", 0, "", in.Op),
			q("nic_speed", in.Rate.Gbps(), "Gbps", "given"),
			q("nics_per_node", float64(in.NICsPerNode), "", "given"),
			q("nodes", float64(in.Nodes), "", "given"),
			q("gpus_per_node", float64(in.GPUsPerNode), "", "given"),
			q("efficiency", eff, "", effSrc),
		},
		Outputs: []Quantity{
			q("ranks", float64(ranks), "", "nodes × gpus"),
			q("line_rate", roundTo(line, 3), "GB/s", nicNote),
			q("busbw", roundTo(bus, 2), "GB/s", srcNCCLCeilings),
			q("factor", roundTo(factor, 4), "", srcNCCLTests),
			q("algbw", roundTo(alg, 2), "GB/s", "busbw / factor"),
		},
		Notes: []string{
			"Within one node NVLink, not the NIC, bounds busbw; this estimate is for jobs that span nodes.",
			"On 2 nodes AllReduce with Tree (or NVLS) can exceed the NIC limit; NCCL_ALGO=Ring does not (nccl-tests #169).",
		},
		Sources: []string{srcNCCLTests, srcNCCLCeilings},
	}
	r.Inputs[0].Text = in.Op
	if in.Size > 0 {
		sec := float64(in.Size) / (alg * 1e9)
		t := unit.Time(math.Round(sec * float64(unit.Second)))
		r.Inputs = append(r.Inputs, bytesQ("size", float64(in.Size), "given"))
		r.Outputs = append(r.Outputs, Quantity{Name: "time", Value: sec, Unit: "s", Text: t.String(), Source: "size / algbw"})
	}
	return r, nil
}
