package calc

import (
	"fmt"
	"math"

	"rocelab/internal/scenario"
	"rocelab/internal/unit"
)

// DefaultRTT is the base RTT ECN thresholds are sized for when none is
// given: the one Huawei's AI Fabric guidance assumes (Huawei CloudEngine AI Fabric guide, support.huawei.com EDOC1100155250).
const DefaultRTT = scenario.DefaultECNRTT

// BDP returns the bandwidth-delay product of a port in bytes.
func BDP(rate unit.BitRate, rtt unit.Time) unit.Bytes {
	return unit.Bytes(math.Round(float64(rate) * rtt.Seconds() / 8))
}

// MarkProbability is RED's marking probability at queue depth q for a
// profile (Kmin, Kmax, Pmax): 0 below Kmin, linear to Pmax at Kmax, 1 above
// Kmax (DCQCN's congestion point, Zhu et al. SIGCOMM 2015; the HPCC ns-3
// switch-mmu.cc ShouldSendCN).
func MarkProbability(q, kmin, kmax unit.Bytes, pmax float64) float64 {
	switch {
	case q <= kmin:
		return 0
	case q > kmax:
		return 1
	case kmax == kmin:
		return pmax
	}
	return pmax * float64(q-kmin) / float64(kmax-kmin)
}

// ECNInput sizes ECN thresholds for one egress queue.
type ECNInput struct {
	Rate unit.BitRate
	RTT  unit.Time
	// Buffer and Alpha (dynamic threshold) bound the queue, when known.
	Buffer unit.Bytes
	Alpha  float64
	// Kmin, Kmax and Pmax, when set (Kmax > 0), are checked.
	Kmin, Kmax unit.Bytes
	Pmax       float64
	// CellSize, when set, means Kmin and Kmax count buffer cells of this
	// many bytes (as some switch CLIs write them).
	CellSize int
}

