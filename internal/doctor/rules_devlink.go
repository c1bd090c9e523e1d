package doctor

import (
	"fmt"
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

// devlinkReading is one reporter's readings in the incident: the first
// and the last, with the diagnosis printed for it.
type devlinkReading struct {
	first, last ingest.DevlinkReporter
	n           int
	diagnosis   []Evidence
}

// checkDevlinkHealth reports each health reporter that counted errors:
// an error when it is in the error state (a recovery failed or is not
// done), when fewer recoveries than errors were counted, or when the
// errors grew between two readings; a warning when every error was
// recovered. A reporter printed again on the same host (or, for inputs
// that name none, in the same input) is one, read at its first and last
// readings.
func checkDevlinkHealth(inc *Incident) []Finding {
	var keys []string
	readings := map[string]*devlinkReading{}
	var diags []ingest.DevlinkDiagnosis
	for _, a := range All[*ingest.DevlinkHealth](inc) {
		for _, r := range a.Reporters {
			if r.Host == "" {
				r.Host = a.Scope().Host.Name
			}
			key := r.Host + "\x00" + r.Device + "\x00" + r.Name
			if r.Host == "" {
				key += "\x00" + a.Source()
			}
			d := readings[key]
			if d == nil {
				d = &devlinkReading{first: r}
				readings[key] = d
				keys = append(keys, key)
			}
			d.last, d.n = r, d.n+1
		}
		diags = append(diags, a.Diagnoses...)
	}
	var fs []Finding
	for _, key := range keys {
		d := readings[key]
		for _, g := range diags {
			if g.Device == d.last.Device && g.Name == d.last.Name && (g.Host == "" || g.Host == d.last.Host) {
				d.diagnosis = g.Lines
			}
		}
		if f, ok := devlinkFinding(d); ok {
			fs = append(fs, f)
		}
	}
	return fs
}

// devlinkFinding is the finding of one reporter, false when it counted
// no error.
func devlinkFinding(d *devlinkReading) (Finding, bool) {
	r := d.last
	grew := d.n > 1 && r.Errors > d.first.Errors
	if r.Errors == 0 && r.State != "error" {
		return Finding{}, false
	}
	sev, what := Warn, fmt.Sprintf("%d %s, each recovered", r.Errors, noun(r.Errors, "error"))
	switch {
	case r.State == "error":
		sev, what = Error, fmt.Sprintf("in the error state, %d %s and %d %s", r.Errors, noun(r.Errors, "error"), r.Recovers, noun(r.Recovers, "recovery"))
	case r.Recovers < r.Errors:
		sev, what = Error, fmt.Sprintf("%d %s and only %d %s", r.Errors, noun(r.Errors, "error"), r.Recovers, noun(r.Recovers, "recovery"))
	}
	when := "since the driver loaded (one reading: read it again after the job to see whether it grows)"
	if grew {
		sev, when = Error, fmt.Sprintf("%d of them between the readings at %s:%d and %s:%d", r.Errors-d.first.Errors, d.first.Evidence.File, d.first.Evidence.Line, r.Evidence.File, r.Evidence.Line)
	} else if d.n > 1 {
		when = "none of them between the readings: older than the window"
	}
	who := r.Device
	if r.Host != "" {
		who = r.Host + " " + who
	}
	title := fmt.Sprintf("%s: devlink health reporter %s %s", who, r.Name, what)
	if r.LastDump != "" {
		title += ", last dumped " + r.LastDump
	}
	ev := []Evidence{r.Evidence}
	if grew {
		ev = []Evidence{d.first.Evidence, r.Evidence}
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
