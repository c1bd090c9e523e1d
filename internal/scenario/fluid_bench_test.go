package scenario

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"rocelab/internal/unit"
)

// fluidCost is what one fluid run cost: wall and CPU time, the peak heap
// in use (sampled between slices of simulated time) and the process's
// peak resident set so far.
type fluidCost struct {
	wall, cpu     time.Duration
	heap, rss     float64 // MiB
	events, flows int64
	solves, moved int64 // rate recomputations, and the flows they touched
	end           unit.Time
	iteration     unit.Time
}

// cpuTime returns the process's user and system time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// maxRSS returns the process's peak resident set in MiB.
func maxRSS() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Maxrss) / 1024 // KiB on Linux
}

// runFluid builds s on the fluid engine and runs it to the end, sampling
// the heap every slice of simulated time.
func runFluid(tb testing.TB, s *Scenario) fluidCost {
	runtime.GC()
	wall, cpu := time.Now(), cpuTime()
	tw, err := BuildFluid(s)
	if err != nil {
		tb.Fatal(err)
	}
	var c fluidCost
	var ms runtime.MemStats
	const slice = 50 * unit.Millisecond
	for now := unit.Time(0); now < s.Duration && !tw.Engine.Done(); {
		now = tw.Engine.RunUntil(min(s.Duration, now+slice))
		runtime.ReadMemStats(&ms)
		c.heap = max(c.heap, float64(ms.HeapInuse+ms.StackInuse)/(1<<20))
	}
	if !tw.Engine.Done() {
		tb.Fatalf("%s: not done by %v", s.Name, s.Duration)
	}
	c.wall, c.cpu = time.Since(wall), cpuTime()-cpu
	c.rss = maxRSS()
	w := tw.Engine.Work()
	c.events, c.flows, c.end = w.Events, int64(len(tw.Engine.Conns())), tw.Engine.Now()
	c.solves, c.moved = w.Solves, w.FlowsSolved
	if tw.Jobs != nil && tw.Jobs.Training != nil {
		c.iteration = tw.Jobs.Training.Report.Iteration
	}
	return c
}

// report puts a fluid run's cost into the benchmark's output.
func (c fluidCost) report(b *testing.B) {
	b.ReportMetric(c.cpu.Seconds(), "cpu-s")
	b.ReportMetric(c.heap, "peak-heap-MiB")
	b.ReportMetric(c.rss, "maxrss-MiB")
	b.ReportMetric(float64(c.events), "events")
	b.ReportMetric(float64(c.flows), "qps")
	b.ReportMetric(float64(c.solves), "solves")
	b.ReportMetric(float64(c.moved)/float64(max(c.solves, 1)), "flows/solve")
	b.ReportMetric(c.iteration.Seconds(), "sim-iteration-s")
}

// BenchmarkFluidGPT3 is acceptance point 1 of issue 15: one training
// iteration of the seed's 2048-GPU job (GPT-3 175B, TP 8 × PP 16 × DP 16
// on 256 servers of eight 100G NICs) on the fluid engine. ns/op is the
// wall time (budget: 2 minutes on the project's 2-core machine);
// maxrss-MiB the process's peak (budget: 4 GiB). Run it alone:
//
//	go test ./internal/scenario -run '^$' -bench 'FluidGPT3$' -benchtime 1x
func BenchmarkFluidGPT3(b *testing.B) {
	s, err := LoadFile("testdata/gpt3-2048gpu.yaml")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		runFluid(b, s).report(b)
	}
}

// growthJob is the GPT-3 job at gpus GPUs: TP 8, PP 16 and DP scaled, on
// rail-optimised servers of eight 100G NICs under a non-blocking
// leaf-spine of 400G uplinks (128 servers a rail group, or all of them
// when fewer).
func growthJob(gpus int) string {
	servers := gpus / 8
	perLeaf := min(servers, 128)
	leaves := 8 * ((servers + perLeaf - 1) / perLeaf)
	up := max(perLeaf/4, 1)
	spines := min(up, 8)
	return fmt.Sprintf(`name: gpt3-%dgpu
duration: 60s
topology:
  kind: leaf-spine
  leaves: %d
  spines: %d
  hosts_per_leaf: %d
  uplinks_per_leaf: %d
  host_link: {rate: 100G, cable: 3m}
  fabric_link: {rate: 400G, cable: 30m}
  servers: {gpus: 8, nics: 8, rail_optimized: true, gpu: A100}
switch:
  buffer: 64MiB
  pfc: {enabled: true, priorities: [3], headroom: auto}
workload:
  training: {params: 175e9, layers: 96, hidden: 12288, seq_len: 2048, micro_batch: 1, micro_batches: 96, dtype: bf16, tp: 8, pp: 16, dp: %d}
`, gpus, leaves, spines, perLeaf, up, gpus/128)
}

// BenchmarkFluidGrowth is acceptance point 4 of issue 15: the fluid
// engine's wall time, CPU time and peak heap as the GPT-3 job grows, TP 8
// and PP 16 with DP scaled. Run the sizes one by one (maxrss-MiB is the
// process's peak, so it only means something for the first):
//
//	go test ./internal/scenario -run '^$' -bench 'FluidGrowth/gpus=2048$' -benchtime 1x
func BenchmarkFluidGrowth(b *testing.B) {
	for _, gpus := range []int{128, 512, 2048, 8192, 16384} {
		b.Run(fmt.Sprintf("gpus=%d", gpus), func(b *testing.B) {
			s, err := Load(fmt.Sprintf("gpt3-%dgpu.yaml", gpus), []byte(growthJob(gpus)))
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < b.N; i++ {
				runFluid(b, s).report(b)
			}
		})
	}
}
