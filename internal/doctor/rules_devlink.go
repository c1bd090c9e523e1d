package doctor

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/ingest"
)

// devlinkRules judge the driver's health reporters (`devlink health`).
func devlinkRules() []Rule {
	return []Rule{
		{IDs: []string{"devlink.health"}, Check: checkDevlinkHealth},
		{IDs: []string{"input.garbled"}, Check: checkDevlinkGarbled},
	}
}

// devlinkReading is one reporter's readings in the incident, with the
// diagnosis printed for it.
type devlinkReading struct {
	host, src string // src only when no host is named
	obs       []devlinkObs
	diagnosis []Evidence
}

// devlinkObs is one reading of a reporter and the input it is in.
type devlinkObs struct {
	r     ingest.DevlinkReporter
	input int
}

// checkDevlinkHealth reports each health reporter that counted errors:
// an error when it is in the error state (a recovery failed or is not
// done), when fewer recoveries than errors were counted, or when the
// errors grew between two readings; a warning when every error was
// recovered. A reporter printed again on the same host (or, for inputs
// that name none, in the same input) is one, judged by its latest
// reading. Its readings are taken in the order of their time stamps
// when every one has a stamp; otherwise only the readings of one input
// are ordered, as they come in it. A count that grew between two
// ordered readings grew in the window; one that fell was reset between
// them. A diagnosis goes with the reporter of its handle and name on
// the same host, or, when neither names a host, in the same input.
func checkDevlinkHealth(inc *Incident) []Finding {
	var keys []string
	readings := map[string]*devlinkReading{}
	type diag struct {
		g         ingest.DevlinkDiagnosis
		host, src string
	}
	var diags []diag
	for i, a := range All[*ingest.DevlinkHealth](inc) {
		for _, r := range a.Reporters {
			if r.Host == "" {
				r.Host = a.Scope().Host.Name
			}
			key := r.Host + "\x00" + r.Device + "\x00" + r.Name
			src := ""
			if r.Host == "" {
				src = a.Source()
				key += "\x00" + src
			}
			d := readings[key]
			if d == nil {
				d = &devlinkReading{host: r.Host, src: src}
				readings[key] = d
				keys = append(keys, key)
			}
			d.obs = append(d.obs, devlinkObs{r: r, input: i})
		}
		for _, g := range a.Diagnoses {
			host := cmp.Or(g.Host, a.Scope().Host.Name)
			diags = append(diags, diag{g: g, host: host, src: a.Source()})
		}
	}
	var fs []Finding
	for _, key := range keys {
		d := readings[key]
		r := d.obs[0].r
		for _, g := range diags {
			if g.g.Device == r.Device && g.g.Name == r.Name && g.host == d.host && (g.host != "" || g.src == d.src) {
				d.diagnosis = g.g.Lines
			}
		}
		if f, ok := devlinkFinding(d); ok {
			fs = append(fs, f)
		}
	}
	return fs
}

// devlinkChanges are what ordered readings of a reporter show.
type devlinkChanges struct {
	last ingest.DevlinkReporter // the latest reading
	// grew are the runs of readings over which the error count rose
	// with no fall between, as first and last reading; fell the pairs
	// of consecutive readings whose count fell.
	grew, fell [][2]ingest.DevlinkReporter
	// differ is whether any two readings' counts differ.
	differ bool
}

// devlinkOrder orders d's readings: by time stamp when every one has
// one, else each input's in input order; and finds their changes.
func devlinkOrder(d *devlinkReading) devlinkChanges {
	obs := d.obs
	stamped := !slices.ContainsFunc(obs, func(o devlinkObs) bool { return o.r.Stamp.IsZero() })
	var seqs [][]devlinkObs
	if stamped {
		obs = slices.Clone(obs)
		slices.SortStableFunc(obs, func(a, b devlinkObs) int { return cmp.Compare(a.r.Stamp.Unix, b.r.Stamp.Unix) })
		seqs = [][]devlinkObs{obs}
	} else {
		for i, o := range obs {
			if i == 0 || o.input != obs[i-1].input {
				seqs = append(seqs, nil)
			}
			seqs[len(seqs)-1] = append(seqs[len(seqs)-1], o)
		}
	}
	c := devlinkChanges{last: obs[len(obs)-1].r}
	for _, o := range obs {
		c.differ = c.differ || o.r.Errors != obs[0].r.Errors
	}
	for _, seq := range seqs {
		start := seq[0].r
		for i := 1; i <= len(seq); i++ {
			if i < len(seq) && seq[i].r.Errors >= seq[i-1].r.Errors {
				continue
			}
			if end := seq[i-1].r; end.Errors > start.Errors {
				c.grew = append(c.grew, [2]ingest.DevlinkReporter{start, end})
			}
			if i < len(seq) {
				c.fell = append(c.fell, [2]ingest.DevlinkReporter{seq[i-1].r, seq[i].r})
				start = seq[i].r
			}
		}
	}
	return c
}

