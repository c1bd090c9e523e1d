package page_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/metrics"
	"rocelab/internal/page"
	"rocelab/internal/twin"
	"rocelab/internal/unit"
)

// bigObservation is a synthetic run of a large fabric (not a simulation):
// qps rate-limited QPs, ports ports, each with counters, a pause series
// and a sampled queue, 2000 uplinks and 10000 flows, every series at the
// sampler's full length.
func bigObservation(qps, ports int) *twin.Observation {
	rng := rand.New(rand.NewPCG(17, 4))
	end := 50 * unit.Millisecond
	every := end / metrics.DefaultSeriesCap
	series := func(f func(i int) float64) metrics.Points {
		p := metrics.Points{First: 0, Every: every, Values: make([]float64, metrics.DefaultSeriesCap)}
		for i := range p.Values {
			p.Values[i] = f(i)
		}
		return p
	}
	o := &twin.Observation{
		Engine:   twin.EngineInfo{Name: "packet", NotModelled: []string{}},
		Scenario: twin.Setup{Name: "synthetic-large", File: "synthetic", Topology: "fat-tree", Hosts: ports / 2, Switches: 160, Links: ports, MTU: 4096, PFC: true, LosslessPrios: []int{3}, RoCEPriorities: []int{3}, RoCELossless: true, CC: "dcqcn"},
		Sim:      twin.Sim{End: end, Completed: true, Events: 1 << 40},
		Health:   metrics.NewHealth(25, 0.6, 0, 0.02),
		Totals:   &twin.Totals{},
		Pauses:   []twin.PortPause{},
		Uplinks:  []twin.Uplink{},
	}
	for i := 0; i < ports; i++ {
		name := fmt.Sprintf("sw%d/p%d", i/64, i%64)
		var cs []twin.Counter
		for _, c := range []string{"rx_bytes_phy", "tx_bytes_phy", "rx_prio3_pause", "rx_prio3_pause_duration", "tx_prio3_pause", "rx_discards_phy", "ecn_marked_prio3"} {
			cs = append(cs, twin.Counter{Name: c, Value: rng.Int64N(1 << 30)})
		}
		o.Ports = append(o.Ports, twin.Port{Name: name, Peer: fmt.Sprintf("x%d/p0", i), Switch: true, Counters: cs})
		held := 0.0
		o.Pauses = append(o.Pauses, twin.PortPause{Port: name, Priority: 3, Held: series(func(int) float64 {
			held += float64(every) * rng.Float64() * 0.3
			return math.Floor(held)
		})})
		peak := rng.Float64() * 4e6
		o.Queues = append(o.Queues, twin.Queue{Port: name, Priority: 3, MaxBytes: int64(peak), Depth: series(func(int) float64 { return math.Floor(peak * rng.Float64()) })})
	}
	for i := 0; i < ports/2; i++ {
		o.NICs = append(o.NICs, twin.NIC{Name: fmt.Sprintf("h%d", i), Rate: 400 * unit.Gbps,
			HW: []twin.Counter{{Name: "np_cnp_sent", Value: rng.Int64N(1e6)}, {Name: "rp_cnp_handled", Value: rng.Int64N(1e6)}, {Name: "out_of_sequence", Value: rng.Int64N(100)}}})
	}
	for i := 0; i < qps; i++ {
		o.QPs = append(o.QPs, twin.QPSeries{Host: fmt.Sprintf("h%d", i%(ports/2)), Flow: fmt.Sprintf("qp%d", i), Delivered: rng.Int64N(1 << 32),
			RateGbps: series(func(int) float64 { return 400 * rng.Float64() }), Alpha: series(func(int) float64 { return rng.Float64() })})
	}
	for i := 0; i < 2000; i++ {
		o.Uplinks = append(o.Uplinks, twin.Uplink{Level: 1 + i/1000, Tier: []string{"edge→aggregation", "aggregation→core"}[i/1000], Port: fmt.Sprintf("agg%d/p%d", i/32, i%32), Bytes: rng.Int64N(1 << 34)})
	}
	for i := 0; i < 10000; i++ {
		fct := 10 + 1e4*rng.Float64()
		o.Flows = append(o.Flows, twin.Flow{ID: int32(i), Name: fmt.Sprint("f", i), Src: "h0", Dst: "h1", Bytes: 1 << 20, FCTUS: &fct, Status: "ok"})
	}
	return o
}

// A run of 10,000 QPs and 5,000 ports still gives a page under 5 MB: the
// series are summarised, and the page says what it summarised.
func TestLargeRunBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("large synthetic page skipped in -short mode")
	}
	o := bigObservation(10000, 5000)
	var b bytes.Buffer
	if err := page.Run(&b, "synthetic-large", version, []page.Job{{Obs: o}}); err != nil {
		t.Fatal(err)
	}
	if b.Len() >= 5<<20 {
		t.Errorf("the page of 10,000 QPs and 5,000 ports is %d bytes, not under 5 MB", b.Len())
	}
	file := filepath.Join(t.ArtifactDir(), "large.html")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("page of 10,000 QPs and 5,000 ports: %d bytes, %s", b.Len(), file)
	html := b.String()
	for _, want := range []string{
		"the other 4992 as a band",                  // queues
		"the other 9992 as a band",                  // QPs, rate and α
		"the other 4976 as one strip of their mean", // pause strips
		"1000 uplinks are too many for a bar each",  // ECMP
		"every 25-th of 10000 completion times drawn",
		"the 48 busiest of 5000 ports",
		"the 48 busiest of 2500 hosts",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	if _, err := outline(strings.NewReader(html)); err != nil {
		t.Errorf("the page is not well-formed: %v", err)
	}
}

// The same observation gives the same page, byte for byte, also after a
// JSON round trip (as a shard file carries it between processes).
func TestSamePageSameBytes(t *testing.T) {
	jobs := runJobs(t, "cc-compare")
	var a, b bytes.Buffer
	if err := page.Run(&a, "cc-compare", version, jobs); err != nil {
		t.Fatal(err)
	}
	for i := range jobs {
		raw, err := json.Marshal(jobs[i].Obs)
		if err != nil {
			t.Fatal(err)
		}
		var o twin.Observation
		if err := json.Unmarshal(raw, &o); err != nil {
			t.Fatal(err)
		}
		jobs[i].Obs = &o
	}
	if err := page.Run(&b, "cc-compare", version, jobs); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the page differs after a JSON round trip of the same observations")
	}
}
