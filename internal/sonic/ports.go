package sonic

import "strings"

// NotDataPort reports whether a port of a SONiC config carries no
// front-panel traffic, and why: the inband port of a VOQ chassis
// linecard (VOQ_INBAND_INTERFACE names it; its neighbour is another
// linecard's inband port and it carries their control traffic), and the
// ports PORT's role marks as inband ("Inb") or recirculation ("Rec"), as
// SONiC names them Ethernet-IB0 and Ethernet-Rec0. qos_config.j2 gives
// none of them a PORT_QOS_MAP row.
func (db *ConfigDB) NotDataPort(port string) (string, bool) {
	if _, ok := db.Tables["VOQ_INBAND_INTERFACE"][port]; ok {
		return "the chassis's inband port (VOQ_INBAND_INTERFACE)", true
	}
	switch db.Tables["PORT"][port]["role"].Text {
	case "Inb":
		return "an inband port (PORT role Inb)", true
	case "Rec":
		return "a recirculation port (PORT role Rec)", true
	}
	if strings.HasPrefix(port, "Ethernet-IB") || strings.HasPrefix(port, "Ethernet-Rec") {
		return "an inband or recirculation port", true
	}
	return "", false
}
