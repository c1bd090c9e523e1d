package scenario

import (
	"bytes"
	"math"
	"testing"

	"rocelab/internal/fabric"
)

// redLine is the marking probability RED should give at queue length q
// for the profile redScenario configures (Kmin 100 KB, Kmax 400 KB, Pmax
// 0.2), computed here independently of the switch.
func redLine(q int64) float64 {
	const kmin, kmax, pmax = 100_000, 400_000, 0.2
	switch {
	case q <= kmin:
		return 0
	case q > kmax:
		return 1
	}
	return pmax * float64(q-kmin) / float64(kmax-kmin)
}

// markLog records every ECN decision at a switch.
type markLog struct {
	q      []int64
	marked []bool
}

func (m *markLog) ObserveMark(_ uint8, q int64, _ float64, marked bool) {
	m.q = append(m.q, q)
	m.marked = append(m.marked, marked)
}

// With PFC holding a 2:1 incast queue between Kmin and Kmax, the fraction
// of packets marked matches the RED line, marking at dequeue (the default)
// and at enqueue alike: overall and in five queue-length bins, the marks
// stay within 4 standard deviations of the sum of the per-packet
// probabilities (a Poisson-binomial count).
func TestREDMarking(t *testing.T) {
	for _, at := range []string{"dequeue", "enqueue"} {
		t.Run(at, func(t *testing.T) {
			s := redScenario(t, at)
			if s.Switch.ECN.AtEnqueue != (at == "enqueue") {
				t.Fatalf("at: %s not read", at)
			}
			tw, err := Build(s)
			if err != nil {
				t.Fatal(err)
			}
			log := &markLog{}
			tw.Net.Switches[0].SetMarkObserver(log)
			tw.Run()
			checkRED(t, log)
		})
	}
}

// checkRED compares the marks in log with redLine.
func checkRED(t *testing.T, log *markLog) {
	kmin, kmax := int64(100_000), int64(400_000)
	// Skip the fill-up transient: judge packets that saw the held queue.
	var inside int
	const bins = 5
	var mu, vr, obs [bins]float64
	for i, q := range log.q {
		if q <= kmin || q > kmax {
			continue
		}
		inside++
		b := int(float64(q-kmin) / float64(kmax-kmin) * bins)
		b = min(b, bins-1)
		p := redLine(q)
		mu[b] += p
		vr[b] += p * (1 - p)
		if log.marked[i] {
			obs[b]++
		}
	}
	if inside < len(log.q)*8/10 {
		t.Fatalf("queue held between Kmin and Kmax for only %d of %d decisions", inside, len(log.q))
	}
	var tm, tv, to float64
	for b := 0; b < bins; b++ {
		tm, tv, to = tm+mu[b], tv+vr[b], to+obs[b]
		if vr[b] == 0 {
			continue
		}
		if z := (obs[b] - mu[b]) / math.Sqrt(vr[b]); math.Abs(z) > 4 {
			t.Errorf("bin %d: %v marks, RED expects %.1f ± %.1f (z=%.1f)", b, obs[b], mu[b], math.Sqrt(vr[b]), z)
		}
	}
	z := (to - tm) / math.Sqrt(tv)
	if math.Abs(z) > 4 {
		t.Errorf("%v marks, RED expects %.1f ± %.1f (z=%.1f)", to, tm, math.Sqrt(tv), z)
	}
	t.Logf("%d of %d decisions between Kmin and Kmax; marked %v, expected %.1f ± %.1f (z=%.2f)", inside, len(log.q), to, tm, math.Sqrt(tv), z)
}

// redScenario is a 2:1 incast whose queue PFC holds between Kmin 100 KB
// and Kmax 400 KB, marking at the given point. The NICs send ECT but run
// no congestion control, so the marks change nothing and the queue stays
// put.
func redScenario(t *testing.T, at string) *Scenario {
	return mustLoad(t, "red.yaml", `
name: red
duration: 4ms
topology: {kind: single-switch, hosts: 3}
switch:
  buffer: 1536KiB
  alpha: 1/8
  pfc: {priorities: [3], headroom: 64KiB}
  ecn: {priorities: [3], kmin: 100KB, kmax: 400KB, pmax: 0.2, at: `+at+`}
host: {cc: none, ecn: true}
traffic:
  generators:
    - {kind: incast, senders: 2, receiver: h2, bytes: 64MiB}
`)
}

