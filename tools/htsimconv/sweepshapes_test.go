package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// shapeCases are workloads users run that newSweepCase does not draw,
// for TestCompareRandomCasesWithHtsim with SWEEP_SHAPES=1: an all-to-all of every host of
// a 128-host fat-tree, htsim's chained ring transfers (gen_allreduce.py's
// layout, each transfer started by the one before it through a trigger),
// a permutation of long flows with an incast a trigger starts late, and a
// permutation on a 2:1 oversubscribed leaf-spine (a -topo file).
func shapeCases() []sweepCase {
	common := func(mtu string) []string {
		return []string{"-nodes", "128", "-strat", "ecmp_host", "-paths", "1", "-linkspeed", "100000", "-mtu", mtu,
			"-pfc_thresholds", "12", "15", "-q", "1000", "-end", "100000", "-seed", "1"}
	}
	tiers3 := func(mtu string) []string {
		return append(common(mtu), "-tiers", "3", "-hop_latency", "1", "-switch_latency", "0")
	}
	var cs []sweepCase
	add := func(name string, args []string, conns []string, trigs int, finishes, hpcc bool, topo string) {
		m := fmt.Sprintf("Nodes 128\nConnections %d\n", len(conns))
		if trigs > 0 {
			m += fmt.Sprintf("Triggers %d\n", trigs)
			for i := 1; i <= trigs; i++ {
				m += fmt.Sprintf("trigger id %d oneshot\n", i)
			}
		}
		cs = append(cs, sweepCase{name: name, args: args, matrix: m + strings.Join(conns, "\n") + "\n", hpcc: hpcc, topo: topo, finishes: finishes})
	}

	var a2a []string
	for s := range 128 {
		for d := range 128 {
			if s != d {
				a2a = append(a2a, fmt.Sprintf("%d->%d id %d start 0 size 16384", s, d, len(a2a)+1))
			}
		}
	}
	add("x-a2a-3t128-100M-mtu4096", tiers3("4096"), a2a, 0, false, true, "")

	var ring []string
	order := rand.New(rand.NewPCG(1, 0)).Perm(128)
	trig := 0
	for g := range 8 {
		members := order[16*g : 16*g+16]
		for s := range 16 {
			for d := 1; d < 32; d++ {
				c := fmt.Sprintf("%d->%d id %d", members[(s+d-1)%16], members[(s+d)%16], len(ring)+1)
				if d == 1 {
					c += " start 0"
				} else {
					c += fmt.Sprintf(" trigger %d", trig)
				}
				c += " size 131072"
				if d < 31 {
					trig++
					c += fmt.Sprintf(" send_done_trigger %d", trig)
				}
				ring = append(ring, c)
			}
		}
	}
	add("x-ring16-3t128-100M-mtu4096", tiers3("4096"), ring, trig, true, true, "")

	rng := rand.New(rand.NewPCG(2, 0))
	var late []string
	perm := rng.Perm(128)
	used := map[[2]int]bool{}
	for s, d := range perm {
		if s == d {
			continue
		}
		used[[2]int{s, d}] = true
		size := 2 << 20
		c := fmt.Sprintf("%d->%d id %d start 0", s, d, len(late)+1)
		if len(late) == 0 {
			size = 256 << 10
			c += " send_done_trigger 1"
		}
		late = append(late, fmt.Sprintf("%s size %d", c, size))
	}
	dst := rng.IntN(128)
	for _, s := range rng.Perm(128) {
		if n := len(late); s != dst && !used[[2]int{s, dst}] && n < len(perm)+16 {
			late = append(late, fmt.Sprintf("%d->%d id %d trigger 1 size 262144", s, dst, n+1))
		}
	}
	add("x-perm+lateincast-3t128-100M-mtu4096", tiers3("4096"), late, 1, true, true, "")

	var over []string
	for s, d := range rand.New(rand.NewPCG(3, 0)).Perm(128) {
		if s != d {
			over = append(over, fmt.Sprintf("%d->%d id %d start 0 size 1048576", s, d, len(over)+1))
		}
	}
	add("x-perm-2t128os2-100M-mtu4096", common("4096"), over, 0, false, false, leafSpine2to1)
	return cs
}

// leafSpine2to1 is a 128-host leaf-spine in htsim's fat-tree file format:
// 8 ToRs of 16 100G hosts, each with 8 100G uplinks (2:1), to 8 spines.
// Synthetic: written for this sweep.
const leafSpine2to1 = `Nodes 128
Tiers 2
Podsize 128

Tier 0
Downlink_speed_Gbps 100
Radix_Down 16
Radix_Up 8
Downlink_Latency_ns 1000
Switch_Latency_ns 0
Oversubscribed 2

Tier 1
Downlink_speed_Gbps 100
Radix_Down 8
Downlink_Latency_ns 1000
Switch_Latency_ns 0
`
