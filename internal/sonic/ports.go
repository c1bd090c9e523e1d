package sonic

import "strings"

// NotDataPort reports whether a port of a SONiC config carries no
// front-panel traffic: the inband port of a VOQ chassis linecard
// (VOQ_INBAND_INTERFACE names it; its neighbour is another linecard's
// inband port, and it carries their control traffic, not RoCE), and the
// ports PORT's role marks as inband ("Inb") or recirculation ("Rec"), as
// SONiC names them Ethernet-IB0 and Ethernet-Rec0. qos_config.j2 renders
// PORT_QOS_MAP rows for every port DEVICE_NEIGHBOR names (PORT_ACTIVE),
// the inband port among them; only its PORT_ALL leaves out Ethernet-IB*
// and Ethernet-Rec*.
func (db *ConfigDB) NotDataPort(port string) bool {
	if _, ok := db.Tables["VOQ_INBAND_INTERFACE"][port]; ok {
		return true
	}
	switch db.Tables["PORT"][port]["role"].Text {
	case "Inb", "Rec":
		return true
	}
	return strings.HasPrefix(port, "Ethernet-IB") || strings.HasPrefix(port, "Ethernet-Rec")
}

// PortChannel reports whether a name in a port-keyed row is a port
// channel, not a port: a PORTCHANNEL row, or a name SONiC gives port
// channels alone ("PortChannel0001"), that PORT does not hold.
func (db *ConfigDB) PortChannel(name string) bool {
	if _, ok := db.Tables["PORT"][name]; ok {
		return false
	}
	_, lag := db.Tables["PORTCHANNEL"][name]
	return lag || strings.HasPrefix(name, "PortChannel")
}
