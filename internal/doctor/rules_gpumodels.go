package doctor

import (
	"fmt"
	"slices"
	"strconv"
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
// unknown), its index (-1 when unknown) and PCI bus (-1 when unknown),
// and where.
type namedGPU struct {
	host, model string
	index, bus  int
	ev          Evidence
	// run is the input of the nccl-tests run whose rank line names the
	// GPU: that job's GPU, not its host name's in other jobs.
	run string
}

// pciBus is the bus number of a PCI address as nvidia-smi ("00000000:1B:00.0")
// or nccl-tests ("0x1b") print it, -1 when s is none.
func pciBus(s string) int {
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		s = h
	} else if f := strings.Split(s, ":"); len(f) >= 2 {
		s = f[len(f)-2]
	} else {
		return -1
	}
	n, err := strconv.ParseUint(s, 16, 8)
	if err != nil {
		return -1
	}
	return int(n)
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
			out = append(out, namedGPU{host(g.Host, a), g.Model, g.Index, pciBus(g.BusID), g.Evidence, ""})
		}
	}
	for _, a := range All[*ingest.NVSMI](inc) {
		for _, g := range a.GPUs {
			out = append(out, namedGPU{host(g.Host, a), g.Model, -1, pciBus(g.BusID), g.Evidence, ""})
		}
	}
	for _, a := range All[*ingest.NVLinkStatus](inc) {
		for _, g := range a.GPUs {
			n, err := strconv.Atoi(strings.TrimPrefix(g.Name, "GPU "))
			if err != nil {
				n = -1
			}
			out = append(out, namedGPU{host("", a), g.Model, n, -1, g.Evidence, ""})
		}
	}
	for _, a := range All[*ingest.NCCLTests](inc) {
		for _, r := range a.Runs {
			for _, k := range r.Ranks {
				out = append(out, namedGPU{host(k.Host, a), k.GPU, k.Device, pciBus(k.BusID), k.Evidence, a.Source()})
			}
		}
	}
	return out
}

// gpuIDs are the names a GPU goes by for de-duplication: its host (the
// input's file when no host is known) with its index, and with its bus.
func gpuIDs(g namedGPU) []string {
	at := g.host
	if at == "" {
		at = "file " + g.ev.File
	}
	var ids []string
	if g.index >= 0 {
		ids = append(ids, fmt.Sprintf("%s\x00index %d", at, g.index))
	}
	if g.bus >= 0 {
		ids = append(ids, fmt.Sprintf("%s\x00bus %d", at, g.bus))
	}
	return ids
}

// modelKey is a model's name for comparison, NVIDIA's prefix, a table's
// "..." and case aside, and whether the name was cut with "...".
func modelKey(m string) (key string, cut bool) {
	m, cut = strings.CutSuffix(strings.TrimSpace(m), "...")
	m = strings.TrimPrefix(strings.TrimSpace(m), "NVIDIA ")
	return strings.ToUpper(strings.Join(strings.Fields(m), " ")), cut
}

// sameModel reports whether two keys name one model: equal, or one the
// other cut short: a name nvidia-smi's table cut ("A100-SXM...") goes on
// any way, a paste that ends inside one not with a digit (an A10 is no
// A100).
func sameModel(a string, aCut bool, b string, bCut bool) bool {
	if len(a) > len(b) {
		a, aCut, b = b, bCut, a
	}
	return a == b || strings.HasPrefix(b, a) && (aCut || b[len(a)] < '0' || b[len(a)] > '9')
}

// modelGroup is one model and the hosts it is on; cut is set while its
// key is a name cut with "...".
type modelGroup struct {
	key, name string
	cut       bool
	hosts     []string
	gpus      int
	ev        []Evidence
}

// checkMixedGPUs reports GPUs of different models in one host, or across
// the hosts of one job (see jobGroups): hosts diagnosed together without a
// job that names them together are not compared.
func checkMixedGPUs(inc *Incident) []Finding {
	gpus := incidentGPUs(inc)
	keys := make([]string, len(gpus))
	names := make([]string, len(gpus))
	for i, g := range gpus {
		names[i] = g.host
	}
	key := hostKeyer(inc, names)
	for i, g := range gpus {
		keys[i] = key(g.host)
		if keys[i] == "" {
			keys[i] = unhosted(g.ev.File)
		}
	}
	var fs []Finding
	for _, grp := range jobGroups(inc, keys, key) {
		var in []namedGPU
		for i, g := range gpus {
			if slices.Contains(grp.hosts, keys[i]) && (g.run == "" || slices.Contains(grp.sources, g.run)) {
				in = append(in, g)
			}
		}
		if f, ok := mixedGPUs(in, grp); ok && !slices.ContainsFunc(fs, func(o Finding) bool { return o.Title == f.Title }) {
			fs = append(fs, f)
		}
	}
	return fs
}

