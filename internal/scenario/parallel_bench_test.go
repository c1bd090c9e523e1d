package scenario

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"rocelab/internal/sim"
)

// The parallel engine's benchmarks. Their figures need a machine whose
// cores are not busy with other work; on a shared one, compare runs with
// -count and benchstat. docs/engine.md gives the commands and figures.

// allReduce64 is a 64-server AllReduce of 1 GiB: eight A100 each, one
// 100G NIC per server, four leaves of 16 under four spines, NCCL's ring.
func allReduce64(b *testing.B) *Scenario {
	return mustLoad(b, "allreduce64.yaml", `
name: allreduce-64-servers
duration: 10s
topology:
  kind: leaf-spine
  leaves: 4
  spines: 4
  hosts_per_leaf: 16
  uplinks_per_leaf: 16
  host_link: {rate: 100G, cable: 3m}
  fabric_link: {rate: 100G, cable: 20m}
  servers: {gpus: 8, nics: 1, gpu: A100}
switch: {buffer: 64MiB}
host: {cc: dcqcn}
nccl: {NCCL_ALGO: ring, NCCL_PROTO: simple}
workload:
  nccl_tests: all_reduce_perf -b 1G -e 1G -g 8 -n 1 -w 0
`)
}

// fatTree16 is the 1024-host k=16 fat-tree permutation of 1 MB per host.
func fatTree16(b *testing.B) *Scenario {
	return mustLoad(b, "fattree16.yaml", `
name: fattree-k16-permutation
duration: 50ms
topology: {kind: fat-tree, k: 16, host_link: {rate: 100G, cable: 3m}}
host: {mtu: 4096, cc: dcqcn}
traffic: {generators: [{kind: permutation, bytes: 1MB}]}
`)
}

// benchThreads runs s on one thread and on two, and reports both rates
// and the speedup of two over one: what the parallel engine gains on the
// project's two-core machine; the speedup two cores would give with
// free barriers, counting every event alike (all events over the path
// events of the two-thread run), and the same with the workloads' events
// on the core the run gives them (bound-as-run, sim.WindowStats
// .RunPathEvents); and the round trip of a cache line
// between the two CPUs before and after the runs (lineTrip), which says
// where the host placed them, and whether they were two cores then
// (aluCapacity). Each run's timeline (sim.Timeline: the
// events each domain ran in every 100 ms of wall time) goes to the log,
// and the two-thread run's slowest and fastest tenth of slices to the
// metrics, so that one run shows whether its speed was set at its start
// or changed on the way.
func benchThreads(b *testing.B, s *Scenario) {
	b.StopTimer()
	before, aluBefore := lineTrip(), aluCapacity()
	b.StartTimer()
	var wall [3]time.Duration
	var events, path, runPath uint64
	var lines [3]*sim.Timeline
	var steal [3]float64
	for i := 0; i < b.N; i++ {
		for _, th := range []int{1, 2} {
			stolen := stealTime()
			start := time.Now()
			tw := built(b, s, Options{Threads: th})
			lines[th] = sim.NewTimeline(nanotime, timelineSlice, len(tw.run.Parts), 1<<13)
			lines[th].CPU = func() int64 { return int64(cpuTime()) }
			tw.run.Timeline = lines[th]
			tw.Run()
			if !tw.Done() {
				b.Fatal("the workload did not finish")
			}
			wall[th] += time.Since(start)
			steal[th] += stealTime() - stolen
			events = tw.Executed()
			_, _, st := tw.RunStats()
			path, runPath = st.PathEvents, st.RunPathEvents
		}
	}
	b.ReportMetric(float64(events)*float64(b.N)/wall[1].Seconds(), "events/s-1thread")
	b.ReportMetric(float64(events)*float64(b.N)/wall[2].Seconds(), "events/s-2threads")
	b.ReportMetric(wall[1].Seconds()/wall[2].Seconds(), "speedup")
	b.ReportMetric(float64(events)/float64(path), "bound")
	b.ReportMetric(float64(events)/float64(runPath), "bound-as-run")
	b.StopTimer()
	for th := 1; th <= 2; th++ {
		b.Logf("%d thread(s), M events/s of each domain in slices of %v:\n%s", th, time.Duration(timelineSlice), timeline(lines[th]))
	}
	b.ReportMetric(steal[1]/float64(b.N), "steal-s-1thread")
	b.ReportMetric(steal[2]/float64(b.N), "steal-s-2threads")
	p10, p90 := sliceRates(lines[2])
	b.ReportMetric(p10/1e6, "slice-p10-Mevents/s-2threads")
	b.ReportMetric(p90/1e6, "slice-p90-Mevents/s-2threads")
	b.ReportMetric(before, "linetrip-ns-before")
	b.ReportMetric(lineTrip(), "linetrip-ns-after")
	b.ReportMetric(capacity(), "capacity")
	b.ReportMetric(aluBefore, "alu-capacity-before")
	b.ReportMetric(aluCapacity(), "alu-capacity-after")
}

