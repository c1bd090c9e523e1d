package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
)

// NCCL's IB transport takes every verbs port it finds, InfiniBand and
// RoCE alike, unless NCCL_IB_HCA narrows the list. An InfiniBand port
// cannot reach a RoCE port: they sit on different fabrics and address
// their peers differently (LIDs, GIDs over Ethernet). NCCL 2.19 and later
// refuse to merge or connect the two ("Attempted to merge incompatible
// devices", "Attempted to connect incompatible devices ... Try selecting
// NICs of only one link type using NCCL_IB_HCA", net_ib.cc); earlier ones
// try and fail, or run channels over a slower Ethernet port.

func ncclLinkLayerRules() []Rule {
	return []Rule{{IDs: []string{"nccl.ib.mixed_link_layers"}, Check: checkMixedLinkLayers}}
}

// mixedLinkWhy and mixedLinkFix are the rule's mechanism and fix, shared by
// the device lists and NCCL's own WARN.
const (
	mixedLinkWhy = "NCCL's IB transport uses every verbs port it finds, InfiniBand and RoCE alike, unless NCCL_IB_HCA narrows the list, and spreads channels over all of them. An InfiniBand port and a RoCE port are on different fabrics (a subnet manager's LIDs against GIDs over Ethernet) and cannot reach each other: a channel whose ends land on ports of different link layers cannot connect, and NCCL 2.19 and later refuse it ('Attempted to connect incompatible devices', or 'to merge' when ports are fused into one device). The RoCE port beside InfiniBand HCAs is most often a host's Ethernet NIC (storage, management, a BlueField in Ethernet mode) that the job was never meant to use; channels on it run at its speed."
	mixedLinkFix = "Set NCCL_IB_HCA to the ports of the fabric the job runs on, the same on every rank (a leading = matches names exactly, ^ excludes); `ibv_devinfo | grep -E 'hca_id|link_layer'` lists each port's link layer."
)

// checkMixedLinkLayers reports hosts whose NET/IB device list holds ports
// of both link layers (huggingface/accelerate#2246: "[0]mlx5_0:1/IB
// [1]mlx5_2:1/RoCE" on every host). Hosts with the same split share one
// finding; another split (another job, or a host cabled otherwise) is its
// own, so that each fix names only its own hosts' ports.
func checkMixedLinkLayers(inc *Incident) []Finding {
	type split struct {
		hosts, ibNames, roceNames []string
		ports                     string
		ev                        evidence
	}
	var splits []*split
	byKey := map[string]*split{}
	for _, l := range All[*ingest.NCCLLog](inc) {
		byHost := map[string][]ingest.NetDevice{}
		var order []string
		for _, d := range l.IBDevices {
			if _, ok := byHost[d.Host]; !ok {
				order = append(order, d.Host)
			}
			byHost[d.Host] = append(byHost[d.Host], d)
		}
		for _, h := range order {
			var ib, roce, ibNames, roceNames []string
			for _, d := range byHost[h] {
				p := fmt.Sprintf("%s:%d", d.Name, d.Port)
				switch d.LinkLayer {
				case "IB":
					ib, ibNames = append(ib, p), append(ibNames, d.Name)
				case "RoCE":
					roce, roceNames = append(roce, p), append(roceNames, d.Name)
				}
			}
			if len(ib) == 0 || len(roce) == 0 {
				continue
			}
			ib, roce = distinct(ib), distinct(roce)
			key := strings.Join(ib, ",") + "|" + strings.Join(roce, ",")
			sp := byKey[key]
			if sp == nil {
				sp = &split{ibNames: distinct(ibNames), roceNames: distinct(roceNames),
					ports: fmt.Sprintf("%s InfiniBand, %s RoCE", list(ib, 3), list(roce, 3))}
				byKey[key] = sp
				splits = append(splits, sp)
			}
			if ingest.RealHost(h) {
				sp.hosts = append(sp.hosts, h)
			}
			sp.ev.add(byHost[h][0].Evidence)
		}
	}
	var out []Finding
	for _, sp := range splits {
		out = append(out, Finding{
			ID: "nccl.ib.mixed_link_layers", Severity: Warn, Layer: LayerRDMA,
			Title:     fmt.Sprintf("NCCL's IB device list mixes InfiniBand and RoCE ports (%s)%s", sp.ports, onHosts(distinct(sp.hosts))),
			Evidence:  sp.ev.sorted()[:min(3, len(sp.ev.list))],
			Mechanism: mixedLinkWhy,
			Fix: fmt.Sprintf("Here NCCL_IB_HCA==%s keeps the InfiniBand ports, or NCCL_IB_HCA=^=%s drops the RoCE ones. ",
				strings.Join(sp.ibNames, ","), strings.Join(sp.roceNames, ",")) + mixedLinkFix,
		})
	}
	return out
}

// mixedLinkClass is NCCL's own WARN refusing ports of two link layers in
// one connection or merged device.
var mixedLinkClass = failureClass{"NCCL refused to pair an InfiniBand port with a RoCE port (incompatible devices: select NICs of one link type)",
	mixedLinkWhy, mixedLinkFix}
