package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
)

// Rules over the report of NCCL's RAS client (`ncclras`): its Errors
// section names processes the job lost and ranks that reported errors;
// its Warnings section names communicators whose ranks disagree (on the
// operations launched, or on their status) and the processes it could not
// reach. A report with neither, and every communicator OK, is said so.

func rasRules() []Rule {
	return []Rule{{IDs: []string{"nccl.ras.report"}, Check: checkRAS}}
}

// rasKindText says what each entry kind means and how to act on it.
var rasKindText = map[string]struct{ mech, fix string }{
	"INCOMPLETE": {
		"NCCL's RAS threads of every process gather what each process knows of its communicators; data missing from a process (or from ranks of a communicator) means the process exited, hangs outside NCCL with its RAS thread starved, or its node is unreachable. Its peers then wait in their next collective until their timeout.",
		"Look at the processes named on their nodes: whether they still run (ps; dmesg for OOM kills and GPU Xid errors) and their NCCL_DEBUG=INFO log for the first NCCL WARN; restart from a checkpoint without the node if it is at fault."},
	"DEAD": {
		"The RAS network has lost contact with these processes for long enough to consider them dead (NCCL_RAS_TIMEOUT_FACTOR scales the 60 s default): their node crashed, rebooted or lost its bootstrap network, or the process was killed. Every communicator that holds them is stuck.",
		"Check the nodes named (reachable? rebooted? kernel log), drain a failing node and restart the job from a checkpoint."},
	"ERROR": {
		"Ranks of this communicator reported an NCCL error (at initialisation, or asynchronously during a collective: a network completion error, a peer that exited). One rank's error aborts the collective for all, so the first error logged is the cause and the rest follow from it.",
		"Read the NCCL WARN lines (NCCL_DEBUG=INFO) of the ranks named, in time order: the first completion error or remote failure is the cause."},
	"MISMATCH": {
		"The ranks of this communicator disagree: some have launched more operations of a collective than others, or their status differs. A snapshot taken while operations are in flight can show a passing difference; one that persists is a hang, and the ranks behind are the ones the others wait for (a process stuck in application code, its data loader, or a hung GPU).",
		"Query ncclras again after a few seconds: counts that do not move mean a hang. Then look at what the ranks behind are doing (py-spy dump, the application's log, nvidia-smi) rather than at the network; `ncclras -v` raises the report's verbosity."},
	"TIMEOUT": {
		"The RAS client's queries to some processes timed out while it gathered communicator data, so the report may lack them: those processes or their nodes are slow to answer or unreachable.",
		"Check the nodes that did not answer; rerun ncclras with a longer timeout (-t) to tell slow from gone."},
}

