// Package doctor turns evidence from real or simulated artifacts into
// findings: what is wrong, the lines that show it, the mechanism, and the fix.
//
// The diagnosis follows the order an experienced engineer uses: first whether
// RDMA is used at all and the queue pairs are up, then whether PFC and ECN are
// in effect on the right priority, and only then the NCCL parameters and
// host-side performance.
package doctor

import (
	"encoding/json"
	"fmt"
	"sort"

	"rocelab/internal/ingest"
)

// Severity grades a finding.
type Severity int

// Severities, from least to most serious.
const (
	Info Severity = iota
	Warn
	Error
)

// String returns "info", "warn" or "error".
func (s Severity) String() string {
	switch s {
	case Info:
		return "info"
	case Warn:
		return "warn"
	case Error:
		return "error"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// MarshalJSON writes the severity as its name.
func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// Layer is the step of the diagnosis a finding belongs to.
type Layer int

// Layers in diagnosis order.
const (
	// LayerInput holds findings about the inputs themselves.
	LayerInput Layer = iota
	// LayerRDMA asks whether RDMA is used at all and the QPs are up:
	// transport choice, GIDs, completion errors, connection failures.
	LayerRDMA
	// LayerFabric asks whether PFC and ECN are in effect on the right
	// priority: pause, discards, marking, retransmission, QoS config.
	LayerFabric
	// LayerNCCL covers NCCL parameters and end-to-end performance: busbw,
	// GPUDirect RDMA, PCIe, perftest bandwidth.
	LayerNCCL
)

// String returns the layer's short name.
func (l Layer) String() string {
	switch l {
	case LayerInput:
		return "input"
	case LayerRDMA:
		return "rdma"
	case LayerFabric:
		return "fabric"
	case LayerNCCL:
		return "nccl"
	}
	return fmt.Sprintf("layer(%d)", int(l))
}

// Question is the question the layer answers, for the text report.
func (l Layer) Question() string {
	switch l {
	case LayerInput:
		return "About the inputs"
	case LayerRDMA:
		return "1. Is RDMA used, and are the queue pairs up?"
	case LayerFabric:
		return "2. Are PFC and ECN in effect on the RoCE priority?"
	case LayerNCCL:
		return "3. NCCL parameters and end-to-end performance"
	}
	return l.String()
}

// MarshalJSON writes the layer as its name.
func (l Layer) MarshalJSON() ([]byte, error) { return json.Marshal(l.String()) }

// Evidence is one input line a finding rests on. Parsers record it as they
// read, so it is defined by package ingest.
type Evidence = ingest.Evidence

// A Finding is one diagnosis.
type Finding struct {
	// ID is the stable rule id, e.g. "nccl.transport.socket_fallback".
	ID       string   `json:"id"`
	Severity Severity `json:"severity"`
	Layer    Layer    `json:"layer"`
	Title    string   `json:"title"`
	// Evidence lists the lines the finding rests on, in input order.
	Evidence []Evidence `json:"evidence"`
	// Mechanism explains in two or three sentences why this happens.
	Mechanism string `json:"mechanism"`
	// Fix is the concrete command or setting that mends it; empty for
	// findings that report a healthy state.
	Fix string `json:"fix"`
	// Subject names what the finding is about when a rule reports the same
	// condition once per port, interface, run or file ("gpu01 ens3np0",
	// "mlx5_0 port 1", a capture's path); empty for findings about the
	// incident as a whole.
	Subject string `json:"subject,omitempty"`

	// group titles a group of like findings in the text report and noun
	// names one of their subjects; generic holds pairs of the subject's own
	// names in Mechanism and Fix and the placeholders a group shows instead.
	// See per.
	group, noun string
	generic     []string
}

// per marks f as one of a set of like findings about different subjects.
// The text report shows findings with the same id, severity, layer, group,
// mechanism and fix as one entry titled "<group>: <n> <noun>s (...)" that
// lists each member's title; JSON keeps one finding per subject. names are
// pairs of a name of this subject that Mechanism or Fix mention and the
// placeholder shown in their place in a group (e.g. "ens3np0", "<if>").
func (f Finding) per(subject, noun, group string, names ...string) Finding {
	f.Subject, f.group, f.noun = subject, group, noun
	for i := 0; i+1 < len(names); i += 2 {
		if names[i] != "" && names[i] != names[i+1] {
			f.generic = append(f.generic, names[i], names[i+1])
		}
	}
	return f
}

// SortFindings orders findings by layer, then severity (most serious
// first), then id, then where their first evidence sits.
func SortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Layer != b.Layer {
			return a.Layer < b.Layer
		}
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		ea, eb := firstEvidence(a), firstEvidence(b)
		if ea.File != eb.File {
			return ea.File < eb.File
		}
		return ea.Line < eb.Line
	})
}

func firstEvidence(f Finding) Evidence {
	if len(f.Evidence) == 0 {
		return Evidence{}
	}
	return f.Evidence[0]
}