// devlinkAt is where a reading is, "file:line".
func devlinkAt(r ingest.DevlinkReporter) string {
	return fmt.Sprintf("%s:%d", r.Evidence.File, r.Evidence.Line)
}

// devlinkFinding is the finding of one reporter, false when it counted
// no error.
func devlinkFinding(d *devlinkReading) (Finding, bool) {
	c := devlinkOrder(d)
	r := c.last
	if r.Errors == 0 && r.State != "error" {
		return Finding{}, false
	}
	sev, what := Warn, fmt.Sprintf("%d %s, each recovered", r.Errors, noun(r.Errors, "error"))
	switch {
	case r.State == "error":
		sev, what = Error, fmt.Sprintf("in the error state, %d %s and %d %s", r.Errors, noun(r.Errors, "error"), r.Recovers, noun(r.Recovers, "recovery"))
	case r.Recovers < r.Errors && r.AutoRecover == "":
		// devlink prints auto_recover only for a reporter with a recover
		// step (mlx5's fw has none, its recover count stays 0).
		what = fmt.Sprintf("%d %s (a reporter without a recover step)", r.Errors, noun(r.Errors, "error"))
	case r.Recovers < r.Errors:
		sev, what = Error, fmt.Sprintf("%d %s and only %d %s", r.Errors, noun(r.Errors, "error"), r.Recovers, noun(r.Recovers, "recovery"))
	}
	var ev []Evidence
	cite := func(rs ...ingest.DevlinkReporter) {
		for _, x := range rs {
			if !slices.ContainsFunc(ev, func(e Evidence) bool { return e.File == x.Evidence.File && e.Line == x.Evidence.Line }) {
				ev = append(ev, x.Evidence)
			}
		}
	}
	var grew, fell []string
	for _, g := range c.grew {
		grew = append(grew, fmt.Sprintf("%d between the readings at %s and %s", g[1].Errors-g[0].Errors, devlinkAt(g[0]), devlinkAt(g[1])))
		cite(g[0], g[1])
	}
	for _, f := range c.fell {
		fell = append(fell, fmt.Sprintf("the count fell from %d to %d between the readings at %s and %s, a reset (a driver reload, firmware reset or reboot zeroes it)", f[0].Errors, f[1].Errors, devlinkAt(f[0]), devlinkAt(f[1])))
		cite(f[0], f[1])
	}
	when := "since the driver loaded (one reading: read it again after the job to see whether it grows)"
	switch {
	case len(grew) == 1 && len(fell) == 0 && c.grew[0][1].Evidence == r.Evidence:
		sev, when = Error, grew[0]
		when = strings.Replace(when, " between", " of them between", 1)
	case len(grew) > 0:
		sev, when = Error, "errors growing between readings: "+strings.Join(append(grew, fell...), "; ")
	case len(fell) > 0:
		when = "since a reset: " + strings.Join(fell, "; ")
	case c.differ:
		lo := slices.MinFunc(d.obs, func(a, b devlinkObs) int { return cmp.Compare(a.r.Errors, b.r.Errors) }).r
		hi := slices.MaxFunc(d.obs, func(a, b devlinkObs) int { return cmp.Compare(a.r.Errors, b.r.Errors) }).r
		when = fmt.Sprintf("in readings whose order is not known (no time stamps, in different inputs): %d at %s and %d at %s, so whether the errors grew between them cannot be told", lo.Errors, devlinkAt(lo), hi.Errors, devlinkAt(hi))
		cite(lo, hi)
	case len(d.obs) > 1:
		when = "none of them between the readings: older than the window"
	}
	cite(r)
	who := r.Device
	if r.Host != "" {
		who = r.Host + " " + who
	}
	title := fmt.Sprintf("%s: devlink health reporter %s %s", who, r.Name, what)
	if r.LastDump != "" {
		title += ", last dumped " + r.LastDump
	}
	ev = append(ev, d.diagnosis...)
	mech := devlinkMechanism(r.Name) + " devlink counts each error the driver reported to the reporter (error) and each recovery that succeeded (recover); the state stays error while a recovery has not. Counted " + when + "."
	if len(d.diagnosis) > 0 {
		mech += " The reporter's diagnosis is quoted in the evidence."
	}
	if r.AutoRecover == "false" {
		mech += " auto_recover is false: the driver does not recover the reporter by itself."
	}
	dev := r.Device
	fix := fmt.Sprintf("Read the reporter's own account before a reload clears it: `devlink health diagnose %s reporter %s` and `devlink health dump show %s reporter %s` (save it for the vendor), and dmesg around the last dump's time. ", dev, r.Name, dev, r.Name) + devlinkFix(r.Name)
	return Finding{
		ID: "devlink.health", Severity: sev, Layer: LayerRDMA,
		Title: title, Evidence: ev, Mechanism: mech, Fix: fix,
		Subject: who + " " + r.Name,
	}, true
}