// ECN gives the BDP-based bounds for Kmin, Kmax and Pmax with the source of
// each rule, the published profiles for comparison, and the verdict on a
// given profile.
func ECN(in ECNInput) *Result {
	rtt, rttSrc := in.RTT, "given"
	if rtt == 0 {
		rtt, rttSrc = DefaultRTT, "default: the RTT Huawei's AI Fabric guidance assumes"
	}
	bdp := BDP(in.Rate, rtt)
	g := in.Rate.Gbps()
	r := &Result{Name: "ECN (RED) thresholds for the RoCE queue"}
	r.Formula = []string{
		"BDP = speed × RTT / 8",
		"Kmax ≥ 1 × BDP: below it every packet is marked before the queue holds one round trip of data",
		"Kmax ≈ 2–3 × BDP (Huawei AI Fabric)",
		"Kmin ≥ speed × RTT / 7 for a step marker (DCTCP); a RED ramp with low Pmax may start lower",
		"Kmin < α/(1+α) × buffer, so that ECN marks before one ingress port's PFC threshold is reached",
	}
	r.Inputs = []Quantity{
		q("speed", g, "Gbps", "given"),
		q("rtt", rtt.Micros(), "us", rttSrc),
	}
	r.Outputs = []Quantity{
		bytesQ("bdp", float64(bdp), "speed × RTT / 8"),
		bytesQ("kmax_floor", float64(bdp), "1 × BDP"),
		bytesQ("kmax_low", float64(2*bdp), srcHuaweiECN),
		bytesQ("kmax_high", float64(3*bdp), srcHuaweiECN),
		bytesQ("kmin_step_floor", math.Ceil(float64(bdp)/7), "Alizadeh et al., DCTCP (SIGCOMM 2010) §3.4: K > C×RTT/7"),
	}
	if in.Buffer > 0 {
		alpha := in.Alpha
		if alpha == 0 {
			alpha = 1
		}
		r.Inputs = append(r.Inputs, bytesQ("buffer", float64(in.Buffer), "given"), q("alpha", alpha, "", "dynamic threshold (SONiC dynamic_th 0 ⇒ 1)"))
		r.Outputs = append(r.Outputs, bytesQ("kmin_ceiling", math.Floor(alpha/(1+alpha)*float64(in.Buffer)),
			"a queue fed by one ingress port reaches PFC XOFF at α/(1+α) of the shared buffer (SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH: threshold = α·free buffer)"))
	}
	r.Notes = append(r.Notes, fmt.Sprintf("Published profiles: HPCC ns-3 %s/%s at %g G (4 KB and 16 KB per Gb/s, Pmax 0.2); NVIDIA example 150 KB/1500 KB at 100G; SONiC AZURE_LOSSLESS 1 MiB/2 MiB, 5%%; Huawei 100GE 7 KB/500–750 KB, 10–30%%; DCQCN paper 5 KB/200 KB, 1%% at 40G.",
		unit.Bytes(4000*g), unit.Bytes(16000*g), g))
	r.Notes = append(r.Notes, "Pmax: 1% (DCQCN paper), 5% (SONiC), 10–30% (Huawei), 20% (HPCC ns-3); it must be above 0 for any marking between Kmin and Kmax, and at most 1 (100%).")
	if in.Kmax > 0 {
		kminSrc, kmaxSrc := "given", "given"
		if in.CellSize > 0 {
			kminSrc = fmt.Sprintf("given as %d cells × %d B", in.Kmin, in.CellSize)
			kmaxSrc = fmt.Sprintf("given as %d cells × %d B", in.Kmax, in.CellSize)
			in.Kmin *= unit.Bytes(in.CellSize)
			in.Kmax *= unit.Bytes(in.CellSize)
			r.Formula = append(r.Formula, "threshold (bytes) = cells × cell size (Spectrum-1 96 B, Spectrum-2/3 144 B, Broadcom Tomahawk 208 B)")
		}
		r.Inputs = append(r.Inputs, bytesQ("kmin", float64(in.Kmin), kminSrc), bytesQ("kmax", float64(in.Kmax), kmaxSrc), q("pmax", in.Pmax, "", "given"))
		p := MarkProbability(bdp, in.Kmin, in.Kmax, in.Pmax)
		r.Outputs = append(r.Outputs, q("mark_probability_at_bdp", roundTo(p, 4), "", "RED line at a queue of one BDP"))
		for _, v := range ECNVerdicts(in.Kmin, in.Kmax, in.Pmax, bdp) {
			r.Notes = append(r.Notes, "check: "+v)
		}
		if in.Buffer > 0 {
			alpha := in.Alpha
			if alpha == 0 {
				alpha = 1
			}
			if pfcAt := unit.Bytes(alpha / (1 + alpha) * float64(in.Buffer)); in.Kmin >= pfcAt {
				r.Notes = append(r.Notes, fmt.Sprintf("check: Kmin %v is at or above %v, where one ingress port reaches PFC XOFF: PFC can pause before ECN marks", in.Kmin, pfcAt))
			}
		}
	}
	r.Sources = []string{srcHuaweiECN, "Alizadeh et al., Data Center TCP (SIGCOMM 2010), marking threshold guideline", srcECNTable}
	return r
}

// ECNVerdicts lists what is wrong with a profile against a BDP; empty when
// nothing is.
func ECNVerdicts(kmin, kmax unit.Bytes, pmax float64, bdp unit.Bytes) []string {
	var out []string
	if kmax < bdp {
		out = append(out, fmt.Sprintf("Kmax %v is below one BDP (%v): a queue of one round trip is marked at 100%%", kmax, bdp))
	}
	if kmax >= bdp && kmin > 2*bdp {
		out = append(out, fmt.Sprintf("Kmin %v is %.1f BDPs: marking starts late, and PFC may pause before DCQCN slows anyone", kmin, float64(kmin)/float64(bdp)))
	}
	if pmax <= 0 && kmin < kmax {
		out = append(out, "Pmax 0 marks nothing between Kmin and Kmax")
	}
	if pmax > 1 {
		out = append(out, fmt.Sprintf("Pmax %g is above 1 (a percentage written as a fraction field?)", pmax))
	}
	if kmin > kmax {
		out = append(out, fmt.Sprintf("Kmin %v is above Kmax %v", kmin, kmax))
	}
	return out
}
