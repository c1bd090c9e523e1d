package sonic

import (
	"strings"
)

// ParseEOSPriorityFlowControl reads Arista EOS's `show
// priority-flow-control`, whose table gives each port's PFC status (E
// enabled, D disabled, then the Active and Watchdog flags) and priorities:
//
//	E: PFC Enabled, D: PFC Disabled, A: PFC Active, W: PFC Watchdog Enabled
//	Port       Status  Priorities  Action      Timeout  Recovery ...
//	---------------------------------------------------------------
//	Et1        D - -               -           -        - / - ...
//
// into PORT_QOS_MAP rows with pfc_enable, as ParseShowPFCPriority reads
// SONiC's table: a disabled port has an empty pfc_enable; an enabled port
// whose priorities do not read as a list is left out. ok is false when the
// text has no such table.
func ParseEOSPriorityFlowControl(name string, data []byte) (*ConfigDB, bool) {
	m := newPFCMap(name, data)
	legend := false
	for i, raw := range m.db.lines {
		t := strings.TrimSpace(raw)
		if strings.HasPrefix(t, "E: PFC Enabled, D: PFC Disabled") {
			legend = true
			m.tableAt(i + 1)
			continue
		}
		f := strings.Fields(t)
		if !legend || len(f) < 4 || !eosPort(f[0]) || f[1] != "E" && f[1] != "D" {
			continue
		}
		col := strings.Index(raw, f[1]) + 1
		v := Value{Line: i + 1, Col: col}
		if f[1] == "E" {
			if len(f) < 5 {
				continue
			}
			if _, ok := Range(f[4]); !ok {
				continue
			}
			v.Text, v.Col = f[4], strings.Index(raw, " "+f[4]+" ")+2
		}
		m.set(f[0], v)
	}
	return m.done()
}

// eosPort reports an EOS interface name as the PFC table prints it (Et1,
// Et1/1, Po10).
func eosPort(s string) bool {
	for _, p := range []string{"Et", "Po"} {
		if rest, ok := strings.CutPrefix(s, p); ok && rest != "" && rest[0] >= '0' && rest[0] <= '9' {
			return true
		}
	}
	return false
}
