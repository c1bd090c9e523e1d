package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// nicSpeed is the NIC line rate to judge against and where it comes from.
type nicSpeed struct {
	rate unit.BitRate
	how  string
	ev   []Evidence
}

// speedOf picks the NIC speed to judge a run in scope at against:
// --nic-speed, else the speeds its own file and host state for the
// devices NCCL uses, else the one speed they state, else the fastest they
// state; only when they state none, the speeds of inputs that do not say
// their host (never those of another host: see scope.go).
func speedOf(inc *Incident, at ingest.Scope) (nicSpeed, bool) {
	if inc.Options.NICSpeed > 0 {
		return nicSpeed{rate: inc.Options.NICSpeed, how: "given by --nic-speed"}, true
	}
	used := map[string]bool{}
	for _, l := range All[*ingest.NCCLLog](inc) {
		if reachOf(at, l.Scope()) == otherHost {
			continue
		}
		for _, d := range l.IBDevices {
			used[d.Name] = true
		}
	}
	near, far := speedsFor(inc, at, at.Host.Name)
	how := "stated for this host"
	all := near
	if len(all) == 0 {
		all, how = far, "stated by inputs that do not name their host"
	}
	var matched []scopedSpeed
	for _, s := range all {
		if used[s.Device] {
			matched = append(matched, s)
		}
	}
	pick := matched
	if len(pick) > 0 {
		how = "stated for the NIC NCCL uses"
	} else {
		pick = all
	}
	if len(pick) == 0 {
		return nicSpeed{}, false
	}
	best := pick[0]
	rates := map[unit.BitRate]bool{}
	for _, s := range pick {
		rates[s.Rate] = true
		if s.Rate > best.Rate {
			best = s
		}
	}
	if len(rates) > 1 {
		how = "the fastest stated; pass --nic-speed to choose"
	}
	if best.Basis != "" && len(rates) == 1 {
		how = best.Basis
	}
	if best.Device != "" {
		how += ", " + best.Device
	}
	return nicSpeed{rate: best.Rate, how: how, ev: []Evidence{best.Evidence}}, true
}

// share is how many ranks and NICs a host has.
type share struct {
	nics, ranks int // NICs per host and ranks per host; 0 when unknown
	// atLeast is set when the host may have more NICs than nics, and
	// fewer says what shows only nics ("NCCL's merged devices").
	atLeast bool
	fewer   string
	text    string
	ev      []Evidence
	// note says why NCCL's connection lines gave no NIC count.
	note string
}

// rankShare reads how many ranks share a host's NICs: ranks per host from
// the table's rank lines (or NCCL's localRanks), NICs per host from NCCL's
// "NET/IB : Using" lines, else from its connection lines.
func rankShare(inc *Incident, r *ingest.TestRun) share {
	var s share
	_, counts := r.RanksPerHost()
	for _, c := range counts {
		s.ranks = max(s.ranks, c)
	}
	var devEv []Evidence
	var names []string
	for _, l := range All[*ingest.NCCLLog](inc) {
		if s.ranks == 0 {
			s.ranks = l.Comm.LocalRanks
		}
		perHost := map[string]map[string]bool{}
		for _, d := range l.IBDevices {
			if perHost[d.Host] == nil {
				perHost[d.Host] = map[string]bool{}
			}
			perHost[d.Host][d.Name] = true
			s.nics = max(s.nics, d.Elided)
			if len(devEv) == 0 {
				devEv = append(devEv, d.Evidence)
			}
			names = append(names, d.Name)
		}
		for _, m := range perHost {
			s.nics = max(s.nics, len(m))
		}
	}
	if s.nics > 0 && s.ranks > 1 {
		s.text = fmt.Sprintf("%s per host share %s (%s)", plural(s.ranks, "rank", "ranks"), plural(s.nics, "NIC", "NICs"), list(distinct(names), 4))
		s.ev = devEv
	}
	if s.nics == 0 {
		s = withChannelNICs(inc, s)
	}
	if s.nics == 0 {
		s = withHCAList(inc, s)
	}
	if n := inc.Options.NICsPerNode; n > 0 {
		s.nics, s.ev, s.atLeast, s.note = n, nil, false, ""
		s.text = fmt.Sprintf("%s per host share %s (given by --nics-per-node)", plural(s.ranks, "rank", "ranks"), plural(n, "NIC", "NICs"))
		if s.ranks == 0 {
			// No rank line or NCCL log says how many ranks a host runs.
			s.text = fmt.Sprintf("each host has %s (given by --nics-per-node); how many ranks share them is not known", plural(n, "NIC", "NICs"))
		}
	}
	return s
}

// withHCAList takes the NICs per host from NCCL_IB_HCA when no NCCL line
// lists them: a list of the devices to use (not '^', the ones to leave
// out) names the NICs NCCL opens, one per device, or one per port where
// ports are given (mlx5_0:1,mlx5_0:2 are two). An entry without a leading
// '=' also takes the devices its name prefixes (mlx5_1 takes mlx5_10), so
// the host may use more; an entry that names no device (mlx5, bnxt_re: no
// index at its end, or a driver name that ends in a digit: mlx5, mlx4,
// hfi1) takes a family of unknown size and counts nothing.
func withHCAList(inc *Incident, s share) share {
	e, ok := settingInEffect(inc, "NCCL_IB_HCA")
	v := strings.TrimSpace(e.Value)
	if !ok || v == "" || strings.HasPrefix(v, "^") {
		return s
	}
	exact := strings.HasPrefix(v, "=")
	ports := map[string]map[string]bool{} // device -> ports listed ("" for all)
	var names []string
	for _, entry := range strings.Split(strings.TrimPrefix(v, "="), ",") {
		entry = strings.TrimSpace(entry)
		dev, port, _ := strings.Cut(entry, ":")
		if dev == "" {
			continue
		}
		if hcaFamily(dev) && !exact {
			return s
		}
		if ports[dev] == nil {
			ports[dev] = map[string]bool{}
		}
		ports[dev][port] = true
		names = append(names, entry)
	}
	n := 0
	for _, p := range ports {
		n += len(p)
		if p[""] && len(p) > 1 {
			n-- // the bare device is one of its listed ports
		}
	}
	if n == 0 {
		return s
	}
	names = distinct(names)
	s.nics, s.ev, s.note = n, []Evidence{e.Evidence}, ""
	s.atLeast, s.fewer = !exact, "NCCL_IB_HCA lists"
	s.text = fmt.Sprintf("%s per host share %s, the devices NCCL_IB_HCA lists (%s)", plural(max(s.ranks, 1), "rank", "ranks"), plural(n, "NIC", "NICs"), list(names, 4))
	return s
}

// hcaFamily says whether an NCCL_IB_HCA entry names a driver's family of
// devices rather than one device: no index at its end (bnxt_re, mlx5_),
// or a driver whose own name ends in a digit.
func hcaFamily(dev string) bool {
	if c := dev[len(dev)-1]; c < '0' || c > '9' {
		return true
	}
	switch dev {
	case "mlx4", "mlx5", "hfi1":
		return true
	}
	return false
}
