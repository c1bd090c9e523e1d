package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/counters"
	"rocelab/internal/ingest"
)

// An mlx5 device whose node GUID reads all zeros: a ConnectX physical
// function carries a burned-in GUID, so this is an SR-IOV virtual function
// no one gave one (ibv_devinfo's node_guid, ibstat's Node GUID, an
// ibv_devices row). Other drivers are left alone: EFA prints zeros for
// every device, and so on.

func vfGUIDRules() []Rule {
	return []Rule{{IDs: []string{"devinfo.vf.guid_zero"}, Check: checkVFGUIDZero}}
}

// zeroGUID reports whether a GUID as the parsers keep it
// ("0000:0000:0000:0000") is all zeros.
func zeroGUID(g string) bool {
	return g != "" && strings.Trim(g, "0:") == ""
}

// mlx5Device reports whether a device is an mlx5 one: by its kernel name
// (mlx5_0), or, when its name names no driver (udev's persistent names,
// rocep59s0f0v0; Azure's mlx5_ib0), by its part number (ibv_devinfo's
// vendor_part_id, ibstat's CA type MT4126) when that is one mlx5_core's
// mlx5_core_pci_table marks MLX5_PCI_DEV_IS_VF: the Connect-IB,
// ConnectX-4, ConnectX-4 Lx, ConnectX-5, ConnectX-5 Ex and ConnectX-6
// VFs, later ConnectX's mlx5Gen VF and BlueField's ConnectX-5 VF.
func mlx5Device(dev ingest.DevinfoDevice) bool {
	if v, ok := counters.VendorOfDevice(dev.Name); ok {
		return v == counters.MLX5
	}
	switch dev.VendorPartID {
	case 0x1012, 0x1014, 0x1016, 0x1018, 0x101a, 0x101c, 0x101e, 0xa2d3:
		return true
	}
	return false
}

// checkVFGUIDZero reports, per input, the mlx5 devices with a zero node
// GUID: a warning when one of them is an InfiniBand port, else a note.
func checkVFGUIDZero(inc *Incident) []Finding {
	var fs []Finding
	for _, d := range All[*ingest.Devinfo](inc) {
		var names []string
		var ev evidence
		ib, eth, ibDown := false, false, false
		for _, dev := range d.Devices {
			if !mlx5Device(dev) || !zeroGUID(dev.NodeGUID) {
				continue
			}
			names = append(names, dev.Name)
			ev.add(dev.GUIDLine)
			for _, pt := range dev.Ports {
				ib = ib || pt.LinkLayer == "InfiniBand"
				ibDown = ibDown || pt.LinkLayer == "InfiniBand" && pt.State != "" && !portActive(pt.State)
				eth = eth || pt.LinkLayer == "Ethernet"
				ev.add(pt.Evidence["link_layer"])
			}
		}
		if len(names) == 0 {
			continue
		}
		f := Finding{
			ID: "devinfo.vf.guid_zero", Severity: Info, Layer: LayerRDMA,
			Subject:  d.Source(),
			Evidence: ev.sorted(),
			Fix:      vfGUIDFix,
		}
		verb := "has"
		if len(names) > 1 {
			verb = "have"
		}
		who := fmt.Sprintf("%s %s node GUID 0000:0000:0000:0000", list(names, 4), verb)
		switch {
		case ib:
			f.Severity = Warn
			f.Title = who + ": SR-IOV VFs given no GUID; an InfiniBand VF needs one for its link to come up"
			if ibDown {
				f.Title += ", and its port is down"
			}
			f.Mechanism = vfGUIDWhy + " On InfiniBand the VF needs a port GUID (and a node GUID) before its link comes up: the SR-IOV device plugin's maintainers answer VF ports that stay Down with 'You need to have valid GUIDs assigned to the VFs as well for link to be up' (k8snetworkplumbingwg/sriov-network-device-plugin#269), beside a subnet manager that supports virtualization. " + vfGUIDCM
		case eth:
			f.Title = who + ": SR-IOV VFs given no GUID; RoCE traffic does not use it, RDMA CM may"
			f.Mechanism = vfGUIDWhy + " On RoCE nothing on the wire carries it: a queue pair is addressed by its GID, from the VF netdev's IP address, and NCCL's IB transport exchanges QP numbers and GIDs over its own sockets, so NCCL and perftest without -R connect as on any VF (a ConnectX-5 VF's port reads Active with both GUIDs zero in koordinator.sh's GPU and RDMA allocation guide). " + vfGUIDCM
		default:
			f.Title = who + ": SR-IOV VFs given no GUID (matters on InfiniBand and to RDMA CM)"
			f.Mechanism = vfGUIDWhy + " The input does not say the link layer. On RoCE nothing on the wire carries the GUID (a queue pair is addressed by its GID; NCCL exchanges QP numbers and GIDs over its own sockets); on InfiniBand a VF needs a port GUID before its link comes up (k8snetworkplumbingwg/sriov-network-device-plugin#269). " + vfGUIDCM
		}
		fs = append(fs, f)
	}
	return fs
}

const (
	vfGUIDWhy = "A ConnectX physical function has a burned-in node GUID; a virtual function gets one only when it is assigned before the driver binds the VF (`ip link set <pf> vf <n> node_guid ...` and `port_guid ...`; for a RoCE VF, from its administrative MAC address), and reads zeros until then (openshift/sriov-network-operator PR #243: Mellanox VFs start with zeroed node and port GUIDs)."
	vfGUIDCM  = "RDMA CM (librdmacm) looked devices up by node GUID: on VFs with zero GUIDs `ib_read_bw -R` crashed in ibv_alloc_pd (linux-rdma/perftest#64) and `ib_write_bw -R` in librdmacm (k8snetworkplumbingwg/sriov-network-operator#267, Ubuntu 20.04, kernel 5.4), while the same tests without -R ran: tools that connect through RDMA CM (perftest -R, rping) can fail on these devices."
	vfGUIDFix = "Give each VF a unique GUID before its driver binds: `ip link set <pf> vf <n> node_guid <guid>` and `ip link set <pf> vf <n> port_guid <guid>` (InfiniBand), or the VF's MAC for RoCE (`ip link set <pf> vf <n> mac <mac>`), then unbind and bind the VF (the SR-IOV network operator does this since openshift/sriov-network-operator PR #243); on InfiniBand the subnet manager must also support virtualization. On RoCE, with nothing using RDMA CM, it can stay as it is."
)
