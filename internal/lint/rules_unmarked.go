package lint

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"rocelab/internal/calc"
	"rocelab/internal/doctor"
	"rocelab/internal/scenario"
	"rocelab/internal/sonic"
	"rocelab/internal/textout"
	"rocelab/internal/unit"
)

// unmarkedQueue reports a port whose RoCE queue carries no WRED profile:
// its QUEUE row names none, or it has no row while the port has rows for
// another of its lossless queues (a port whose rows are all for lossy
// queues, or that has none, says nothing of it). Another network OS's
// configuration has QUEUE rows only where a queue's ECN or WRED is
// written, so there ECN marking another queue of the port (and not
// RoCE's) says so too. It returns the row that says so (or the QUEUE
// table) and a WRED profile another queue of the port carries ("" when
// none does).
func (m *Model) unmarkedQueue(db *sonic.ConfigDB, p portPath) (Evidence, string, bool) {
	var at sonic.Value
	own, lossless, other := false, false, ""
	for _, q := range db.Queues() {
		if !slices.Contains(q.Ports, p.pq.Port) {
			continue
		}
		if slices.Contains(q.Queues, p.path.Queue) {
			if q.WREDProfile.Text != "" {
				return Evidence{}, "", false
			}
			own, at = true, q.Scheduler
			continue
		}
		marksOther := isNOS(db) && db.Vendor != sonic.VendorKLISH && marks(db, q.WREDProfile.Text)
		lossless = lossless || anyIn(q.Queues, p.pq.PFCEnable) || marksOther
		if q.WREDProfile.Text != "" && other == "" {
			other = fmt.Sprintf("%s on queue %s", q.WREDProfile.Text, textout.Ints(q.Queues))
			if marksOther {
				// The configuration's line that marks another queue.
				at = q.WREDProfile
			}
		}
	}
	// A KLISH interface block writes every queue's wred-policy the port
	// has: no line for RoCE's queue is none. So does another switch OS's
	// configuration that writes ECN nowhere.
	if !own && !lossless && db.Vendor != sonic.VendorKLISH {
		if db.WritesNoECN() || bindsNoQueue(m, db) {
			return Evidence{}, "", true
		}
		return Evidence{}, "", false
	}
	if at.Line == 0 {
		at, _ = db.TablePos("QUEUE")
	}
	return atEv(db, at), other, true
}

// bindsNoQueue reports a switch's whole CONFIG_DB (DEVICE_METADATA and
// PORT) that no SONiC input of the run gives a QUEUE row: no queue of
// any port carries a WRED profile, RoCE's included, as on a stock SKU
// whose qos.json.j2 writes neither WRED_PROFILE nor QUEUE (Celestica
// DS2000). A fragment without QUEUE is config.not_judged's.
func bindsNoQueue(m *Model, db *sonic.ConfigDB) bool {
	if db.Vendor != "" || !wholeConfig(db) || hostOfASICs(m, db) {
		return false
	}
	return !slices.ContainsFunc(m.Sonic, func(o *sonic.ConfigDB) bool { return db.SuppliedBy(o) && len(o.Tables["QUEUE"]) > 0 })
}

// marks reports whether the WRED profile name marks ECN.
func marks(db *sonic.ConfigDB, name string) bool {
	w, ok := db.WREDProfile(name)
	return ok && marksGreen(w)
}

// marksGreen reports whether a WRED profile's ecn mode marks green
// packets, RoCE's (ecn_all, or one of the ecn_green modes).
func marksGreen(w *sonic.WRED) bool {
	mode := strings.ToLower(strings.TrimSpace(w.ECN.Text))
	return mode == "ecn_all" || strings.HasPrefix(mode, "ecn_green")
}

func unmarkedQueueFinding(db *sonic.ConfigDB, g *pathGroup) doctor.Finding {
	p := g.first.path
	title := fmt.Sprintf("%s %s: RoCE's queue %d has no WRED profile, so ECN never marks RoCE", db.File, portList(g.ports), p.Queue)
	mech := "SONiC marks ECN on a queue only through the WRED profile its QUEUE row names"
	if isNOS(db) && db.Vendor != sonic.VendorKLISH {
		title = fmt.Sprintf("%s %s: RoCE's class %d leaves by queue %d, where no ECN is configured, so ECN never marks RoCE", db.File, portList(g.ports), p.TC, p.Queue)
		mech = "A switch marks ECN only on the queues whose ECN thresholds are configured"
	}
	if g.other != "" {
		title += fmt.Sprintf(" (the port has %s)", g.other)
	}
	if len(db.Tables["QUEUE"]) == 0 && !isNOS(db) {
		title += " (the config has no QUEUE row: no queue of any port carries one)"
	}
	fix := unmarkedFix(db, g)
	if db.WritesNoECN() {
		title = fmt.Sprintf("%s %s: RoCE's class %d is lossless (PFC) but the configuration sets ECN on no queue, so ECN never marks RoCE", db.File, portList(g.ports), p.TC)
		mech = "This configuration writes no ECN or WRED command, so every queue runs the switch's default, which marks nothing"
		fix += " If the fabric is meant to run on PFC alone (as Meta's 400G RoCE clusters do), say so in the cluster description (host.cc: none)."
	}
	return doctor.Finding{
		ID: "ecn.disabled", Severity: doctor.Warn, Layer: doctor.LayerFabric,
		Title:     title,
		Subject:   db.File + " " + portList(g.ports),
		Evidence:  evs(atEv(db, g.first.pq.PFCEnableAt), atEv(db, p.QueueAt), g.extra),
		Mechanism: mech + ": without one no CNP is ever sent for RoCE, DCQCN never slows a sender, congestion is left to PFC alone, and pauses spread it upstream.",
		Fix:       fix,
	}
}

