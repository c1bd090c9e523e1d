package scenario

import (
	"rocelab/internal/twin"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// Workloads are a scenario's traffic, built afresh for one engine: its
// explicit and generated flows and its NCCL job. Any engine carries them,
// being their workload.Transport; what they show (flow outcomes, the NCCL
// tables) is observed here, the same for every engine.
type Workloads struct {
	// Flows are the scenario's flows expanded with its seed, indexed like
	// the Traffic workload's.
	Flows []FlowSpec
	// Traffic is the workload of the flows.
	Traffic *workload.Flows
	// Jobs is the workload section's NCCL job, if any.
	Jobs *Jobs
}

// NewWorkloads builds the workloads of s.
func (s *Scenario) NewWorkloads() (*Workloads, error) {
	w := &Workloads{Flows: s.Expand()}
	var err error
	if w.Traffic, err = workload.NewFlows(trafficFlows(w.Flows)); err != nil {
		return nil, err
	}
	if s.Workload != nil {
		if w.Jobs, err = s.Workload.jobs(); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// List returns every workload, to start on the engine's transport.
func (w *Workloads) List() []workload.Workload {
	ws := []workload.Workload{w.Traffic}
	if w.Jobs != nil {
		ws = append(ws, w.Jobs.Workloads()...)
	}
	return ws
}

// ConnStat is what an engine knows of one connection's data, for the
// outcome of the flow on it.
type ConnStat struct {
	// Delivered and Retransmitted count payload bytes; LastDelivery is
	// when the last delivered byte arrived.
	Delivered, Retransmitted int64
	LastDelivery             unit.Time
}

// observe fills the flows' outcomes and the NCCL tables of o; hosts names
// the hosts, conn reports a connection.
func (w *Workloads) observe(o *twin.Observation, hosts []string, conn func(workload.QP) ConnStat) {
	for i, spec := range w.Flows {
		o.Flows = append(o.Flows, w.flowOf(hosts, conn, i, spec))
	}
	o.NCCL = w.Jobs.observe()
}

// flowOf is flow i's outcome.
func (w *Workloads) flowOf(hosts []string, conn func(workload.QP) ConnStat, i int, spec FlowSpec) twin.Flow {
	st := w.Traffic.State(i)
	out := twin.Flow{
		ID: int32(i), Name: spec.Name, Src: hosts[spec.Src], Dst: hosts[spec.Dst],
		Bytes: int64(spec.Bytes), Priority: spec.Priority, StartUS: twin.US(st.StartedAt), Status: "not started",
	}
	if !st.Started {
		if st.Cancelled {
			out.Status = "cancelled"
		}
		return out
	}
	c := conn(st.QP)
	out.Delivered, out.Retransmitted = c.Delivered, c.Retransmitted
	switch {
	case !st.Done:
		out.Status = "running"
	case st.Status != workload.Success:
		out.Status = st.Status.String()
	default:
		out.Status = "ok"
	}
	if fct, ok := st.FCT(); ok {
		v := twin.US(fct)
		out.FCTUS = &v
		if fct > 0 {
			out.GoodputGbps = float64(spec.Bytes) * 8 / fct.Seconds() / 1e9
		}
	} else if c.LastDelivery > st.StartedAt {
		out.GoodputGbps = float64(c.Delivered) * 8 / (c.LastDelivery - st.StartedAt).Seconds() / 1e9
	}
	return out
}
