package ingest

import "strings"

// ibv_devices (rdma-core's libibverbs/examples/device_list.c) lists the
// RDMA devices libibverbs finds, each with its node GUID as 16 hex digits:
//
//	    device          	   node GUID
//	    ------          	----------------
//	    mlx5_0          	506b4b0300285028
//
// Its devices are read as ibv_devinfo's, with their node GUID and no
// ports; a VF that was given no GUID prints zeros.

// ibvDevicesLine reads a line of an ibv_devices table: its header, the
// dashes under it, or a device row after them.
func (p *devinfoParser) ibvDevicesLine(l Line, t string) bool {
	f := strings.Fields(t)
	switch {
	case len(f) == 3 && f[0] == "device" && f[1] == "node" && f[2] == "GUID":
		p.devList = 1
		return true
	case p.devList == 1 && len(f) == 2 && strings.Trim(f[0], "-") == "" && strings.Trim(f[1], "-") == "":
		p.devList = 2
		return true
	case p.devList == 2 && len(f) == 2 && isIdentName(f[0]) && len(f[1]) == 16 && isHex(f[1]):
	default:
		p.devList = 0
		return false
	}
	if len(p.out.Devices) >= maxDevinfoDevices {
		p.out.Omitted++
		return true
	}
	ev := At(p.out.src, l)
	p.out.Devices = append(p.out.Devices, DevinfoDevice{Name: strings.Clone(f[0]), Host: p.host, NodeGUID: ibstatGUID(f[1]), GUIDLine: ev, Evidence: ev})
	p.ibstat, p.inBlock = false, false
	return true
}
