// Package calc holds the tuner's calculators: pure formulas that turn a few
// inputs (speed, cable, MTU, RTT, timeouts) into the numbers an engineer
// configures. Each returns a Result that carries the formula, every input
// with where it came from, the outputs and the sources of the rules, so
// that what is printed can be checked by hand.
package calc

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"rocelab/internal/textout"
)

// A Quantity is one named value, formatted for people, with its origin.
type Quantity struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	// Unit is the unit of Value ("B", "us", "Gbps", ...).
	Unit string `json:"unit"`
	// Text is Value as printed, e.g. "45056 B (44 KiB)".
	Text string `json:"text"`
	// Source says where an input came from ("given", "default: ...") or
	// which rule gave an output.
	Source string `json:"source,omitempty"`
	// Infinite marks a quantity without bound (an ACK timeout of 0); its
	// Value is then 0.
	Infinite bool `json:"infinite,omitempty"`
}

// A Result is one calculator's answer.
type Result struct {
	Name string `json:"name"`
	// Formula holds the formula, one step per line, in the names of the
	// inputs and outputs.
	Formula []string   `json:"formula"`
	Inputs  []Quantity `json:"inputs"`
	Outputs []Quantity `json:"outputs"`
	// Notes qualify the result (what the formula leaves out, where
	// published values differ).
	Notes []string `json:"notes,omitempty"`
	// Sources are the documents the formula and its constants come from.
	Sources []string `json:"sources"`
}

// Output returns the output named name, or false.
func (r *Result) Output(name string) (Quantity, bool) {
	for _, q := range r.Outputs {
		if q.Name == name {
			return q, true
		}
	}
	return Quantity{}, false
}

// WriteText prints the result: formula, inputs, outputs, notes, sources.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nFormula\n", r.Name)
	for _, f := range r.Formula {
		fmt.Fprintf(&b, "  %s\n", f)
	}
	for _, part := range []struct {
		title string
		qs    []Quantity
	}{{"Inputs", r.Inputs}, {"Outputs", r.Outputs}} {
		fmt.Fprintf(&b, "\n%s\n", part.title)
		t := textout.Table{Head: []string{"name", "value", "from"}}
		for _, q := range part.qs {
			t.Add(q.Name, q.Text, q.Source)
		}
		t.Write(&b)
	}
	if len(r.Notes) > 0 {
		b.WriteString("\nNotes\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "  - %s\n", n)
		}
	}
	b.WriteString("\nSources\n")
	for _, s := range r.Sources {
		fmt.Fprintf(&b, "  - %s\n", s)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON prints the result as indented JSON.
func (r *Result) WriteJSON(w io.Writer) error { return textout.WriteJSON(w, r) }

// num formats a float without trailing zeros.
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// bytesQ is a byte quantity, shown exactly and in KiB or MiB when large.
func bytesQ(name string, v float64, source string) Quantity {
	text := num(roundTo(v, 1)) + " B"
	switch {
	case v >= 1<<20:
		text += fmt.Sprintf(" (%.2f MiB)", v/(1<<20))
	case v >= 1<<10:
		text += fmt.Sprintf(" (%.1f KiB)", v/(1<<10))
	}
	return Quantity{Name: name, Value: v, Unit: "B", Text: text, Source: source}
}

// q is a quantity with a plain formatted value and unit.
func q(name string, v float64, unit, source string) Quantity {
	text := num(v)
	if unit != "" {
		text += " " + unit
	}
	return Quantity{Name: name, Value: v, Unit: unit, Text: text, Source: source}
}

// Source strings shared by the calculators.
const (
	srcSONiCHeadroom = "sonic-swss cfgmgr/buffer_headroom_mellanox.lua (SONiC dynamic buffer headroom)"
	srcIEEEQuanta    = "IEEE 802.3 Annex 31B.3.7 response budget per speed, as the SONiC lua tabulates it"
	srcPFCQuantum    = "IEEE 802.1Qbb: one pause quantum is 512 bit times"
	srcIBoE          = "Linux iboe_get_mtu(): RoCE path MTU is the largest IB MTU ≤ netdev MTU − 96 (include/rdma/ib_addr.h)"
	srcIBTimeout     = "IB spec 1.2 §12.7.34: local ACK timeout 4.096 µs·2^timeout; §12.7.38 retry_cnt"
	srcNCCLDefaults  = "NCCL v2.30.7 defaults: NCCL_IB_TIMEOUT 20, NCCL_IB_RETRY_CNT 7 (src/transport/net_ib, git history of connect.cc)"
	srcHuaweiECN     = "Huawei CloudEngine AI Fabric (support.huawei.com EDOC1100155250): Kmax ≈ 2–3×BDP, 100G at 20 µs RTT ⇒ BDP 250 KB"
	srcECNTable      = "published ECN thresholds: DCQCN paper (SIGCOMM 2015), HPCC ns-3 simulation/run.py, SONiC files/build_templates/qos_config.j2, Huawei EDOC1100155250, NVIDIA's 100G example"
	srcNCCLTests     = "nccl-tests doc/PERFORMANCE.md: busbw = algbw × factor per collective"
	srcNCCLCeilings  = "NCCL maintainers: ~12 GB/s per 100G NIC (nccl-tests #29), 24 per 200G (#119), 48–49 per 400G (#267) ⇒ 96–98% of line rate"
)