// unmarkedFix is the fix that gives RoCE's queue an ECN profile, in the
// configuration's own commands.
func unmarkedFix(db *sonic.ConfigDB, g *pathGroup) string {
	p := g.first.path
	remap := func(how string) string {
		if p.Queue == p.TC {
			return ""
		}
		return fmt.Sprintf(", or send class %d back to the queue that marks (%s)", p.TC, fmt.Sprintf(how, p.TC))
	}
	switch db.Vendor {
	case sonic.VendorEOS:
		return fmt.Sprintf("`random-detect ecn minimum-threshold … maximum-threshold … max-mark-probability …` under `tx-queue %d` (`uc-tx-queue %d`) of these ports' qos profile or interfaces%s.", p.Queue, p.Queue, remap("`qos map traffic-class %d to tx-queue …`"))
	case sonic.VendorNXOS:
		return fmt.Sprintf("`random-detect minimum-threshold … maximum-threshold … drop-probability … ecn` in the queuing policy's class for qos-group %d (c-out-8q-q%d on an 8-queue switch).", p.TC, p.TC)
	case sonic.VendorOS10:
		return fmt.Sprintf("A `class-map type queuing` matching queue %d with `random-detect` of a `wred` profile that has `random-detect ecn`, in the queuing policy these ports apply%s.", p.Queue, remap("`qos-map traffic-class`: `queue … qos-group %d`"))
	case sonic.VendorAOSCX:
		return fmt.Sprintf("`queue %d action ecn min-threshold … kbytes max-threshold … kbytes` in the threshold profile these ports apply%s.", p.Queue, remap("`map queue … local-priority %d` in the queue profile"))
	case sonic.VendorOnyx:
		return fmt.Sprintf("`interface ethernet <ports> traffic-class %d congestion-control ecn minimum-absolute <KB> maximum-absolute <KB>`.", p.Queue)
	case sonic.VendorKLISH:
		return fmt.Sprintf("`queue %d wred-policy NAME` under these interfaces, NAME a `qos wred-policy` with `ecn green`.", p.Queue)
	case sonic.VendorFTOS:
		return fmt.Sprintf("A `wred-profile` (`threshold min <KB> max <KB> max-drop-rate <P>`), a `qos-policy-output` with `wred green` naming it and `wred ecn`, and `service-queue <Q> qos-policy` in the `policy-map-output` these ports apply (`service-policy output`), Q the queue priority %d is sent to.", p.TC)
	case sonic.VendorJunos, sonic.VendorTrafficConf:
		return fmt.Sprintf("ECN thresholds on RoCE's queue %d (the one its class %d drains into).", p.Queue, p.TC)
	}
	name, defined := markingProfile(db)
	bind := fmt.Sprintf("\"wred_profile\": \"%s\" on QUEUE <port>|%d of these ports.", name, p.Queue)
	if defined {
		return bind
	}
	// Nothing to bind yet: a QUEUE row naming a profile the config does
	// not define is a dangling reference orchagent refuses.
	rate, how := portsRate(db, g.ports)
	bdp := calc.BDP(rate, calc.DefaultRTT)
	kmin, kmax := int64(math.Ceil(float64(bdp)/7)), int64(2*bdp)
	return fmt.Sprintf("Define WRED_PROFILE|%s {\"ecn\": \"ecn_all\", \"wred_green_enable\": \"true\", \"green_min_threshold\": \"%d\", \"green_max_threshold\": \"%d\", \"green_drop_probability\": \"5\"} (bytes: BDP/7 and 2×BDP at %s, %s, and a %v RTT; `rocelab calc ecn --speed %s` gives the bounds), then bind it: %s",
		name, kmin, kmax, rate, how, calc.DefaultRTT, rate, bind)
}

// markingProfile returns the WRED profile RoCE's queue should name: one the
// config defines that marks green packets (AZURE_LOSSLESS first, SONiC's
// stock name), with defined true; else a name for one to define
// (AZURE_LOSSLESS, or ROCE_LOSSLESS when AZURE_LOSSLESS is taken by a
// profile that does not mark).
func markingProfile(db *sonic.ConfigDB) (string, bool) {
	names := append([]string{"AZURE_LOSSLESS"}, db.Tables["WRED_PROFILE"].Keys()...)
	for _, name := range names {
		if marks(db, name) {
			return name, true
		}
	}
	if _, taken := db.WREDProfile("AZURE_LOSSLESS"); taken {
		return "ROCE_LOSSLESS", false
	}
	return "AZURE_LOSSLESS", false
}

// portsRate returns the fastest PORT speed of the ports and how it was
// chosen, or scenario.DefaultHostRate when none of them writes one.
func portsRate(db *sonic.ConfigDB, ports []string) (unit.BitRate, string) {
	var best unit.BitRate
	for _, port := range ports {
		if r, _, ok := portSpeed(db, port); ok && r > best {
			best = r
		}
	}
	if best == 0 {
		return scenario.DefaultHostRate, "assumed: these ports write no PORT speed"
	}
	return best, "the fastest PORT speed of these ports"
}
