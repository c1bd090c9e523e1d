package doctor

import (
	"fmt"

	"rocelab/internal/ingest"
)

// NCCL prints, for the GPU of each rank on an NVLink fabric, the fabric
// registration NVML reports (init.cc's "MNNVL busId ... state %d healthMask
// 0x%x"). NCCL uses multi-node NVLink only when every rank's GPU has
// completed registration (mnnvl.cc); the health mask tells a registered
// GPU the fabric serves at reduced capacity.

func ncclMNNVLRules() []Rule {
	return []Rule{{IDs: []string{"nccl.mnnvl.fabric"}, Check: checkFabric}}
}

// checkFabric reports, per host, the GPUs whose fabric registration is not
// complete or whose health mask sets a fault.
func checkFabric(inc *Incident) []Finding {
	type hostFaults struct {
		gpus, faults []string
		notDone      bool
		ev           evidence
	}
	var order []string
	by := map[string]*hostFaults{}
	for _, l := range All[*ingest.NCCLLog](inc) {
		for _, f := range l.Fabric {
			fs := fabricFaults(f.State, f.Health)
			if len(fs) == 0 {
				continue
			}
			h := by[f.Host]
			if h == nil {
				h = &hostFaults{}
				by[f.Host] = h
				order = append(order, f.Host)
			}
			h.gpus = append(h.gpus, f.BusID)
			h.faults = append(h.faults, fs...)
			h.notDone = h.notDone || f.State != 3
			h.ev.add(f.Evidence)
		}
	}
	var out []Finding
	for _, host := range order {
		h := by[host]
		gpus := distinct(h.gpus)
		what := "the fabric serves it at reduced capacity, and NCCL, which reads only the state, goes on using it"
		if h.notDone {
			what = "NCCL uses multi-node NVLink only when every rank's GPU has completed it"
		}
		out = append(out, Finding{
			ID: "nccl.mnnvl.fabric", Severity: Warn, Layer: LayerNCCL,
			Title: fmt.Sprintf("NVML reports the NVLink fabric registration of %s (busId %s)%s: %s; %s",
				plural(len(gpus), "GPU", "GPUs"), list(gpus, 4), onHosts([]string{host}), list(distinct(h.faults), 4), what),
			Evidence: h.ev.sorted(),
			Mechanism: "At init NCCL reads, for its GPU, the NVLink fabric state and health NVML keeps (the GPU's registration with the fabric the NVLink switch trays' manager sets up) and prints it. It uses multi-node NVLink (MNNVL: P2P and NVLS across the trays of a rack) only when every rank's GPU says registration completed (state 3); state 1 (not started) or 2 (in progress) turns MNNVL off for the whole communicator, so traffic between trays goes over the network (NCCL 2.21 to 2.24 fail init instead where NCCL_MNNVL_ENABLE=1 demands MNNVL). " +
				"The health mask holds two-bit fields for degraded bandwidth, route recovery, route unhealthy and access timeout recovery, each 1 when true and 2 when false, and from bit 8 a configuration code (2-8: wrong system GUID or chassis serial, no partition, too few NVLinks, incompatible GPU firmware, invalid location, GPU state invalid): a field set true is a fabric serving this GPU at reduced capacity, which NCCL does not read and goes on using. A mask of 0xaa reads every field false: healthy, not four paths down.",
			Fix: "On the host named: `nvidia-smi -q | grep -A 14 Fabric` (State Completed, Status Success, Health Summary Healthy, Bandwidth Full) for each GPU; check the fabric manager for the rack (NVLink Management on the switch trays, `systemctl status nvidia-fabricmanager` where it runs on the host) and the IMEX daemon and its channel in the container (`nvidia-imex-ctl -N`, /dev/nvidia-caps-imex-channels); wait for registration to complete or drain the tray until the fields read healthy, then rerun.",
		}.per(host, "host", "NVLink fabric registration not complete or degraded"))
	}
	return out
}

// fabricFaults names what a GPU's fabric state and NVML health mask say is
// wrong: a registration not completed, a health field set true, an
// incorrect configuration code (1 is none; 2-5 as NVML names them, 6-8 as
// the driver's nvlink_inband_msg.h, NVIDIA/open-gpu-kernel-modules, does).
func fabricFaults(state int, health uint64) []string {
	var out []string
	if state != 3 {
		what, ok := map[int]string{1: "not started", 2: "in progress"}[state]
		if !ok {
			what = "not completed"
		}
		out = append(out, fmt.Sprintf("registration %s (state %d)", what, state))
	}
	for i, name := range []string{"degraded bandwidth", "route recovery in progress", "route unhealthy", "access timeout recovery"} {
		if health>>(2*i)&3 == 1 {
			out = append(out, name)
		}
	}
	if c := health >> 8 & 0xf; c >= 2 {
		if name, ok := map[uint64]string{2: "incorrect system GUID", 3: "incorrect chassis serial number", 4: "no partition", 5: "insufficient NVLinks",
			6: "incompatible GPU firmware", 7: "invalid location", 8: "GPU state invalid"}[c]; ok {
			out = append(out, name)
		} else {
			out = append(out, fmt.Sprintf("incorrect configuration %d", c))
		}
	}
	return out
}
