package scenario

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"rocelab/examples"
)

// benchRun builds and runs s b.N times on one domain and reports
// packet-hops and events per second of wall time. With finish set, a run
// whose workload is not done by the scenario's end fails the benchmark.
func benchRun(b *testing.B, s *Scenario, finish bool) {
	benchRunWith(b, s, finish, Options{})
}

// benchRunWith is benchRun split as o says.
func benchRunWith(b *testing.B, s *Scenario, finish bool, o Options) (events uint64) {
	var hops uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tw := built(b, s, o)
		tw.Run()
		if finish && !tw.Done() {
			b.Fatal("the workload did not finish")
		}
		events += tw.Executed()
		for _, pt := range tw.Net.Ports {
			hops += uint64(pt.Snapshot().TxPhyPackets)
		}
	}
	b.ReportMetric(float64(hops)/b.Elapsed().Seconds(), "packet-hops/s")
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	return events
}

// built builds s split as o says, as rocelab run does: with the run's
// estimated memory, for which a large run's build asks for huge pages.
func built(b *testing.B, s *Scenario, o Options) *Twin {
	o.Memory = s.Estimate().memoryWith()
	tw, err := BuildWith(s, o)
	if err != nil {
		b.Fatal(err)
	}
	return tw
}

// BenchmarkLeafSpinePermutation runs the 128-host permutation example
// (4 MiB per host, DCQCN on, the NIC's ACKs and CNPs included).
func BenchmarkLeafSpinePermutation(b *testing.B) {
	data, err := examples.FS.ReadFile("leafspine-permutation.yaml")
	if err != nil {
		b.Fatal(err)
	}
	s, err := Load("leafspine-permutation.yaml", data)
	if err != nil {
		b.Fatal(err)
	}
	benchRun(b, s, true)
}

// BenchmarkFatTreePermutation is the HPCC ns-3 comparison point: a k=8
// fat-tree of 128 hosts at 100G, a permutation of 2 MB per host, DCQCN,
// path MTU 1024. ns/op is the wall time of the whole run.
func BenchmarkFatTreePermutation(b *testing.B) {
	s, err := Load("fattree.yaml", []byte(`
name: fattree-permutation
duration: 10ms
topology: {kind: fat-tree, k: 8, host_link: {rate: 100G, cable: 3m}}
host: {mtu: 1024, cc: dcqcn}
traffic: {generators: [{kind: permutation, bytes: 2MB}]}
`))
	if err != nil {
		b.Fatal(err)
	}
	benchRun(b, s, true)
}

// BenchmarkIncast is a 127→1 incast of 1 MiB per sender on one 128-port
// switch at 100G, PFC only: the htsim comparison's incast.
func BenchmarkIncast(b *testing.B) {
	s, err := Load("incast.yaml", []byte(`
name: incast-127
duration: 50ms
topology: {kind: single-switch, hosts: 128, host_link: {rate: 100G, cable: 3m}}
switch: {buffer: 64MiB}
host: {cc: none}
traffic: {generators: [{kind: incast, bytes: 1MiB, senders: [127], receiver: h0}]}
`))
	if err != nil {
		b.Fatal(err)
	}
	benchRun(b, s, true)
}

// BenchmarkHost1000QPs is one sender with 1000 QPs, each paced at 100 Mb/s
// by a rate cap, to one receiver: the NIC's ready rings and pacing
// calendar at scale. It stops at 2 ms, long before the QPs finish.
func BenchmarkHost1000QPs(b *testing.B) {
	var y strings.Builder
	y.WriteString("name: host-1000-qps\nduration: 2ms\ntopology: {kind: single-switch, hosts: 2}\nhost: {cc: none}\ntraffic:\n  flows:\n")
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&y, "    - {name: q%d, src: h0, dst: h1, bytes: 100KB, rate: 100M}\n", i)
	}
	s, err := Load("qps.yaml", []byte(y.String()))
	if err != nil {
		b.Fatal(err)
	}
	benchRun(b, s, false)
}

// fatTree loads a k-ary fat-tree permutation of 2 MB per host at 100G,
// DCQCN, path MTU 1024: the HPCC ns-3 comparison point at every size.
func fatTree(b *testing.B, k int) *Scenario {
	s, err := Load("fattree.yaml", []byte(fmt.Sprintf(`
name: fattree-k%d
duration: 50ms
topology: {kind: fat-tree, k: %d, host_link: {rate: 100G, cable: 3m}}
host: {mtu: 1024, cc: dcqcn}
traffic: {generators: [{kind: permutation, bytes: 2MB}]}
`, k, k)))
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkFatTreeK runs the fat-tree permutation at k = 8, 16, 24 and 32
// (128 to 8192 hosts) on one thread: events/s should not fall as the
// fabric grows. k=24 and k=32 take minutes each: run with -benchtime=1x.
func BenchmarkFatTreeK(b *testing.B) {
	for _, k := range []int{8, 16, 24, 32} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) { benchRun(b, fatTree(b, k), true) })
	}
}

// BenchmarkFatTreeScaling runs the k=8 permutation, the k=32 one, and
// the k=8 one again, on one thread, and reports both event rates (k=8's
// the mean of its two runs, which bracket k=32's minutes) and their ratio
// (the target: k=32 at least half of k=8), per second of wall
// time and per second of the process's CPU time: on a shared machine the
// wall rates move with the load, the CPU rates much less.
func BenchmarkFatTreeScaling(b *testing.B) {
	var wall, cpu [2]float64
	for i := 0; i < b.N; i++ {
		for _, k := range []int{8, 32, 8} {
			s := fatTree(b, k)
			start, cpu0 := time.Now(), cpuTime()
			tw := built(b, s, Options{})
			tw.Run()
			if !tw.Done() {
				b.Fatalf("k=%d: the permutation did not finish", k)
			}
			j, runs := 1, float64(b.N)
			if k == 8 {
				j, runs = 0, 2*float64(b.N)
			}
			ev := float64(tw.Executed()) / runs
			wall[j] += ev / time.Since(start).Seconds()
			cpu[j] += ev / (cpuTime() - cpu0).Seconds()
		}
	}
	b.ReportMetric(wall[0], "events/s-k8")
	b.ReportMetric(wall[1], "events/s-k32")
	b.ReportMetric(wall[1]/wall[0], "k32/k8")
	b.ReportMetric(cpu[0], "events/cpu-s-k8")
	b.ReportMetric(cpu[1], "events/cpu-s-k32")
	b.ReportMetric(cpu[1]/cpu[0], "cpu-k32/k8")
}
