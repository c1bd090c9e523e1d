package twin_test

import (
	"bytes"
	"io"
	"regexp"
	"testing"

	"rocelab/internal/metrics"
	"rocelab/internal/packet"
	"rocelab/internal/report"
	"rocelab/internal/twin"
	"rocelab/internal/unit"
)

// tinyShard is a valid shard file of one small, synthetic observation.
func tinyShard(t testing.TB) []byte {
	lat := metrics.NewLatency()
	for _, d := range []unit.Time{900 * unit.Nanosecond, 2 * unit.Microsecond, 40 * unit.Microsecond} {
		lat.Record(packet.ClassRoCE, 3, d)
	}
	fct := 12.5
	o := twin.Observation{
		Engine:   twin.EngineInfo{Name: "packet", NotModelled: []string{}},
		Scenario: twin.Setup{Name: "tiny", Topology: "single-switch", Hosts: 2, Switches: 1, Links: 2, MTU: 4096},
		Sim:      twin.Sim{End: 20 * unit.Microsecond, Completed: true, Events: 3},
		Health:   metrics.NewHealth(2, 0.95, 0, 0),
		Basis:    twin.HealthBasis{RoCELatency: lat.ClassHistogram(packet.ClassRoCE), Receivers: []twin.Window{{Rate: 100 * unit.Gbps}, {Rate: 100 * unit.Gbps, End: 9, Bytes: 1 << 20}}},
		Totals:   &twin.Totals{Frames: map[string]int64{"data": 256}},
		Flows:    []twin.Flow{{ID: 0, Name: "f", Src: "h0", Dst: "h1", Bytes: 1 << 20, FCTUS: &fct, Status: "ok"}},
		Latency:  []twin.PrioLatency{{Priority: 3, Hist: lat.Histogram(3)}},
		Ports:    []twin.Port{{Name: "sw0/p0", Peer: "h0/p0", Switch: true, Counters: []twin.Counter{{Name: "tx_prio3_bytes", Value: 7}}}, {Name: "h0/p0", Peer: "sw0/p0", Counters: []twin.Counter{}}},
		NICs:     []twin.NIC{{Name: "h0", Port: 1, Rate: 100 * unit.Gbps, HW: []twin.Counter{{Name: "np_cnp_sent", Value: 1}}}},
		Queues:   []twin.Queue{{Port: "sw0/p0", Priority: 3, MaxBytes: 4096, Depth: metrics.Points{Every: unit.Microsecond, Values: []float64{0, 4096}}}},
		Uplinks:  []twin.Uplink{{Level: 1, Tier: "trunk", Port: "sw0/p1", Bytes: 5}},
	}
	f := &twin.ShardFile{Kind: twin.ShardKind, Schema: twin.Schema, Name: "tiny", Variants: true, Fingerprint: "f", Shard: twin.Whole, Jobs: 1,
		Results: []twin.JobResult{{Index: 0, Variant: "a", Observation: o}}}
	var b bytes.Buffer
	if err := f.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// FuzzReadShard: whatever a shard file holds, reading and merging it and
// reporting what it holds never panics; what it refuses, it says why.
func FuzzReadShard(f *testing.F) {
	good := tinyShard(f)
	f.Add(good)
	f.Add(bytes.Replace(good, []byte(`"i": `), []byte(`"i": 9999`), 1))
	// Stalled ages whose bucket would need an array of 2^31 counts.
	f.Add(regexp.MustCompile(`"roce_stalled_age": \{[^}]*\}`).ReplaceAll(good, []byte(`"roce_stalled_age": {"lowest": 1, "highest": 10000000000, "digits": 3, "buckets": [{"i": 2000000000, "n": 1}]}`)))
	f.Add(bytes.Replace(good, []byte(`"port": 1`), []byte(`"port": 7`), 1))
	f.Add(bytes.Replace(good, []byte(`"variant": "a"`), []byte(`"variant": ".."`), 1))
	f.Add([]byte(`{"kind": "rocelab run shard", "schema": 2, "jobs": 1099511627776, "shard": {"index": 0, "count": 1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sh, err := twin.ReadShard("fuzz.json", bytes.NewReader(data))
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
			return
		}
		m, err := twin.MergeShards([]string{"fuzz.json"}, []*twin.ShardFile{sh})
		if err != nil {
			return
		}
		for i := range m.Results {
			r := report.New(&m.Results[i].Observation)
			if err := r.WriteText(io.Discard); err != nil {
				t.Fatal(err)
			}
			if err := r.WriteJSON(io.Discard); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// The synthetic shard is read back whole and reports as it was built.
func TestTinyShardReads(t *testing.T) {
	sh, err := twin.ReadShard("tiny.json", bytes.NewReader(tinyShard(t)))
	if err != nil {
		t.Fatal(err)
	}
	r := report.New(&sh.Results[0].Observation)
	if len(r.Latency) != 1 || r.Latency[0].Packets != 3 || r.Latency[0].MaxUS < 40 {
		t.Errorf("latency %+v", r.Latency)
	}
	for _, bad := range [][]byte{
		bytes.Replace(tinyShard(t), []byte(`"port": 1`), []byte(`"port": 7`), 1),
		bytes.Replace(tinyShard(t), []byte(`"variant": "a"`), []byte(`"variant": "../a"`), 1),
		bytes.Replace(tinyShard(t), []byte(`"digits": 3`), []byte(`"digits": 9`), 1),
	} {
		if _, err := twin.ReadShard("bad.json", bytes.NewReader(bad)); err == nil {
			t.Errorf("accepted %s", bad[:0])
		}
	}
}
