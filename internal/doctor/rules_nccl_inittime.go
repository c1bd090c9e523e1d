package doctor

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/ingest"
)

// How long NCCL took to create a communicator, by phase: the "Init
// timings" lines (2.22 on) and the bootstrap's "Bootstrap timings" (2.23
// on). Slow init is a question a RoCE engineer is asked first; the phase
// says whether the network had anything to do with it.

// slowInitMS is the init time from which the doctor reports it, a
// judgement, not NCCL's: NCCL's developers expect a node's init to take
// "at most a second" (NVIDIA/nccl#340) and called 5-6 s per init "a lot
// more than it should" (#534, whose one-host log says 2.46 s), while jobs
// of some thousands of GPUs take minutes (NVIDIA/nccl#1156: 2.5 minutes).
const slowInitMS = 10_000

// largeCommRanks is the rank count from which tens of seconds of init is
// expected of the rendezvous alone (info, not warn, when the rendezvous
// phases are the longest).
const largeCommRanks = 1024

func ncclInitTimeRules() []Rule {
	return []Rule{
		{IDs: []string{"nccl.init.slow"}, Check: checkSlowInit},
	}
}

// checkSlowInit reports the slowest communicator creation of the incident
// when it took slowInitMS or more, named by the phase that took longest.
func checkSlowInit(inc *Incident) []Finding {
	var init, boot, last []ingest.InitTiming
	for _, l := range All[*ingest.NCCLLog](inc) {
		last = append(last, l.LastArrivals...)
		for _, t := range l.InitTimings {
			if t.Bootstrap {
				boot = append(boot, t)
			} else {
				init = append(init, t)
			}
		}
	}
	slowestFirst := func(a, b ingest.InitTiming) int { return cmp.Compare(b.TotalMS, a.TotalMS) }
	slices.SortStableFunc(init, slowestFirst)
	slices.SortStableFunc(boot, slowestFirst)
	var t ingest.InitTiming
	switch {
	case len(init) > 0:
		t = init[0]
	case len(boot) > 0:
		t = boot[0]
	default:
		return nil
	}
	if t.TotalMS < slowInitMS {
		return nil
	}
	p := t.Slowest()
	var ev evidence
	for _, s := range init[:min(len(init), 3)] {
		ev.add(s.Evidence)
	}
	ph := phaseOf(p.Name)
	why := ph.why
	if p.Name == "bootstrap" || t.Bootstrap {
		if i := slices.IndexFunc(boot, func(b ingest.InitTiming) bool { return b.Host == t.Host }); i >= 0 {
			ev.add(boot[i].Evidence)
			why += " " + bootstrapSplit(boot[i])
		}
		if a, ok := lastArrival(t, last); ok {
			ev.add(a.Evidence)
			b, _ := a.Phase("bootstrap")
			why += fmt.Sprintf(" Rank %d%s spent only %s in its bootstrap against %s here: it reached the bootstrap last (a late init call, or slow kernels and alloc phases before it), and the others waited for it (if it is of the same communicator: the timing lines name the init call and the size, no communicator).", a.Rank, onHosts(realHosts([]string{a.Host})), msSeconds(b), msSeconds(p.MS))
		}
	}
	sev, scale := Warn, ""
	if t.NRanks >= largeCommRanks && ph.side == rendezvousSide {
		sev = Info
		scale = fmt.Sprintf(" At %d ranks tens of seconds of rendezvous are expected (NVIDIA/nccl#1156: a whole init of 2.5 minutes above some thousands of GPUs).", t.NRanks)
	}
	what := "a communicator"
	if t.Bootstrap {
		what = "its bootstrap"
	}
	return []Finding{{
		ID: "nccl.init.slow", Severity: sev, Layer: LayerNCCL,
		Title: fmt.Sprintf("NCCL took %s to create %s%s (%s%s): %s %s of it, %s", msSeconds(t.TotalMS), what, commSize(t),
			rankOf(t), onHosts(realHosts([]string{t.Host})), p.Name, msSeconds(p.MS), ph.side),
		Evidence:  ev.sorted(),
		Mechanism: fmt.Sprintf("NCCL times each phase of communicator creation and prints it (%s). %s%s", phaseList(t), why, scale),
		Fix:       ph.fix,
	}}
}

// lastArrival returns the rank of t's communicator (same init call and
// size) that spent least time in the bootstrap, when that is under half
// of t's and a second or more less: the rank the others waited for.
func lastArrival(t ingest.InitTiming, last []ingest.InitTiming) (ingest.InitTiming, bool) {
	tb, ok := t.Phase("bootstrap")
	if !ok {
		return t, false
	}
	best, bestMS := t, tb
	for _, a := range last {
		if b, _ := a.Phase("bootstrap"); a.Func == t.Func && a.NRanks == t.NRanks && b < bestMS {
			best, bestMS = a, b
		}
	}
	return best, 2*bestMS < tb && tb-bestMS >= 1000
}

func msSeconds(ms int64) string { return fmt.Sprintf("%.2f s", float64(ms)/1000) }

func commSize(t ingest.InitTiming) string {
	if t.NRanks > 0 {
		return " of " + plural(t.NRanks, "rank", "ranks")
	}
	return ""
}

func rankOf(t ingest.InitTiming) string {
	var s []string
	if t.Func != "" {
		s = append(s, t.Func)
	}
	if t.Rank >= 0 {
		s = append(s, fmt.Sprintf("rank %d", t.Rank))
	}
	if t.Bootstrap {
		s = append(s, "Bootstrap timings")
	}
	return strings.Join(s, ", ")
}

