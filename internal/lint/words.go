package lint

import (
	"fmt"
	"slices"

	"rocelab/internal/sonic"
)

// A Cumulus switch is judged by the rules for SONiC's CONFIG_DB rows that
// sonic.FromNVUE makes of it, but its engineer reads NVUE: findings on it
// name NVUE's paths and settings (qos congestion-control default-global
// traffic-class 3, min-threshold, qos pfc default-global switch-priority)
// and fix it with `nv set` commands; SONiC's tables are named only for
// SONiC's own configs.

// isNOS reports whether a switch config was made from another network
// OS's configuration (EOS, NX-OS, OS10, FTOS, AOS-CX, Onyx, Junos, Cumulus's traffic.conf) or SONiC's CLI: its values stand
// at that text's lines, and a default no line states has no evidence.
func isNOS(db *sonic.ConfigDB) bool {
	switch {
	case db == nil:
		return false
	case db.Vendor == sonic.VendorEOS, db.Vendor == sonic.VendorNXOS, db.Vendor == sonic.VendorJunos, db.Vendor == sonic.VendorKLISH, db.Vendor == sonic.VendorOS10, db.Vendor == sonic.VendorTrafficConf, db.Vendor == sonic.VendorOnyx, db.Vendor == sonic.VendorAOSCX, db.Vendor == sonic.VendorFTOS:
		return true
	}
	return false
}

// isNVUE reports whether a switch config was made from NVUE.
func isNVUE(db *sonic.ConfigDB) bool { return db != nil && db.Vendor == sonic.VendorCumulus }

// classWord is what the config calls the class a DSCP is mapped to:
// NVUE maps a DSCP to a switch priority, SONiC to a traffic class.
func classWord(db *sonic.ConfigDB) string {
	if isNVUE(db) {
		return "switch priority"
	}
	return "class"
}

// ecnName names a WRED/ECN profile: NVUE's path for one made from NVUE
// (its row is named by it), else the WRED_PROFILE row.
func ecnName(db *sonic.ConfigDB, name string) string {
	if isNVUE(db) {
		return "qos " + name
	}
	if isNOS(db) && db.Vendor != sonic.VendorKLISH {
		return name // "interface Ethernet1 tx-queue 3 random-detect ecn": the NOS's own
	}
	return "WRED_PROFILE " + name
}

// nvSet is the `nv set qos` command of a setting in the profile of a kind
// (mapping, pfc, congestion-control, egress-scheduler) a port uses.
func nvSet(db *sonic.ConfigDB, port, kind, rest string) string {
	return fmt.Sprintf("nv set qos %s %s %s", kind, db.NVUEProfile(port, kind), rest)
}

// queueScheduler names the NVUE egress-scheduler entry that serves a
// switch priority on a port: the scheduler its queue row carries, else the
// port's profile with the class left to fill in.
func queueScheduler(db *sonic.ConfigDB, port string, sp int) string {
	for _, q := range db.Queues() {
		if slices.Contains(q.Ports, port) && slices.Contains(q.Queues, sp) && q.Scheduler.Text != "" {
			return q.Scheduler.Text
		}
	}
	return fmt.Sprintf("egress-scheduler %s traffic-class <the class switch priority %d drains into>", db.NVUEProfile(port, "egress-scheduler"), sp)
}

// nvUnset is nvSet's `nv unset qos` command.
func nvUnset(db *sonic.ConfigDB, port, kind, rest string) string {
	return "nv un" + nvSet(db, port, kind, rest)[len("nv "):]
}