// mixedGPUs reports the GPUs of a group of hosts when they are of
// different models, naming the inputs compared.
func mixedGPUs(gpus []namedGPU, grp hostGroup) (Finding, bool) {
	var groups []*modelGroup
	// seen are the GPUs counted so far by gpuIDs, to their group: the
	// same GPUs read from two inputs (nccl-tests' rank lines and nvidia-smi
	// -L of the host) or as two kinds (nvidia-smi nvlink -s) count once.
	seen := map[string]*modelGroup{}
	var files []string  // the inputs the GPUs come from
	var fileEv evidence // the first GPU line of each
	hostless := false   // a GPU of an input that names no host
next:
	for _, g := range gpus {
		k, cut := modelKey(g.model)
		if k == "" {
			continue
		}
		i := slices.IndexFunc(groups, func(m *modelGroup) bool { return sameModel(m.key, m.cut, k, cut) })
		if i < 0 {
			groups = append(groups, &modelGroup{key: k, cut: cut, name: strings.TrimSpace(g.model)})
			i = len(groups) - 1
		}
		m := groups[i]
		if len(k) > len(m.key) {
			m.key, m.cut, m.name = k, cut, strings.TrimSpace(g.model) // the full name over a cut one
		}
		ids := gpuIDs(g)
		for _, id := range ids {
			if seen[id] == m {
				continue next
			}
		}
		for _, id := range ids {
			seen[id] = m
		}
		m.gpus++
		if !slices.Contains(files, g.ev.File) {
			files = append(files, g.ev.File)
			fileEv.add(g.ev)
		}
		if g.host == "" {
			hostless = true
		} else if !slices.Contains(m.hosts, g.host) {
			m.hosts = append(m.hosts, g.host)
		}
		if len(m.ev) < 2 {
			m.ev = append(m.ev, g.ev)
		}
	}
	if len(groups) < 2 {
		return Finding{}, false
	}
	var parts, hosts []string
	ev := fileEv
	ev.add(grp.ev...)
	for _, m := range groups {
		where := ""
		if len(m.hosts) > 0 {
			where = " on " + list(m.hosts, 3)
		}
		parts = append(parts, fmt.Sprintf("%s (%s%s)", m.name, plural(m.gpus, "GPU", "GPUs"), where))
		ev.add(m.ev...)
		hosts = append(hosts, m.hosts...)
	}
	scope, subject := "in "+files[0], files[0]
	switch hosts = distinct(hosts); {
	case len(hosts) > 1:
		scope, subject = fmt.Sprintf("across %d hosts of %s", len(hosts), grp.how()), strings.Join(grp.jobs, ", ")
	case len(hosts) == 1 && !hostless:
		scope, subject = "in one host, "+hosts[0], hosts[0]
	case len(files) > 1:
		scope = fmt.Sprintf("in %d inputs of %s", len(files), grp.how())
	}
	compared := ""
	if len(files) > 1 {
		compared = fmt.Sprintf(" (inputs compared: %s)", list(files, 4))
	}
	return Finding{
		ID: "host.gpu.mixed", Severity: Warn, Layer: LayerNCCL,
		Title:    fmt.Sprintf("GPUs of %d models %s: %s%s", len(groups), scope, strings.Join(parts, ", "), compared),
		Evidence: ev.sorted(),
		Mechanism: "A collective moves in lockstep: each step of a ring or tree waits for every rank's reduction kernel and copy, so one communicator over GPUs of different models runs at the slowest model's compute, memory and PCIe/NVLink speed, and NCCL tunes its channels and algorithms for the weakest GPU's links. " +
			"Different models also mean different NVLink generations (or none), so the fast GPUs' NVLink bandwidth is idle while their peers cross PCIe; a mixed host can even lack peer access between the models. The busbw nccl-tests reports is the slowest member's. " +
			"Hosts are compared only within one job, as an NCCL log or an nccl-tests run names its hosts together; hosts diagnosed side by side without one are not.",
		Fix: "Run one communicator per GPU model: schedule the job on nodes of one model (Kubernetes node labels nvidia.com/gpu.product, Slurm --constraint or a GRES type), or set CUDA_VISIBLE_DEVICES so a host's ranks use one model; if the mix is deliberate, expect the slowest model's bandwidth and compare against it, not the fast GPUs' datasheet.",
	}.per(subject, "host group", "GPUs of different models"), true
}
