package scenario

import (
	"fmt"
	"strings"
	"testing"

	"rocelab/internal/unit"
)

// While an nccl-tests AllReduce has network slices to post, the
// workloads promise the run a lead of NCCL's proxy operation less the
// completion delay (nic.Transport.Lead): every post at least that far
// past the control side's clock, no end and no connect before. A flow
// still to run promises none; so does a run whose workloads are done.
func TestLeadOfAllReduce(t *testing.T) {
	tw, err := BuildWith(mustLoad(t, "homes.yaml", homesYAML), Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	tw.RunUntil(100 * unit.Microsecond)
	if got, want := tw.Transport.Lead(), 200*unit.Nanosecond; got != want {
		t.Errorf("lead mid-AllReduce %v, want %v (a proxy operation of 400 ns less the 200 ns completion delay)", got, want)
	}
	tw.Run()
	if !tw.Done() {
		t.Fatal("the AllReduce did not finish")
	}
	if got := tw.Transport.Lead(); got != 0 {
		t.Errorf("lead after the AllReduce %v, want 0", got)
	}

	y := strings.Replace(homesYAML, "workload:\n", "traffic:\n  flows: [{name: late, src: h0, dst: h3, bytes: 4KiB, start: 900us}]\nworkload:\n", 1)
	tw, err = BuildWith(mustLoad(t, "homes-flow.yaml", y), Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	tw.RunUntil(100 * unit.Microsecond)
	if got := tw.Transport.Lead(); got != 0 {
		t.Errorf("lead with a flow to start %v, want 0", got)
	}
}

// An AllReduce that ends at its stop, and one that a host's link going
// down fails (its queue pairs exceed their retries: a completion in
// error ends the job, which no domain may run past, though the control
// side published a lead: Scheduler.Hold), give the same results on one
// domain and split, in the partitionings every run is checked on and
// linked throughout, where the lead is used.
func TestLeadPartitionsAgree(t *testing.T) {
	fails := strings.Replace(homesYAML, "nccl: {", "faults: [{kind: link_down, link: h3, start: 200us}]\nnccl: {NCCL_IB_TIMEOUT: 1, NCCL_IB_RETRY_CNT: 1, ", 1)
	for _, c := range []struct{ name, yaml string }{{"allreduce", homesYAML}, {"allreduce-fails", fails}} {
		s := mustLoad(t, c.name+".yaml", c.yaml)
		checkPartitionings(t, c.name, s)
		tw, err := BuildWith(s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		end := tw.Run()
		if !tw.Done() || end >= s.Duration {
			t.Fatalf("%s ran to %v (done %v), want it to end at its workloads' stop", c.name, end, tw.Done())
		}
		checkLinked(t, c.name, s, fingerprint(t, tw))
	}
}

// A host link going down mid-AllReduce, at times where the part that
// writes the completion in error has run a pass past it with the bound
// it had before (so it must publish no later than the hold at once, not
// at its next bound), gives the same results on one domain and split,
// linked throughout. The run's workers interleave differently each
// time: without the hold every run failed (11 of 11), without publishing
// it at once 9 runs in 10 (a part ran past the stop: AdvanceTo panics).
func TestLeadHoldAgrees(t *testing.T) {
	for at := 362; at <= 390; at += 7 {
		name := fmt.Sprintf("h3-down-at-%dus", at)
		y := strings.Replace(homesYAML, "nccl: {", fmt.Sprintf("faults: [{kind: link_down, link: h3, start: %dus, reroute: false}]\nnccl: {NCCL_IB_TIMEOUT: 1, NCCL_IB_RETRY_CNT: 1, ", at), 1)
		s := mustLoad(t, name+".yaml", y)
		tw, err := BuildWith(s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		tw.Run()
		checkLinked(t, name, s, fingerprint(t, tw))
	}
}

// checkLinked runs s on 2, 3 and 8 threads linked throughout, where the
// lead is used, and requires want, the fingerprint of one domain.
func checkLinked(t *testing.T, name string, s *Scenario, want string) {
	t.Helper()
	for _, threads := range []int{2, 3, 8} {
		o := Options{Threads: threads}
		tw, err := BuildWith(s, o)
		if err != nil {
			t.Fatal(err)
		}
		tw.run.LinkedBelow = 2 // linked throughout
		watchStalls(t, name, o, tw, func() { tw.Run() })
		if got := fingerprint(t, tw); got != want {
			t.Errorf("%s on %d threads linked throughout differs from one domain:\n%s", name, threads, firstDiff(want, got))
		}
	}
}
