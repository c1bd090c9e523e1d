package doctor

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/ingest"
)

// checkBusBWRerun reports two runs of one test on the same ranks whose
// plateaus part: the slower below fallFraction of the faster over the
// same plateau sizes (nccltests.busbw.rerun). Each run alone may read
// as plausible (a socket fallback's 2.8 GB/s is no error without the NIC
// speed), but the same collective, ranks, hosts, sizes and data type
// moving the same bytes over the same links should reach the same busbw
// to within run-to-run noise (a few percent); a quarter or more lost is
// something that changed between the runs. Runs of different nccl-tests
// or NCCL versions are a deliberate change and are not compared.
func checkBusBWRerun(inc *Incident) []Finding {
	type run struct {
		src string
		r   *ingest.TestRun
		p   ingest.Plateau
	}
	groups := map[string][]run{}
	var keys []string
	for _, t := range All[*ingest.NCCLTests](inc) {
		for _, r := range t.Runs {
			p, ok := r.Plateau()
			if !ok {
				continue
			}
			k, ok := rerunKey(r, p)
			if !ok {
				continue
			}
			if _, seen := groups[k]; !seen {
				keys = append(keys, k)
			}
			groups[k] = append(groups[k], run{t.Source(), r, p})
		}
	}
	var fs []Finding
	for _, k := range keys {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		var fast, slow run
		share := 1.0
		for i := range g {
			for j := i + 1; j < len(g); j++ {
				a, b, ok := sharedPlateaus(g[i].p, g[j].p)
				if !ok {
					continue
				}
				x, y := g[i], g[j]
				x.p, y.p = a, b
				if y.p.BusBW > x.p.BusBW {
					x, y = y, x
				}
				// Of the pairs apart, the one compared over the most
				// sizes, then the one furthest apart.
				r := y.p.BusBW / x.p.BusBW
				if x.p.BusBW > 0 && r < fallFraction && (len(x.p.Rows) > len(fast.p.Rows) || len(x.p.Rows) == len(fast.p.Rows) && r < share) {
					fast, slow, share = x, y, r
				}
			}
		}
		if fast.r == nil {
			continue
		}
		hosts, _ := fast.r.RanksPerHost()
		var ev evidence
		ev.add(fast.p.Rows[len(fast.p.Rows)-1].Evidence, slow.p.Rows[len(slow.p.Rows)-1].Evidence)
		name := testName(fast.r)
		fs = append(fs, Finding{
			ID: "nccltests.busbw.rerun", Severity: Warn, Layer: LayerNCCL,
			Title: fmt.Sprintf("%s on the same %d ranks (%s) reached %s GB/s in one run and %s GB/s (%d%%) in another of %d, over the same sizes (%s): something changed between the runs (the path, the transport or a setting)",
				name, fast.r.NRanks(), strings.Join(hosts, ", "), fmtGB(fast.p.BusBW), fmtGB(slow.p.BusBW),
				sharePct(slow.p.BusBW/fast.p.BusBW, fallFraction), len(g), sizeSpan(fast.p)),
			Evidence:  ev.sorted(),
			Mechanism: "The runs are the same test (collective, data type, sizes) on the same ranks and hosts with the same nccl-tests and NCCL builds, so they move the same bytes between the same GPUs; a healthy fabric gives them the same busbw to within a few percent. A run that reaches a quarter or more less took another path or another transport: a link that renegotiated to a lower speed or lost lanes after a cable was moved or a port flapped, NCCL falling back from RDMA to sockets (NET/Socket) or to another NIC, GPUDirect RDMA turned off, a port or queue the other run did not share, or a different NCCL setting (NCCL_ALGO, NCCL_PROTO, NCCL_IB_HCA, NCCL_IB_DISABLE) between them.",
			Fix:       "If no setting changed between the runs, compare the two hosts' links and NCCL's transport for the slow run: ethtool <netdev> (Speed, Link detected) and ibv_devinfo -v (active_speed, active_width) on every NIC in the path, and rerun the slow case with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET to see 'via NET/IB' against 'via NET/Socket' and which device each channel uses. A state that only a reboot clears points at the NIC or its driver.",
		}.per(fast.src+" "+collName(fast.r)+" rerun", "test", name+" runs apart"))
	}
	return fs
}

// rerunKey names what two runs must share to be compared: tool, build,
// collective, data type and rank placement (the sizes compared are those
// both plateaus hold, sharedPlateaus). Runs whose
// hosts are not all known (rows-only pastes, elided rank lines) have no
// key: the same table from different machines is no rerun.
func rerunKey(r *ingest.TestRun, p ingest.Plateau) (string, bool) {
	hosts, counts := r.RanksPerHost()
	if r.Collective == "" || len(hosts) == 0 || len(p.Rows) == 0 {
		return "", false
	}
	placed := make([]string, len(hosts))
	for i, h := range hosts {
		placed[i] = fmt.Sprintf("%s:%d", h, counts[i])
	}
	slices.Sort(placed)
	return strings.Join([]string{r.Tool, r.Version, r.Collective, p.Rows[0].Type,
		fmt.Sprint(r.NRanks()), strings.Join(placed, ",")}, "|"), true
}

// sharedPlateaus cuts two plateaus to the sizes both hold, each with its
// median busbw over them, as Plateau reckons it: a run cut short by a
// job killed mid-sweep, or swept to another -e, is compared over the
// sizes it reached. False when they share no size.
func sharedPlateaus(a, b ingest.Plateau) (ingest.Plateau, ingest.Plateau, bool) {
	cut := func(p, other ingest.Plateau) ingest.Plateau {
		var out ingest.Plateau
		var bw []float64
		for _, row := range p.Rows {
			if slices.ContainsFunc(other.Rows, func(o ingest.TestRow) bool { return o.Size == row.Size }) {
				out.Rows = append(out.Rows, row)
				bw = append(bw, row.BestBusBW())
			}
		}
		if len(bw) == 0 {
			return out
		}
		slices.Sort(bw)
		out.BusBW, out.Min, out.Max = bw[len(bw)/2], bw[0], bw[len(bw)-1]
		if len(bw)%2 == 0 {
			out.BusBW = (bw[len(bw)/2-1] + bw[len(bw)/2]) / 2
		}
		out.MinSize, out.MaxSize = out.Rows[0].Size, out.Rows[len(out.Rows)-1].Size
		return out
	}
	ca, cb := cut(a, b), cut(b, a)
	return ca, cb, len(ca.Rows) > 0 && len(cb.Rows) > 0
}
