package scenario

import (
	"bytes"

	"rocelab/internal/perftest"
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
	// Perftests are the traffic section's perftest runs.
	Perftests []*perftest.Test

	scenario *Scenario // for the hosts' names
}

// NewWorkloads builds the workloads of s.
func (s *Scenario) NewWorkloads() (*Workloads, error) {
	w := &Workloads{Flows: s.Expand()}
	var err error
	if w.Traffic, err = workload.NewFlows(s.trafficFlows(w.Flows)); err != nil {
		return nil, err
	}
	if s.Workload != nil {
		if w.Jobs, err = s.Workload.jobs(); err != nil {
			return nil, err
		}
	}
	for _, p := range s.Perftests {
		o := p.Opts
		if !o.DeviceGiven {
			o.Device = s.Machine(p.Client).Device
		}
		end := func(h int) perftest.Endpoint { return perftest.Endpoint{Host: h, IP: HostIP(int32(h))} }
		w.Perftests = append(w.Perftests, perftest.New(o, end(p.Client), end(p.Server), int(s.Host.MTU)))
	}
	w.scenario = s
	return w, nil
}

// List returns every workload, to start on the engine's transport.
func (w *Workloads) List() []workload.Workload {
	ws := []workload.Workload{w.Traffic}
	if w.Jobs != nil {
		ws = append(ws, w.Jobs.Workloads()...)
	}
	for _, p := range w.Perftests {
		ws = append(ws, p)
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

// observe fills the flows' outcomes at o.Sim.End, the NCCL tables and
// log, and the perftest output of o; hosts names the hosts, conn reports a
// connection.
func (w *Workloads) observe(o *twin.Observation, hosts []string, conn func(workload.QP) ConnStat) {
	for i, spec := range w.Flows {
		o.Flows = append(o.Flows, w.flowOf(hosts, conn, i, spec, o.Sim.End))
	}
	o.NCCL = w.Jobs.observe()
	if s := w.Jobs.testsSweep(); s != nil {
		var doc bytes.Buffer
		if err := s.WriteJSON(&doc); err == nil {
			o.NCCLTestsJSON = &twin.TestsJSON{Name: s.JSONName(), Doc: doc.String()}
		}
	}
	var log bytes.Buffer
	if ok, err := w.WriteNCCLLog(&log); ok && err == nil {
		o.NCCLLog = log.String()
	}
	for _, p := range w.Perftests {
		var out bytes.Buffer
		p.WriteTo(&out)
		o.Perftest = append(o.Perftest, twin.PerftestRun{Command: p.Opts.Command, Client: w.scenario.Machine(p.Client.Host).Host,
			Server: w.scenario.Machine(p.Server.Host).Host, ServerIP: p.Server.IP.String(), Summary: p.Summary(), Output: out.String()})
	}
}

// flowOf is flow i's outcome at time end. A flow that completed has its
// goodput over its completion time; one that did not is measured to when
// it failed, or to end while it still runs: what it delivered in the time
// it took, however little arrived.
func (w *Workloads) flowOf(hosts []string, conn func(workload.QP) ConnStat, i int, spec FlowSpec, end unit.Time) twin.Flow {
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
	} else {
		until := end
		if st.Done {
			until = st.FinishedAt
		}
		if until > st.StartedAt {
			out.GoodputGbps = float64(c.Delivered) * 8 / (until - st.StartedAt).Seconds() / 1e9
		}
	}
	return out
}