func TestREDProbability(t *testing.T) {
	r := fabric.RED{Kmin: 100, Kmax: 300, Pmax: 0.2}
	for _, c := range []struct {
		q    int64
		want float64
	}{{0, 0}, {100, 0}, {200, 0.1}, {300, 0.2}, {301, 1}} {
		if got := r.Probability(c.q); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("p(%d) = %v, want %v", c.q, got, c.want)
		}
	}
}

// permutation is the 128-host leaf-spine example with qps QPs per pair and
// the given hash fields.
func permutation(t *testing.T, seed uint64, qps int, hash fabric.HashField) (*Twin, []float64) {
	s := example(t, "leafspine-permutation")
	s.Seed = seed
	s.Switch.HashFields = hash
	s.Generators[0].QPs = qps
	tw, _ := run(t, s)
	var loads []float64
	for _, sw := range tw.Net.Switches[:8] { // leaves
		for _, b := range sw.RoutedBytes()[16:] { // uplink ports follow the 16 host ports
			loads = append(loads, float64(b))
		}
	}
	return tw, loads
}

func imbalance(loads []float64) (ratio float64, unused int) {
	var sum, max float64
	for _, l := range loads {
		sum += l
		max = math.Max(max, l)
		if l == 0 {
			unused++
		}
	}
	return max / (sum / float64(len(loads))), unused
}

// The permutation reports per-uplink imbalance; hashing on the destination
// only collapses the four QPs of each pair onto one path (polarization),
// so leaf uplinks load far more unevenly than with the 5-tuple, whose UDP
// source port spreads the QPs.
func TestECMPPolarization(t *testing.T) {
	var five, dst float64
	for seed := uint64(1); seed <= 3; seed++ {
		_, l5 := permutation(t, seed, 4, fabric.FiveTuple)
		_, ld := permutation(t, seed, 4, fabric.HashDstIP)
		r5, u5 := imbalance(l5)
		rd, ud := imbalance(ld)
		five += r5
		dst += rd
		t.Logf("seed %d: 5-tuple max/mean %.2f (%d unused uplinks), dst-only %.2f (%d unused)", seed, r5, u5, rd, ud)
		if rd <= r5 {
			t.Errorf("seed %d: dst-only imbalance %.2f not above 5-tuple %.2f", seed, rd, r5)
		}
	}
	if dst/five < 1.5 {
		t.Errorf("dst-only hashing mean imbalance %.2f vs 5-tuple %.2f: no polarization", dst/3, five/3)
	}
}

// The same seed gives byte-identical JSON; a different seed changes the
// UDP source ports and per-switch ECMP seeds, hence the paths, even for
// the same flows.
func TestDeterminism(t *testing.T) {
	base := example(t, "leafspine-permutation")
	base.Seed = 7
	flows := base.Expand() // the same traffic under every seed below
	out := func(seed uint64) ([]byte, []int64) {
		s := example(t, "leafspine-permutation")
		s.Seed, s.Flows, s.Generators = seed, flows, nil
		tw, end := run(t, s)
		var buf bytes.Buffer
		if err := resultJSON(tw, end, &buf); err != nil {
			t.Fatal(err)
		}
		var routed []int64
		for _, sw := range tw.Net.Switches {
			routed = append(routed, sw.RoutedBytes()...)
		}
		return buf.Bytes(), routed
	}
	a, ra := out(7)
	b, _ := out(7)
	if !bytes.Equal(a, b) {
		t.Fatal("same seed, different JSON")
	}
	_, rc := out(8)
	same := true
	for i := range ra {
		same = same && ra[i] == rc[i]
	}
	if same {
		t.Error("a different seed left every ECMP choice of the same flows unchanged")
	}
}
