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
		ports = append(ports, port{pt.Name(), pt.Snapshot()})
	}
	var hw []any
	for _, n := range tw.NICs {
		hw = append(hw, n.HW)
	}
	return json.NewEncoder(w).Encode(struct {
		End    unit.Time
		Conns  any
		Totals any
		Ports  []port
		NICs   []any
		Events uint64
	}{end, tw.Transport.Conns(), tw.Net.Totals(), ports, hw, tw.Executed()})
}