// timelineSlice is the wall time between a benchmark run's timeline
// records: 100 ms.
const timelineSlice = int64(100 * time.Millisecond)

// clockStart anchors nanotime.
var clockStart = time.Now()

// nanotime reads the monotonic clock in nanoseconds.
func nanotime() int64 { return int64(time.Since(clockStart)) }

// timeline prints t's records, ten slices a line: the second the line
// starts at, then each slice's rate of every domain (M events/s), the
// domains apart by '/'; at the line's end, over its slices, the
// workloads' rate, the CPUs the process had (busy: 2 when both workers
// ran throughout; their waits spin, so they count) and all the events
// per CPU second, which moves with how fast the cores ran, not with
// whether the process had them; and the rounds per second.
func timeline(t *sim.Timeline) string {
	var sb strings.Builder
	parts := t.Stride - 1
	for k := 0; k < t.Records(); k += 10 {
		fmt.Fprintf(&sb, "%6.1fs", float64(t.At[k])/1e9)
		var ctl float64
		n := min(k+10, t.Records()) - k
		at, cpu, events := sliceSpan(t, k, k+n)
		for j := k; j < k+n; j++ {
			sb.WriteByte(' ')
			for i := range parts {
				if i > 0 {
					sb.WriteByte('/')
				}
				fmt.Fprintf(&sb, "%.1f", t.Rate(j, i)/1e6)
			}
			ctl += t.Rate(j, parts) / 1e6
		}
		rounds := t.Rounds[k+n-1]
		if k > 0 {
			rounds -= t.Rounds[k-1]
		}
		fmt.Fprintf(&sb, "  workloads %.2f busy %.2f per-cpu-s %.1f k-rounds/s %.0f\n", ctl/float64(n), float64(cpu)/float64(at),
			float64(events)*1e3/float64(max(cpu, 1)), float64(rounds)*1e6/float64(at))
	}
	return sb.String()
}

// stealTime returns the seconds the hypervisor has run something else
// while this VM's vCPUs were ready to run, summed over them (Linux's
// /proc/stat), or 0 where it is not told. A run's share of it is time
// its workers lost that no count of the engine's shows.
func stealTime() float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	if len(f) < 9 || f[0] != "cpu" {
		return 0
	}
	ticks, err := strconv.ParseFloat(f[8], 64)
	if err != nil {
		return 0
	}
	return ticks / 100 // USER_HZ
}

// sliceSpan returns the wall time, the CPU time and the events of every
// domain and the workloads from the end of record k-1 (or the start) to
// the end of record j-1.
func sliceSpan(t *sim.Timeline, k, j int) (at, cpu int64, events uint64) {
	at, cpu = t.At[j-1], t.CPUs[j-1]
	for i := range t.Stride {
		events += t.Events[(j-1)*t.Stride+i]
	}
	if k > 0 {
		at -= t.At[k-1]
		cpu -= t.CPUs[k-1]
		for i := range t.Stride {
			events -= t.Events[(k-1)*t.Stride+i]
		}
	}
	return at, cpu, events
}

// sliceRates returns the 10th and 90th percentiles of the rate of all of
// t's domains together over its slices, events per second.
func sliceRates(t *sim.Timeline) (p10, p90 float64) {
	n := t.Records()
	if n == 0 {
		return 0, 0
	}
	r := make([]float64, n)
	for k := range r {
		for i := range t.Stride - 1 {
			r[k] += t.Rate(k, i)
		}
	}
	slices.Sort(r)
	return r[n/10], r[n*9/10]
}

// capacity measures what two cores give on this machine now: the work two
// goroutines do together against one alone in the same time, each reading
// and writing its own 16 MiB at random as the engine does its fabric's
// state. 2 when the cores and their caches and memory are free; a VM
// whose two vCPUs share a physical core, or a busy host, gives less, and
// no parallel run can beat it. Run after the timed runs, it tells whether
// the speedup above was the engine's or the machine's.
func capacity() float64 {
	var mem [2][]uint64
	for i := range mem {
		mem[i] = make([]uint64, 2<<20)
		for j := range mem[i] {
			mem[i][j] = uint64(j) // fault the pages in before the clock runs
		}
	}
	return together(func(i int) {
		a, x := mem[i], uint64(1)
		for range 20_000_000 {
			x = x*6364136223846793005 + 1442695040888963407
			a[x>>43] += x
		}
	})
}