func phaseList(t ingest.InitTiming) string {
	ps := make([]string, len(t.Phases))
	for i, p := range t.Phases {
		ps[i] = p.Name + " " + msSeconds(p.MS)
	}
	return strings.Join(ps, ", ")
}

// rendezvousSide is the side of the bootstrap's and allgathers' phases.
const rendezvousSide = "the out-of-band rendezvous over TCP"

// initPhase is what a phase of NCCL's init spends its time on: whose
// side it is (the title's), why it is long and the fix.
type initPhase struct{ side, why, fix string }

// phaseOf describes the phase of the given name.
func phaseOf(name string) initPhase {
	const rendezvousFix = "Compare the ranks' start times (the slowest rank's init timings), set NCCL_SOCKET_IFNAME to the interface every host reaches, and check TCP between the hosts on it; at large scale, NCCL 2.23's ncclCommInitRankScalable spreads the rendezvous over several roots."
	const anyFix = "Rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,BOOTSTRAP,PROFILE and compare the phases across ranks."
	switch name {
	case "kernels":
		return initPhase{"loading NCCL's GPU code: not the network",
			"The kernels phase loads NCCL's device code onto the GPU: it is long when the driver has to compile the code from PTX (the NCCL build carries no binary for the GPU's architecture, a release older than the GPU) and the CUDA JIT cache cannot keep the result (CUDA_CACHE_DISABLE, a cache under CUDA_CACHE_MAXSIZE or not writable in a container), or when the library is read from a slow file system. The GPU side, not the network.",
			"Use an NCCL build with a binary for the GPU's architecture (the release notes' supported GPUs; for a Python wheel, one built for the CUDA the driver runs), and keep the CUDA JIT cache (CUDA_CACHE_MAXSIZE above the compiled size, CUDA_CACHE_PATH on a persistent, writable path)."}
	case "bootstrap":
		return initPhase{rendezvousSide,
			"The bootstrap is NCCL's rendezvous over TCP sockets through the root rank: a rank waits there until every rank has checked in, so a long one is mostly the slowest rank reaching its init call (process start, model loading, a scheduler starting pods apart), and otherwise TCP connects that retry (an interface other hosts cannot reach: NCCL_SOCKET_IFNAME, a firewall).",
			rendezvousFix}
	case "allgathers":
		return initPhase{rendezvousSide,
			"The allgathers exchange each rank's peer and topology information over the bootstrap's TCP ring, one step per rank: they grow with the rank count and with a slow out-of-band interface, and the second (init.cc's AllGather3, after the graph search) also waits for the rank slowest through its topo and graphs phases.",
			rendezvousFix}
	case "delay":
		return initPhase{"NCCL's own stagger of the check-ins: not the network",
			"The delay is a sleep NCCL itself takes before a rank checks in with the bootstrap root, when more than NCCL_UID_STAGGER_THRESHOLD ranks (256) share one root: the rank's place among them divided by NCCL_UID_STAGGER_RATE (7000 per second), so that the root is not flooded.",
			"Spread the rendezvous over several roots (ncclCommInitRankScalable, 2.23 on) or raise NCCL_UID_STAGGER_RATE if the root keeps up."}
	case "recv", "ring", "send", "create":
		return initPhase{rendezvousSide,
			"The bootstrap is NCCL's rendezvous over TCP sockets (the interface of NCCL_SOCKET_IFNAME) through the root rank of the unique id.",
			rendezvousFix}
	case "connections":
		return initPhase{"connecting the transports (queue pairs over the network)",
			"The connections phase sets up the transports between peers: for NET/IB each channel's queue pairs are created, moved to RTR and RTS with the peer's GID and QPN exchanged over a socket, and their buffers registered; it is long when ibv_modify_qp waits and retries (a GID or path the peer cannot reach, NCCL 2.2x logs the retries at INFO), when many channels and peers connect at init (NCCL_RUNTIME_CONNECT=0), or when the proxy threads get no CPU.",
			"Rerun with NCCL_DEBUG_SUBSYS=INIT,NET and look for ibv_modify_qp retries and the GID each queue pair uses; NCCL_RUNTIME_CONNECT=1 (2.22 on) connects only what a collective needs."}
	case "topo":
		return initPhase{"the host's topology detection: not the network",
			"The topo phase detects the node's topology: NVML and the sysfs PCI path of every GPU and NIC; it is long in VMs and on hosts with many devices or virtual functions, whose PCI reads are slow.",
			"Give NCCL the topology (NCCL_TOPO_FILE from a dump of a healthy run) or hide the devices the job does not use (NCCL_IB_HCA, CUDA_VISIBLE_DEVICES)."}
	case "graphs":
		return initPhase{"the graph search: not the network",
			"The graphs phase searches the rings and trees of the node's topology; it is long on large or irregular topologies.", anyFix}
	case "alloc":
		return initPhase{"GPU memory allocation: not the network",
			"The alloc phase allocates the communicator's GPU buffers.", anyFix}
	}
	return initPhase{"outside the named phases", "The time is outside the phases NCCL names.", anyFix}
}

// bootstrapSplit tells, from a "Bootstrap timings" line, whether the
// rendezvous waited on other ranks (recv) or on the wire (ring, send).
func bootstrapSplit(b ingest.InitTiming) string {
	s := fmt.Sprintf("This host's bootstrap took %s (%s).", msSeconds(b.TotalMS), phaseList(b))
	if p := b.Slowest(); p.Name == "recv" {
		s += " Its recv is the wait for the root's answer, which comes once every rank has checked in: the time of the slowest rank's arrival, not of the network."
	}
	return s
}