// checkRAS reports every Errors and Warnings entry of each RAS report, and
// a report without any as healthy.
func checkRAS(inc *Incident) []Finding {
	var fs []Finding
	for _, r := range All[*ingest.RASReport](inc) {
		for _, e := range r.Entries {
			sev := Error
			if e.Section == "Warnings" {
				sev = Warn
			}
			subject := "the job"
			if e.Comm != "" {
				subject = "communicator " + e.Comm
			}
			what := ""
			if len(e.Details) > 0 {
				what = ": " + e.Details[0]
			}
			// The counts under the first line ("30 ranks have launched up
			// to operation 640"); the ranks they name are in the evidence.
			var counts []string
			for _, d := range e.Details[min(1, len(e.Details)):] {
				if !strings.HasPrefix(d, "Rank ") && !strings.HasPrefix(d, "Process ") && len(counts) < 3 {
					counts = append(counts, d)
				}
			}
			if len(counts) > 0 {
				what += " (" + strings.Join(counts, ", ") + ")"
			} else if named := len(e.Details) - 1; named > 0 {
				what += ": " + e.Details[1]
				if named > 1 {
					what += fmt.Sprintf(" and %d more", named-1)
				}
			}
			txt := rasKindText[e.Kind]
			mech := txt.mech
			if e.Kind == "MISMATCH" {
				mech += rasNamedAhead(e.Details)
			}
			if r.Version != "" {
				mech += " (NCCL " + r.Version + ".)"
			}
			ev := append([]Evidence{e.Evidence}, e.DetailEv...)
			fs = append(fs, Finding{
				ID: "nccl.ras.report", Severity: sev, Layer: LayerNCCL,
				Title:     fmt.Sprintf("NCCL RAS %s for %s%s", e.Kind, subject, what),
				Subject:   r.Source() + " " + subject + " " + e.Kind,
				Evidence:  ev,
				Mechanism: mech,
				Fix:       txt.fix,
			})
		}
		if len(r.Entries) > 0 {
			continue
		}
		var bad []string
		var ev, badEv []Evidence
		ranks, sev, kind := 0, Warn, ""
		for _, g := range r.Groups {
			ev = append(ev, g.Evidence)
			ranks = max(ranks, g.RanksPerComm)
			if g.Errors != "OK" {
				bad = append(bad, fmt.Sprintf("group %d %s", g.Group, g.Errors))
				badEv = append(badEv, g.Evidence)
				// "INCOMPLETE,ERROR,MISMATCH": the first is the gravest.
				k, _, _ := strings.Cut(g.Errors, ",")
				if _, known := rasKindText[k]; !known {
					k = "ERROR"
				}
				if k != "MISMATCH" {
					sev = Error
				}
				if kind == "" || k != "MISMATCH" && kind == "MISMATCH" {
					kind = k
				}
			}
		}
		if len(r.Groups) == 0 {
			continue
		}
		if len(bad) > 0 {
			// The table names errors its sections do not list: the
			// report was cut after it (a paste of the table alone).
			fs = append(fs, Finding{
				ID: "nccl.ras.report", Severity: sev, Layer: LayerNCCL,
				Title:     fmt.Sprintf("NCCL RAS communicator table: %s; the report's Errors and Warnings entries, which name the ranks, are not in the input", list(bad, 4)),
				Subject:   r.Source() + " table",
				Evidence:  badEv[:min(len(badEv), 4)],
				Mechanism: rasKindText[kind].mech,
				Fix:       "Give the whole ncclras report: its Errors and Warnings sections name the processes and ranks. " + rasKindText[kind].fix,
			})
			continue
		}
		fs = append(fs, Finding{
			ID: "nccl.ras.report", Severity: Info, Layer: LayerNCCL,
			Title:     fmt.Sprintf("NCCL RAS: every communicator OK (%s, the largest of %d ranks), no process missing", plural(len(r.Groups), "group", "groups"), ranks),
			Subject:   r.Source(),
			Evidence:  ev[:min(len(ev), 4)],
			Mechanism: "RAS saw every process and every rank of every communicator agree on the operations launched, with no error. A job that hangs while RAS is healthy waits outside NCCL's view: in the application between collectives, or on a collective every rank has launched and none finishes (the network, a GPU), which the NCCL logs and the watchdog's timeout then show.",
		})
	}
	return fs
}

// rasNamedAhead says, for a MISMATCH whose ranks launched different
// numbers of operations, which side the ranks RAS names are on. RAS names
// the ranks of the smaller groups; when those are the ranks that launched
// the most, they are ahead and wait, and the ranks behind, the ones to look
// at, go unnamed (NVIDIA/nccl#1911).
func rasNamedAhead(details []string) string {
	type group struct{ ranks, op int }
	var gs []group
	named := 0
	for _, d := range details {
		if strings.HasPrefix(d, "Rank ") {
			named++
			continue
		}
		var g group
		var what string
		if n, _ := fmt.Sscanf(d, "%d %s", &g.ranks, &what); n != 2 {
			continue
		}
		_, after, ok := strings.Cut(d, "launched up to operation ")
		if !ok {
			continue
		}
		if _, err := fmt.Sscanf(after, "%d", &g.op); err != nil {
			continue
		}
		gs = append(gs, g)
	}
	if len(gs) < 2 || named == 0 {
		return ""
	}
	top, behind := gs[0], 0
	for _, g := range gs {
		if g.op > top.op {
			top = g
		}
	}
	for _, g := range gs {
		if g.op < top.op {
			behind += g.ranks
		}
	}
	if named != top.ranks || behind <= named {
		return ""
	}
	return fmt.Sprintf(" The %s RAS names here are the ones ahead: they launched operation %d and wait in it; the %d ranks that have not launched it yet, which RAS does not name, are the ones behind. If those stay inside the previous operation, it has not completed for them (a peer or the network on that collective); if they are outside NCCL, the application delayed them.", plural(named, "rank", "ranks"), top.op, behind)
}
