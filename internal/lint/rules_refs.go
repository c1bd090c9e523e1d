package lint

import (
	"fmt"

	"rocelab/internal/doctor"
	"rocelab/internal/sonic"
)

// refRules reports SONiC rows that name a map, scheduler, WRED or buffer
// profile the config does not define: orchagent and bufferorch retry such
// a row until the name appears and apply none of it meanwhile (a
// PORT_QOS_MAP row's pfc_enable included), so the port runs without the
// maps, PFC, ECN or buffers the row sets. One finding per table and name.
func refRules(m *Model) []doctor.Finding {
	var fs []doctor.Finding
	for _, db := range m.Sonic {
		if db.Vendor != "" {
			continue
		}
		type group struct {
			ref  sonic.MissingRef
			keys []string
			ev   []Evidence
		}
		var order []string
		groups := map[string]*group{}
		for _, r := range db.MissingRefs() {
			id := r.Table + "\x00" + r.Field + "\x00" + r.At.Text
			g, ok := groups[id]
			if !ok {
				g = &group{ref: r}
				groups[id] = g
				order = append(order, id)
			}
			g.keys = append(g.keys, shortKey(r.Key))
			g.ev = append(g.ev, sonicEv(db, r.At))
		}
		for _, id := range order {
			g := groups[id]
			r := g.ref
			what := "PFC, the QoS maps and the port scheduler it sets are not applied: with pfc_enable unapplied the port pauses no priority"
			switch r.Table {
			case "QUEUE":
				what = "the queue's scheduler and WRED profile are not applied (the scheduler is resolved first): it runs the default scheduler and marks no ECN"
				if r.Field == "wred_profile" {
					what = "the queue's WRED profile is not applied: it marks no ECN"
				}
			case "BUFFER_PG", "BUFFER_QUEUE":
				what = "the priority group or queue keeps no buffer profile: a lossless PG has no headroom"
			case "BUFFER_PROFILE":
				what = "the profile is not created, nor any PG or queue that uses it"
			}
			fs = append(fs, doctor.Finding{
				ID: "config.reference.missing", Severity: doctor.Error, Layer: doctor.LayerFabric,
				Title:    fmt.Sprintf("%s: %s|%s %s names %s %q, which the config does not define", db.File, r.Table, list(g.keys, 3), r.Field, r.To, r.At.Text),
				Subject:  db.File + " " + r.Table,
				Evidence: evs(g.ev...),
				Mechanism: fmt.Sprintf("SONiC applies a %s row only once every name it holds resolves: orchagent (bufferorch for buffers) retries the row until %s|%s exists and applies none of its fields meanwhile, so %s.",
					r.Table, r.To, r.At.Text, what),
				Fix: fmt.Sprintf("Name one of the %s rows the config defines (%s), or add %s|%s.", r.To, list(db.Tables[r.To].Keys(), 4), r.To, r.At.Text),
			})
		}
	}
	return fs
}
