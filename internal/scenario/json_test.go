package scenario

import (
	"encoding/json"
	"io"

	"rocelab/internal/unit"
)

// resultJSON serializes what a run leaves behind that the report reads:
// flows, totals, counters and queue series. It stands in for the report
// package, which imports this one.
func resultJSON(tw *Twin, end unit.Time, w io.Writer) error {
	type port struct {
		Name     string
		Counters any
	}
	var ports []port
	for _, pt := range tw.Net.Ports {
		ports = append(ports, port{pt.Name(), pt.Counters})
	}
	return json.NewEncoder(w).Encode(struct {
		End    unit.Time
		Flows  any
		Totals any
		Ports  []port
		Events uint64
	}{end, tw.Net.Flows, tw.Net.Totals, ports, tw.Net.Sched.Executed()})
}
