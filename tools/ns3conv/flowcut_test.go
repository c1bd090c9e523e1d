package main

import (
	"strings"
	"testing"

	"rocelab/internal/scenario"
)

// A flow file whose scenario fits scenario.MaxFileSize is converted
// whole, even within cutNoteRoom of it: the room for the cut's note is
// held back only once a cut is certain. One more flow cuts it. SYNTHETIC
// flows.
func TestFlowLinesWholeUnderLimit(t *testing.T) {
	top := &ns3Topology{name: []string{"h0", "h1"}}
	const line = "  - {src: h0, dst: h1, bytes: 1000}\n"
	n := (int(scenario.MaxFileSize) - 100) / len(line)
	flows := make([]ns3FlowLine, n)
	for i := range flows {
		flows[i] = ns3FlowLine{src: 0, dst: 1, size: 1000}
	}
	base := "# head\nname: t\nflows:\n"
	head := base + "#" + strings.Repeat(" ", int(scenario.MaxFileSize)-10-len(base)-n*len(line)-2) + "\n"
	out, err := flowLines(head, "flows.txt", flows, ns3Flows{}, top, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != int(scenario.MaxFileSize)-10 || strings.Contains(out, "ns3conv cut") {
		t.Errorf("%d bytes (want %d), cut: %v", len(out), int(scenario.MaxFileSize)-10, strings.Contains(out, "ns3conv cut"))
	}
	// one flow more does not fit: the file is cut (here every flow starts
	// at 0, so none is left to run and it is refused)
	_, err = flowLines(head, "flows.txt", append(flows, flows[0]), ns3Flows{}, top, 0)
	if err == nil || !strings.Contains(err.Error(), "more than a scenario holds") {
		t.Errorf("one flow more: %v", err)
	}
}
