package doctor

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/ingest"
)

// Rules over the GPU models the inputs name: one collective runs at the
// pace of its slowest member, so a job across GPUs of different models
// (in one host, or across the hosts of one diagnosis) runs at the
// slowest model's.

func gpuModelRules() []Rule {
	return []Rule{{IDs: []string{"host.gpu.mixed"}, Check: checkMixedGPUs}}
}

// namedGPU is one GPU model an input names, with the host it is on ("" when
// unknown) and where.
type namedGPU struct {
	host, model string
	ev          Evidence
}

// incidentGPUs are the GPUs the incident's inputs name with their model:
// GPU listings (nvidia-smi -L, --query-gpu), nvidia-smi -q and its table,
// nvidia-smi nvlink -s, and nccl-tests' rank lines, each on the host its
// line or input names.
func incidentGPUs(inc *Incident) []namedGPU {
	var out []namedGPU
	host := func(line string, a ingest.Artifact) string {
		if line != "" {
			return line
		}
		return a.Scope().Host.Name
	}
	for _, a := range All[*ingest.GPUList](inc) {
		for _, g := range a.GPUs {
			out = append(out, namedGPU{host(g.Host, a), g.Model, g.Evidence})
		}
	}
	for _, a := range All[*ingest.NVSMI](inc) {
		for _, g := range a.GPUs {
			out = append(out, namedGPU{host(g.Host, a), g.Model, g.Evidence})
		}
	}
	for _, a := range All[*ingest.NVLinkStatus](inc) {
		for _, g := range a.GPUs {
			out = append(out, namedGPU{host("", a), g.Model, g.Evidence})
		}
	}
	for _, a := range All[*ingest.NCCLTests](inc) {
		for _, r := range a.Runs {
			for _, k := range r.Ranks {
				out = append(out, namedGPU{host(k.Host, a), k.GPU, k.Evidence})
			}
		}
	}
	return out
}

// modelKey is a model's name for comparison: NVIDIA's prefix, a table's
// "..." and case aside.
func modelKey(m string) string {
	m = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(m), "..."))
	m = strings.TrimPrefix(m, "NVIDIA ")
	return strings.ToUpper(strings.Join(strings.Fields(m), " "))
}

// sameModel reports whether two keys name one model: equal, or one the
// other cut short (nvidia-smi's table cuts long names, a paste ends inside
// one), but not where the longer goes on with a digit: an A10 is no A100.
func sameModel(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == b || strings.HasPrefix(b, a) && (b[len(a)] < '0' || b[len(a)] > '9')
}

// modelGroup is one model and the hosts it is on.
type modelGroup struct {
	key, name string
	hosts     []string
	gpus      int
	ev        []Evidence
}

// checkMixedGPUs reports GPUs of different models in one host or across
// the hosts of the incident.
func checkMixedGPUs(inc *Incident) []Finding {
	var groups []*modelGroup
	for _, g := range incidentGPUs(inc) {
		k := modelKey(g.model)
		if k == "" {
			continue
		}
		i := slices.IndexFunc(groups, func(m *modelGroup) bool { return sameModel(m.key, k) })
		if i < 0 {
			groups = append(groups, &modelGroup{key: k, name: strings.TrimSpace(g.model)})
			i = len(groups) - 1
		}
		m := groups[i]
		if len(k) > len(m.key) {
			m.key, m.name = k, strings.TrimSpace(g.model) // the full name over a cut one
		}
		m.gpus++
		if g.host != "" && !slices.Contains(m.hosts, g.host) {
			m.hosts = append(m.hosts, g.host)
		}
		if len(m.ev) < 2 {
			m.ev = append(m.ev, g.ev)
		}
	}
	if len(groups) < 2 {
		return nil
	}
	var parts, hosts []string
	var ev []Evidence
	for _, m := range groups {
		where := ""
		if len(m.hosts) > 0 {
			where = " on " + list(m.hosts, 3)
		}
		parts = append(parts, fmt.Sprintf("%s (%s%s)", m.name, plural(m.gpus, "GPU", "GPUs"), where))
		ev = append(ev, m.ev...)
		hosts = append(hosts, m.hosts...)
	}
	scope := "in the inputs"
	switch hosts = distinct(hosts); {
	case len(hosts) == 1:
		scope = "in one host, " + hosts[0]
	case len(hosts) > 1:
		scope = fmt.Sprintf("across %d hosts", len(hosts))
	}
	return []Finding{{
		ID: "host.gpu.mixed", Severity: Warn, Layer: LayerNCCL,
		Title:    fmt.Sprintf("GPUs of %d models %s: %s", len(groups), scope, strings.Join(parts, ", ")),
		Evidence: evidenceInOrder(ev),
		Mechanism: "A collective moves in lockstep: each step of a ring or tree waits for every rank's reduction kernel and copy, so one communicator over GPUs of different models runs at the slowest model's compute, memory and PCIe/NVLink speed, and NCCL tunes its channels and algorithms for the weakest GPU's links. " +
			"Different models also mean different NVLink generations (or none), so the fast GPUs' NVLink bandwidth is idle while their peers cross PCIe; a mixed host can even lack peer access between the models. The busbw nccl-tests reports is the slowest member's.",
		Fix: "Run one communicator per GPU model: schedule the job on nodes of one model (Kubernetes node labels nvidia.com/gpu.product, Slurm --constraint or a GRES type), or set CUDA_VISIBLE_DEVICES so a host's ranks use one model; if the mix is deliberate, expect the slowest model's bandwidth and compare against it, not the fast GPUs' datasheet.",
	}}
}