// noun is word or its plural for n of them.
func noun(n uint64, word string) string {
	if n == 1 {
		return word
	}
	if strings.HasSuffix(word, "y") {
		return strings.TrimSuffix(word, "y") + "ies"
	}
	return word + "s"
}

// devlinkMechanism says what a reporter's errors are, by the names
// drivers give their reporters (mlx5, mlxsw, bnxt_en, ice, qed).
func devlinkMechanism(name string) string {
	switch {
	case name == "fw_fatal" || name == "fw_reset":
		return "The NIC's firmware hit a fatal error (mlx5: its health poller saw an internal error syndrome or missed the firmware's heartbeat) and the driver recovered the device by resetting the firmware and reloading: every queue pair on it went to the error state, so RDMA connections over it broke (NCCL sees completion errors, status 5 flushes or 12 retries exceeded, and aborts the job)."
	case name == "fw":
		return "The NIC's firmware reported an error to the driver (mlx5: a syndrome its firmware tracer caught; ice: a global event such as recovery mode; bnxt_en: a firmware fault or reset), short of a fatal one."
	case name == "tx":
		return "A transmit queue of the netdev hit an error completion or stopped sending (a TX timeout) and the driver recovered it by resetting the queue; its traffic stalled meanwhile. A TX timeout on a lossless port often means the port was held by PFC pause for seconds (a pause storm from the switch or a stuck receiver), or PCIe or firmware trouble, which stall RDMA queue pairs too."
	case name == "rx":
		return "A receive queue of the netdev hit an error or stopped completing (an RX timeout: lost interrupts) and the driver recovered it; packets for it were dropped meanwhile."
	case name == "port":
		return "The NIC's firmware reported a fault of the port (ice: a module missing, unsupported or failing, a link fault)."
	}
	return "The driver reported errors to its " + name + " health reporter: the device or one of its queues hit a condition the driver treats as a fault."
}

// devlinkFix is the reporter's remedy after reading its account.
func devlinkFix(name string) string {
	switch name {
	case "fw_fatal", "fw_reset", "fw":
		return "Check the firmware against the vendor's release notes and update it (mlxfwmanager --query; mlxfwreset -d <pci> reset, or a reboot, to load it); if faults recur on one card after that, replace it. Rerun the job: its queue pairs did not survive the reset."
	case "tx":
		return "Look for a pause storm (ethtool -S: tx_pause_storm_*, rx_prioN_pause_duration; the switch's PFC watchdog) and for PCIe errors (lspci -vvv: LnkSta, AER), update the firmware, and reseat or replace the cable if the port also counts FCS errors."
	case "rx":
		return "Check the IRQ affinity and the host's load on the NIC's NUMA node, PCIe errors (lspci -vvv, AER), and the firmware version."
	case "port":
		return "Follow the diagnosis' Possible Solution: seat a supported module, then check the link (ethtool -m <if>, ethtool <if>)."
	}
	return "Follow the diagnosis, update driver and firmware, and replace the card if the errors recur."
}

// checkDevlinkGarbled reports devlink state lines no rule could judge.
func checkDevlinkGarbled(inc *Incident) []Finding {
	return garbledOf(inc, "devlink health output", func(a *ingest.DevlinkHealth) []ingest.Garble { return a.Garbled },
		"These lines are a health reporter's state line (`state healthy error N recover M ...`) whose error or recover count is not a number: the paste was edited or cut, so the reporter was judged by no rule.",
		"Paste the unedited output of `devlink health show` (and `devlink health diagnose <dev> reporter <name>` for a reporter in error).")
}
