package twin

import (
	"fmt"
	"strings"
)

// Check reports what makes an observation read from a file unusable: a
// histogram that is not one, a NIC whose port does not exist, a name that
// cannot name a file, a negative time. Observations an engine makes always
// pass.
func (o *Observation) Check() error {
	if o.Sim.End < 0 {
		return fmt.Errorf("sim.end %d: a negative time", o.Sim.End)
	}
	if err := o.Basis.RoCELatency.Check(); err != nil {
		return fmt.Errorf("health_basis.roce_latency: %w", err)
	}
	if err := o.Basis.RoCEStalledAge.Check(); err != nil {
		return fmt.Errorf("health_basis.roce_stalled_age: %w", err)
	}
	for i := range o.Latency {
		if err := o.Latency[i].Hist.Check(); err != nil {
			return fmt.Errorf("latency[%d]: %w", i, err)
		}
	}
	for i, n := range o.NICs {
		if n.Port < 0 || n.Port >= len(o.Ports) {
			return fmt.Errorf("nics[%d]: port %d of %d", i, n.Port, len(o.Ports))
		}
		if err := FileName(n.Name); err != nil {
			return fmt.Errorf("nics[%d].name: %w", i, err)
		}
	}
	for i, p := range o.Ports {
		if err := FileName(strings.ReplaceAll(p.Name, "/", "-")); err != nil {
			return fmt.Errorf("ports[%d].name: %w", i, err)
		}
	}
	return nil
}

// FileName checks that name can name a file in a directory rocelab
// writes: not empty, not . or .., without a path separator or NUL.
func FileName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
		return fmt.Errorf("%q cannot name a file", name)
	}
	return nil
}
