package doctor

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"rocelab/internal/counters"
	"rocelab/internal/ingest"
)

// Helpers shared by the rules: collecting evidence, and the words and lists
// their titles are made of.

// maxFindingEvidence caps the evidence lines a finding collects with
// evidence.add.
const maxFindingEvidence = 12

// evidence collects a finding's lines without duplicates, up to a cap.
type evidence struct {
	list []Evidence
	seen map[Evidence]bool
}

func (e *evidence) add(evs ...Evidence) {
	for _, ev := range evs {
		if ev.File == "" || e.seen[ev] || len(e.list) >= maxFindingEvidence {
			continue
		}
		if e.seen == nil {
			e.seen = map[Evidence]bool{}
		}
		e.seen[ev] = true
		e.list = append(e.list, ev)
	}
}

// sorted returns the lines in input order.
func (e *evidence) sorted() []Evidence { return sortEvidence(append([]Evidence(nil), e.list...)) }

// sortEvidence orders evidence by file, then line, in place.
func sortEvidence(ev []Evidence) []Evidence {
	sort.SliceStable(ev, func(i, j int) bool {
		if ev[i].File != ev[j].File {
			return ev[i].File < ev[j].File
		}
		return ev[i].Line < ev[j].Line
	})
	return ev
}

// evidenceInOrder orders evidence by file and line and drops repeats and
// empty entries; unlike evidence.add it keeps every line.
func evidenceInOrder(ev []Evidence) []Evidence {
	sortEvidence(ev)
	var out []Evidence
	for _, e := range ev {
		if e.File == "" && e.Text == "" || len(out) > 0 && e == out[len(out)-1] {
			continue
		}
		out = append(out, e)
	}
	return out
}

// appendEvidence adds e to evs in input order unless it is empty or there.
func appendEvidence(evs []Evidence, e Evidence) []Evidence {
	var b evidence
	b.add(evs...)
	b.add(e)
	return b.sorted()
}

// readingsEvidence returns the lines that printed the readings, in order.
func readingsEvidence(rs ...ingest.Reading) []Evidence {
	var ev []Evidence
	for _, r := range rs {
		ev = append(ev, r.Evidence...)
	}
	return evidenceInOrder(ev)
}

// distinct returns the distinct non-empty strings of xs in first-seen order.
func distinct(xs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range xs {
		if x != "" && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// tally groups repeated occurrences of one thing (an error, an event) by
// key, in first-seen order: the first occurrence, how many, on which
// hosts, and the evidence the caller adds.
type tally[T any] struct {
	groups []*tallied[T]
	byKey  map[string]*tallied[T]
}

type tallied[T any] struct {
	first T
	n     int
	hosts []string
	ev    evidence
}

// add counts n occurrences of v under key, seen on host ("" for none).
func (t *tally[T]) add(key string, v T, n int, host string) *tallied[T] {
	g := t.byKey[key]
	if g == nil {
		if t.byKey == nil {
			t.byKey = map[string]*tallied[T]{}
		}
		g = &tallied[T]{first: v}
		t.byKey[key] = g
		t.groups = append(t.groups, g)
	}
	g.n += n
	if host != "" {
		g.hosts = append(g.hosts, host)
	}
	return g
}

// onHosts returns prep and up to three of the group's distinct hosts
// (" on a, b"), or "" when no occurrence named one.
func (g *tallied[T]) onHosts(prep string) string {
	if hs := distinct(g.hosts); len(hs) > 0 {
		return prep + list(hs, 3)
	}
	return ""
}

// list joins up to n items as "a, b, c and 2 more".
func list(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(" and %d more", len(xs)-n)
}

// allOf counts a whole: "all 8 ranks", "both ranks", "the one rank".
func allOf(n int, one, many string) string {
	switch n {
	case 1:
		return "the one " + one
	case 2:
		return "both " + many
	}
	return "all " + plural(n, one, many)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// unnamedDevice stands for an RDMA device an output does not name (an
// ibv_devinfo paste cut before its hca_id line).
const unnamedDevice = "(device not named)"

func nameOr(name, placeholder string) string {
	if name == "" {
		return placeholder
	}
	return name
}

func percentOf(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// prioList formats priorities as "3" or "3,4", or "none".
func prioList(ps []int) string { return ingest.PrioList(ps) }

// pfcVector returns mlnx_qos's --pfc argument, "0,0,0,1,0,0,0,0", for the
// given priorities.
func pfcVector(ps []int) string {
	v := []string{"0", "0", "0", "0", "0", "0", "0", "0"}
	for _, p := range ps {
		if p >= 0 && p < 8 {
			v[p] = "1"
		}
	}
	return strings.Join(v, ",")
}

func hasPrio(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// markInto says how to mark RoCE into priority p with the default
// DSCP-to-priority map (DSCP 8p..8p+7 → p): for 3, DSCP 26 is TOS 106.
func markInto(p int) string {
	if p == 3 {
		return "mark RoCE with DSCP 26, which maps to priority 3: TOS 106, so NCCL_IB_TC=106, and for rdma_cm tools cma_roce_tos -d <dev> -t 106"
	}
	return fmt.Sprintf("mark RoCE with a DSCP that maps to priority %d (DSCP %d–%d by default): NCCL_IB_TC = DSCP×4+2", p, 8*p, 8*p+7)
}

// switchPFCSetting is PFC on priority p at switch port dev, as SONiC, EOS
// and Cumulus configure it: a switch port is not set with a host's tool.
func switchPFCSetting(dev string, p int) string {
	return fmt.Sprintf("PFC on priority %d at switch port %s (SONiC: PORT_QOS_MAP|<port> pfc_enable \"%d\"; EOS: priority-flow-control priority %d no-drop; Cumulus: nv set qos pfc default-global switch-priority %d)", p, dev, p, p, p)
}

// pfcSetting is the host command that trusts DSCP and turns PFC on for
// priority p alone on the port of s: mlnx_qos for mlx5 (and a dump that
// does not say its driver), iproute2's dcb for another vendor's NIC, whose
// own tool (Broadcom niccli, Intel's) applies where the firmware runs DCBX.
func pfcSetting(s *ingest.CounterSample, dev string, p int) string {
	if v, ok := s.Vendor(); ok && v != counters.MLX5 {
		return fmt.Sprintf("dcb pfc set dev %s prio-pfc all:off %d:on and dcb app add dev %s dscp-prio %d:%d (iproute2; where the %s NIC's firmware runs DCBX, the vendor's tool)", dev, p, dev, 8*p+2, p, v)
	}
	return fmt.Sprintf("mlnx_qos -i %s --trust dscp --pfc %s", dev, pfcVector([]int{p}))
}

// onHosts is " on a, b, c" for the distinct hosts given (up to three
// named), or "" for none.
func onHosts(hosts []string) string {
	if hs := distinct(hosts); len(hs) > 0 {
		return " on " + list(hs, 3)
	}
	return ""
}
