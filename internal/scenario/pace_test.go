package scenario

import (
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestRunKeepsCollectorPace checks that a run whose live heap grows — a
// deep-buffer incast, whose packets wait in a 2 GiB switch buffer — is
// collected at the pace GOGC sets, not back to back. Under GOGC=400 each
// collection lets the heap grow fivefold (from at least the runtime's
// 4 MiB floor) before the next, so a run that grows its heap from h0 to
// h1 makes at most 1 + ceil(log5(h1/max(h0, 4 MiB))) collections. A
// memory limit pinned at the pace's goal at the run's start (the
// collector's pause of session 45, reverted) made the collector run each
// time the heap grew a few MB past it: 42 collections here, 64 against 2
// for the same incast on 64 hosts under rocelab run.
func TestRunKeepsCollectorPace(t *testing.T) {
	senders := make([]string, 31)
	for i := range senders {
		senders[i] = fmt.Sprintf("h%d", i)
	}
	s, err := Load("deep.yaml", []byte(`
name: deep-buffer-incast
duration: 3ms
topology: {kind: single-switch, hosts: 32, host_link: {rate: 100G, cable: 3m}}
switch: {buffer: 2GiB}
host: {mtu: 1024, cc: none}
traffic: {generators: [{kind: incast, senders: [`+strings.Join(senders, ", ")+`], receiver: h31, bytes: 64MiB}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	tw, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	tw.Run()
	runtime.ReadMemStats(&after)
	if grown := after.HeapAlloc - before.HeapAlloc; grown < 100<<20 {
		t.Fatalf("the incast's heap grew by %d MB, want over 100 MB for the test to mean anything", grown>>20)
	}
	want := 1 + uint32(math.Ceil(math.Log(float64(after.HeapAlloc)/float64(max(before.HeapAlloc, 4<<20)))/math.Log(5)))
	if n := after.NumGC - before.NumGC; n > want {
		t.Errorf("the run made %d collections while its heap grew from %d to %d MB, want at most %d under GOGC=400",
			n, before.HeapAlloc>>20, after.HeapAlloc>>20, want)
	}
}
