package doctor

import (
	"slices"

	"rocelab/internal/ingest"
	"rocelab/internal/swcfg"
)

// queueLossless is the lossless queues that speak of q and where they
// come from, as switchLossless gives them (lossless, from), and false when
// none does: Dell OS10's and Huawei CloudEngine's queues never
// (os10NoLossless, vrpNoLossless); Arista EOS's only
// by the priorities its own switch says run PFC (eosLossless), never a
// default of SONiC's or Cumulus's or another switch's watchdog
// (eosNoLossless).
func queueLossless(inc *Incident, s *ingest.SwitchCounters, q ingest.QueueCount, lossless []int, from string) ([]int, string, bool) {
	switch {
	case q.OS10, q.Platform == ingest.HuaweiVRP:
		return nil, "", false
	case q.EOS:
		return eosLossless(All[*ingest.SwitchCounters](inc), s, q.Host)
	}
	return lossless, from, true
}

// losslessOf gives queueLossless of a queue, worked out once per switch
// input and kind of queue (SONiC's, OS10's, each EOS switch's by its
// prompt).
func losslessOf(inc *Incident) func(s *ingest.SwitchCounters, q ingest.QueueCount) ([]int, string, bool) {
	lossless, from := switchLossless(inc)
	type key struct {
		s         *ingest.SwitchCounters
		os10, eos bool
		platform  ingest.Platform
		host      string
	}
	type val struct {
		qs    []int
		from  string
		known bool
	}
	memo := map[key]val{}
	return func(s *ingest.SwitchCounters, q ingest.QueueCount) ([]int, string, bool) {
		k := key{s, q.OS10, q.EOS, q.Platform, q.Host}
		v, ok := memo[k]
		if !ok {
			v.qs, v.from, v.known = queueLossless(inc, s, q, lossless, from)
			memo[k] = v
		}
		return v.qs, v.from, v.known
	}
}

// eosLossless is the traffic classes an Arista EOS switch keeps lossless:
// the priorities its `show priority-flow-control` enables, from a table
// the same switch's prompt heads (host), or, where neither table nor
// queue names a switch, the table in the queue's own input s, else the
// only table given (named). A PFC priority is a CoS: EOS's default CoS →
// traffic class map puts CoS 0 in class 1 and CoS 1 in class 0, the rest
// in their own (eos.DefaultCoSTC).
func eosLossless(sws []*ingest.SwitchCounters, s *ingest.SwitchCounters, host string) ([]int, string, bool) {
	var files []string // of the tables no prompt names
	named := false
	var prios []int
	for _, o := range sws {
		for _, p := range o.EOSPFC {
			if p.Host == "" && !slices.Contains(files, p.Evidence.File) {
				files = append(files, p.Evidence.File)
			}
			named = named || p.Host != ""
			if host != "" && p.Host != "" && ingest.SameHostName(p.Host, host) || host == "" && p.Host == "" && o == s {
				prios = append(prios, p.Prios...)
			}
		}
	}
	from := "the priorities the switch's `show priority-flow-control` enables PFC on"
	if len(prios) == 0 && host == "" && !named && len(files) == 1 {
		for _, o := range sws {
			for _, p := range o.EOSPFC {
				prios = append(prios, p.Prios...)
			}
		}
		from = "the priorities the only `show priority-flow-control` given (" + files[0] + ", where no prompt names a switch) enables PFC on"
	}
	if len(prios) == 0 {
		return nil, "", false
	}
	prios = distinctInts(prios)
	slices.Sort(prios)
	tcs := make([]int, len(prios))
	for i, p := range prios {
		tcs[i] = swcfg.CoSTC(p) // EOS ships IEEE 802.1Q's map (eos.DefaultCoSTC)
	}
	slices.Sort(tcs)
	from += " (priorities " + prioList(prios) + ")"
	if slices.Contains(prios, 0) || slices.Contains(prios, 1) {
		from += ", which EOS's default CoS → traffic class map puts in traffic classes " + prioList(tcs) + " (CoS 0 → class 1, 1 → 0, others their own)"
	}
	return tcs, from, true
}

// queueSwName names the switch port a queue row is of: the switch its
// own prompt names (OS10, EOS) when a paste holds another's tables.
func queueSwName(s *ingest.SwitchCounters, q ingest.QueueCount, port string) string {
	if q.Host != "" && !ingest.SameHostName(q.Host, s.Switch) && (q.OS10 || q.EOS) {
		return q.Host + " " + port
	}
	return swName(s, port)
}

// eosNoLossless says why no queue of Arista EOS's is taken as lossless
// when the input does not say which priorities run PFC.
const eosNoLossless = "no input says which queue is lossless, and Arista EOS keeps none lossless unless the port runs `priority-flow-control on` with `priority-flow-control priority N no-drop` (`show priority-flow-control` names them)"
