package scenario

import (
	"fmt"
	"testing"
)

// BenchmarkSerialBlocking measures temporal blocking: the fat-tree
// permutation of 256 KB a host (k=16, and k=32 as the serial
// target) split into 16 to 256 domains that one worker runs one after
// another, each through a window of the lookahead, against the serial run
// of one domain; and the same domains linked, a goroutine each on what
// GOMAXPROCS gives, each running ahead as far as its neighbours' published
// times allow. It reports events per CPU second of the run (the build
// left out), the windows and the rounds linked. Run it with -cpu 1 and
// -benchtime 1x; k=32's runs take a minute or more each. docs/engine.md
// ("Temporal blocking, tried") gives the figures: on one core, every split
// runs slower than one domain.
func BenchmarkSerialBlocking(b *testing.B) {
	for _, k := range []int{16, 32} {
		s := mustLoad(b, "fattree.yaml", fmt.Sprintf(`
name: fattree-k%d-256KB
duration: 50ms
topology: {kind: fat-tree, k: %d, host_link: {rate: 100G, cable: 3m}}
host: {mtu: 1024, cc: dcqcn}
traffic: {generators: [{kind: permutation, bytes: 256KB}]}
`, k, k))
		for _, c := range []struct {
			name string
			o    Options
		}{
			{"serial", Options{}},
			{"windows-16", Options{Threads: 16, Workers: 1, Windowed: true}},
			{"windows-32", Options{Threads: 32, Workers: 1, Windowed: true}},
			{"windows-64", Options{Threads: 64, Workers: 1, Windowed: true}},
			{"windows-128", Options{Threads: 128, Workers: 1, Windowed: true}},
			{"windows-256", Options{Threads: 256, Workers: 1, Windowed: true}},
			{"linked-16", Options{Threads: 16}},
		} {
			b.Run(fmt.Sprintf("k=%d/%s", k, c.name), func(b *testing.B) {
				var events, windows, linked uint64
				var cpu float64
				for i := 0; i < b.N; i++ {
					tw := built(b, s, c.o)
					cpu0 := cpuTime()
					tw.Run()
					cpu += (cpuTime() - cpu0).Seconds()
					if !tw.Done() {
						b.Fatal("the permutation did not finish")
					}
					_, _, st := tw.RunStats()
					events += tw.Executed()
					windows += st.Windows
					linked += st.Linked
				}
				n := float64(b.N)
				b.ReportMetric(float64(events)/cpu, "events/cpu-s")
				b.ReportMetric(float64(windows)/n, "windows")
				b.ReportMetric(float64(linked)/n, "linked")
			})
		}
	}
}
