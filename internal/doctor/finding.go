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
		return "Inputs"
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
	// Fix is the concrete command or setting that mends it.
	Fix string `json:"fix"`
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