// aluCapacity is capacity without memory: each goroutine runs eight
// independent chains of multiplies and adds in registers, as many as the
// core's execution units take at once. Two separate cores give 2 whatever
// their caches do; two hardware threads of one core share those units and
// give well under 2. Beside capacity, it tells a short cache or memory
// (capacity low, this near 2) from a short core (both low).
func aluCapacity() float64 {
	var sink [2]uint64
	return together(func(i int) {
		var x [8]uint64
		for j := range x {
			x[j] = uint64(i*8 + j)
		}
		for range 40_000_000 {
			for j := range x {
				x[j] = x[j]*6364136223846793005 + 1442695040888963407
			}
		}
		sink[i] = x[0] ^ x[1] ^ x[2] ^ x[3] ^ x[4] ^ x[5] ^ x[6] ^ x[7]
	})
}

// together runs work(0) alone, then work(0) and work(1) at once on two
// goroutines, and returns the work done together in the time of one
// alone: twice the time alone over the time together.
func together(work func(i int)) float64 {
	t0 := time.Now()
	work(0)
	one := time.Since(t0)
	var wg sync.WaitGroup
	t0 = time.Now()
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(i)
		}()
	}
	wg.Wait()
	return 2 * one.Seconds() / time.Since(t0).Seconds()
}

// BenchmarkParallelFatTree16 is the 1024-host k=16 permutation on one
// thread and on two (the target: a speedup of 1.7 or more).
func BenchmarkParallelFatTree16(b *testing.B) { benchThreads(b, fatTree16(b)) }

// BenchmarkParallelAllReduce64 is the 64-server AllReduce of 1 GiB on one
// thread and on two.
func BenchmarkParallelAllReduce64(b *testing.B) { benchThreads(b, allReduce64(b)) }

// BenchmarkThreadsGOMAXPROCS runs the k=16 permutation with as many
// threads as GOMAXPROCS; go test -cpu 1,2,3,4,5,6,7,8 shows what the
// engine does with more threads than the machine has cores.
func BenchmarkThreadsGOMAXPROCS(b *testing.B) {
	s := fatTree16(b)
	benchRunWith(b, s, true, Options{Threads: runtime.GOMAXPROCS(0)})
}

// BenchmarkProjection splits the k=16 permutation and the AllReduce into
// 8, 32 and 64 domains, runs them on the machine's cores, and reports
// what the windows say a machine with a core per domain would do: the
// critical path (the events of the busiest domain in each window, summed)
// as a share of the domains' events, the windows, and the speedup
// projected, with the workloads' events on the least busy domain's core
// (sim.WindowStats.PathEvents), from
// the single-thread time per event and the barrier cost per window that
// the two-thread run measured here. docs/engine.md explains how far to
// trust it.
func BenchmarkProjection(b *testing.B) {
	for _, c := range []struct {
		name string
		s    *Scenario
	}{{"fattree16", fatTree16(b)}, {"allreduce64", allReduce64(b)}} {
		b.Run(c.name, func(b *testing.B) {
			perEvent, perWindow := calibrate(b, c.s)
			for _, p := range []int{8, 32, 64} {
				tw := built(b, c.s, Options{Threads: p, Workers: runtime.GOMAXPROCS(0)})
				tw.Run()
				_, _, st := tw.RunStats()
				var total uint64
				for _, e := range st.PartEvents {
					total += e
				}
				serial := float64(total+st.ControlEvents) * perEvent
				parallel := float64(st.PathEvents)*perEvent + float64(st.Windows)*perWindow
				b.ReportMetric(float64(st.CriticalEvents)/float64(total), fmt.Sprintf("critical-share-%d", p))
				b.ReportMetric(float64(st.Windows), fmt.Sprintf("windows-%d", p))
				b.ReportMetric(serial/parallel, fmt.Sprintf("projected-speedup-%d", p))
			}
		})
	}
}

// calibrate measures, on this machine, the wall time of one event on one
// thread and the cost of one window's barrier on two threads in windows
// (as the projection's runs on more domains than cores go): the two runs'
// difference beyond the two-thread run's critical path.
func calibrate(b *testing.B, s *Scenario) (perEvent, perWindow float64) {
	run := func(th int) (time.Duration, *Twin) {
		start := time.Now()
		tw := built(b, s, Options{Threads: th, Windowed: true})
		tw.Run()
		return time.Since(start), tw
	}
	w1, tw1 := run(1)
	w2, tw2 := run(2)
	perEvent = float64(w1.Nanoseconds()) / float64(tw1.Executed())
	_, _, st := tw2.RunStats()
	critical := float64(st.PathEvents) * perEvent
	perWindow = max(0, (float64(w2.Nanoseconds())-critical)/float64(st.Windows))
	b.ReportMetric(perEvent, "ns/event-1thread")
	b.ReportMetric(perWindow, "ns/window-2threads")
	return perEvent, perWindow
}
