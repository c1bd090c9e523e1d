package lint

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/collective"
	"rocelab/internal/doctor"
	"rocelab/internal/ingest"
)

// rdmaPort is one RDMA device port an input lists, and whether NCCL would
// open it (ibv_devinfo's PORT_ACTIVE; a show_gids row says nothing of the
// state and is taken as active).
type rdmaPort struct {
	dev    string
	port   int
	active bool
}

// rdmaPorts returns the device ports ibv_devinfo and show_gids inputs
// list, each once.
func (m *Model) rdmaPorts() []rdmaPort {
	var out []rdmaPort
	seen := map[string]bool{}
	add := func(p rdmaPort) {
		if k := fmt.Sprintf("%s:%d", p.dev, p.port); !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	for _, a := range m.Artifacts {
		switch v := a.(type) {
		case *ingest.Devinfo:
			for _, d := range v.Devices {
				for _, p := range d.Ports {
					add(rdmaPort{d.Name, p.Port, p.State == "" || strings.Contains(p.State, "ACTIVE")})
				}
			}
		case *ingest.ShowGIDs:
			for _, e := range v.Entries {
				add(rdmaPort{e.Device, e.Port, true})
			}
		}
	}
	return out
}

// hcaRules judges NCCL_IB_HCA as NCCL's net_ib init.cc reads it: a '^'
// (leave these out) then a '=' (exact names) only at the start of the
// value, then comma-separated device[:port] entries matched as name
// prefixes. A '^' or '=' further on is part of an entry's name; with the
// devices an input lists, a filter that passes none of their active
// ports, or a prefix that takes more devices than the one it names (mlx5_1
// takes mlx5_10 and mlx5_11), is reported.
func hcaRules(m *Model) []doctor.Finding {
	s, ok := m.setting("NCCL_IB_HCA")
	if !ok || strings.TrimSpace(s.Value) == "" {
		return nil
	}
	f := collective.ParseHCA(strings.TrimSpace(s.Value))
	var fs []doctor.Finding
	add := func(id string, sev doctor.Severity, title, mech, fix string) {
		fs = append(fs, doctor.Finding{ID: id, Severity: sev, Layer: doctor.LayerNCCL, Title: title, Evidence: evs(s.Evidence), Mechanism: mech, Fix: fix})
	}
	var stray, spaced []string
	for _, e := range f.Entries {
		switch {
		case strings.HasPrefix(e.Prefix, "^") || strings.HasPrefix(e.Prefix, "="):
			stray = append(stray, e.Prefix)
		case strings.ContainsAny(e.Prefix, " \t"):
			spaced = append(spaced, e.Prefix)
		}
	}
	if len(spaced) > 0 {
		add("nccl.ib_hca.syntax", doctor.Warn,
			fmt.Sprintf("NCCL_IB_HCA=%s: %s read as a device name with its blank: NCCL splits the list at commas and keeps every character", s.Value, quoteList(spaced)),
			"NCCL's parseStringList copies each character between commas into the entry's name, blanks included, and a device name has no blank: that entry selects nothing, and NCCL runs on the other entries' devices alone.",
			fmt.Sprintf("No blank in the list: NCCL_IB_HCA=%s.", strings.Join(strings.Fields(s.Value), "")))
	}
	if len(stray) > 0 {
		add("nccl.ib_hca.syntax", doctor.Warn,
			fmt.Sprintf("NCCL_IB_HCA=%s: %s read as a device name: NCCL takes '^' (leave out) and '=' (exact names) only at the start of the value, for the whole list", s.Value, quoteList(stray)),
			"NCCL strips one leading '^', then one leading '=', and splits the rest at commas into device[:port] prefixes: a '^' or '=' inside the list (or '=' before '^') becomes the first character of a device name that no device has, so that entry selects nothing and what it meant to leave out or pin is not done.",
			"One mode for the whole list: the devices to use (NCCL_IB_HCA==mlx5_0:1,mlx5_1:1 with exact names) or those to leave out (NCCL_IB_HCA=^=mlx5_2), never both.")
	}
	ports := m.rdmaPorts()
	if len(ports) == 0 {
		return fs
	}
	var passed []string
	for _, p := range ports {
		if p.active && f.Match(p.dev, p.port) {
			passed = append(passed, fmt.Sprintf("%s:%d", p.dev, p.port))
		}
	}
	if len(passed) == 0 {
		add("nccl.ib_hca.none", doctor.Error,
			fmt.Sprintf("NCCL_IB_HCA=%s passes none of the %d active RDMA ports listed: NCCL finds no IB/RoCE device", s.Value, countActive(ports)),
			"NCCL opens only the active ports NCCL_IB_HCA passes; with none, NET/IB reports no device and NCCL runs inter-node traffic over TCP sockets (NET/Socket), at a fraction of the RoCE bandwidth, without failing.",
			"Name the RDMA devices the hosts have (ibv_devinfo, show_gids): NCCL_IB_HCA==mlx5_0,mlx5_1 for exact names.")
		return fs
	}
	if f.Exact {
		return fs
	}
	for _, e := range f.Entries {
		var named, more []string
		alone := collective.HCAFilter{Set: true, Entries: []collective.HCAEntry{e}}
		for _, p := range ports {
			if !p.active || !alone.Match(p.dev, p.port) {
				continue
			}
			if p.dev == e.Prefix {
				named = append(named, p.dev)
			} else if !slices.Contains(more, p.dev) && !isEntry(f, p.dev) {
				more = append(more, p.dev)
			}
		}
		if len(named) == 0 || len(more) == 0 {
			continue
		}
		verb, effect := "also takes", "NCCL uses them too: rings and trees then run over these ports as well, at their speed and MTU"
		if f.Exclude {
			verb, effect = "also leaves out", "NCCL does not use them either"
		}
		add("nccl.ib_hca.prefix", doctor.Warn,
			fmt.Sprintf("NCCL_IB_HCA entry %s %s %s: NCCL matches device names by prefix", e.Prefix, verb, strings.Join(more, ", ")),
			fmt.Sprintf("Without a leading '=', each NCCL_IB_HCA entry is a name prefix (NVIDIA/nccl#236 added '=' for hosts with ten or more mlx5 devices): %s matches the active ports of %s, and %s.", e.Prefix, strings.Join(more, ", "), effect),
			fmt.Sprintf("NCCL_IB_HCA=%s%s (exact names).", map[bool]string{true: "^"}[f.Exclude], "="+strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(s.Value), "^"), "=")))
	}
	return fs
}

// isEntry reports whether dev is itself an entry of the filter (a device
// the list names on purpose is not taken by another entry's prefix).
func isEntry(f collective.HCAFilter, dev string) bool {
	for _, e := range f.Entries {
		if e.Prefix == dev {
			return true
		}
	}
	return false
}

func countActive(ports []rdmaPort) int {
	n := 0
	for _, p := range ports {
		if p.active {
			n++
		}
	}
	return n
}

// quoteList writes names as "a", "b" is / are.
func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	if len(xs) == 1 {
		return q[0] + " is"
	}
	return strings.Join(q, ", ") + " are"
}
