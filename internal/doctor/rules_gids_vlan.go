package doctor

import (
	"fmt"
	"strconv"
	"strings"

	"rocelab/internal/ingest"
)

// vlanNetdev returns the VLAN ID of a VLAN netdev named as iproute2 and
// the distributions name them ("eth2.10", "ens1f0np0.100", "vlan100"), or
// "" for another netdev. A name with more dots ("b3.vxlan.30100", a VXLAN
// device) or a number past 4094 is no VLAN.
func vlanNetdev(name string) string {
	id, ok := strings.CutPrefix(name, "vlan")
	if base, vid, dot := strings.Cut(name, "."); dot && base != "" && !strings.Contains(vid, ".") {
		id, ok = vid, true
	}
	if n, err := strconv.Atoi(id); !ok || err != nil || n < 1 || n > 4094 || strings.Trim(id, "0123456789") != "" {
		return ""
	}
	return id
}

// A gidPort is one port of one GID table: its routable rows on VLAN
// netdevs and on untagged ones.
type gidPort struct {
	tagged, untagged []ingest.GIDEntry
}

// checkGIDVLANs reports a RoCE port whose routable GIDs sit both on a VLAN
// netdev and on an untagged one: which index is chosen decides whether
// the frames carry an 802.1Q tag, and with it the PCP priority that
// PFC classifies on when the switch trusts PCP.
func checkGIDVLANs(inc *Incident) []Finding {
	var fs []Finding
	for _, g := range All[*ingest.ShowGIDs](inc) {
		ports := map[string]*gidPort{}
		var order []string
		for _, e := range g.Entries {
			if e.Netdev == "" || linkLocal(e.GID) {
				continue
			}
			key := fmt.Sprintf("%s %d %s %d", e.Host, e.Table, e.Device, e.Port)
			p := ports[key]
			if p == nil {
				p = &gidPort{}
				ports[key] = p
				order = append(order, key)
			}
			if vlanNetdev(e.Netdev) != "" {
				p.tagged = append(p.tagged, e)
			} else {
				p.untagged = append(p.untagged, e)
			}
		}
		for _, key := range order {
			p := ports[key]
			if len(p.tagged) == 0 || len(p.untagged) == 0 {
				continue
			}
			fs = append(fs, vlanFinding(g, p))
		}
	}
	return fs
}

// vlanFinding is the finding of one port with tagged and untagged GIDs.
func vlanFinding(g *ingest.ShowGIDs, p *gidPort) Finding {
	rows := func(es []ingest.GIDEntry) string {
		var s []string
		for _, e := range es {
			s = append(s, fmt.Sprintf("index %d %s %s", e.Index, gidAddr(e), e.Version))
		}
		return strings.Join(s, ", ")
	}
	t, u := p.tagged[0], p.untagged[0]
	use, v2 := t, false
	for _, e := range p.tagged {
		if e.Version == "v2" {
			use, v2 = e, true
			break
		}
	}
	fix := fmt.Sprintf("With PCP-based PFC use the VLAN netdev's index, its RoCE v2 row where the port has one (index %d here), on every host: NCCL_IB_GID_INDEX, ib_write_bw -x; with DSCP-based PFC (mlnx_qos --trust dscp) a RoCE v2 index of either netdev works if the peers' GIDs are in its subnet and the switch port carries its VLAN (tagged for the VLAN netdev). Check `show_gids` on the peers for the same layout.", use.Index)
	if !v2 {
		fix = fmt.Sprintf("The VLAN netdev's rows are RoCE v1, which has no IP header and so no DSCP: whatever the switch trusts, only the 802.1Q tag's PCP can put these frames in a lossless priority. Use the VLAN netdev's index (index %d here) on every host (NCCL_IB_GID_INDEX, ib_write_bw -x), with PCP-based PFC on that priority; or move to RoCE v2 GIDs. Check `show_gids` on the peers for the same layout.", use.Index)
	}
	var ev []Evidence
	for _, e := range append(append([]ingest.GIDEntry{}, p.untagged...), p.tagged...) {
		ev = append(ev, e.Evidence)
	}
	return Finding{
		ID: "gid.vlan.mixed", Severity: Info, Layer: LayerRDMA,
		Title: fmt.Sprintf("%s port %d: routable GIDs on untagged %s (%s) and on VLAN %s netdev %s (%s): the GID index chosen decides whether RoCE frames carry a VLAN tag",
			u.Where(), u.Port, u.Netdev, rows(p.untagged), vlanNetdev(t.Netdev), t.Netdev, rows(p.tagged)),
		Evidence: ev,
		Mechanism: "Each GID is an address of one netdev, and a queue pair sends with the L2 header of the netdev its GID belongs to: a GID of a VLAN netdev gives 802.1Q-tagged frames whose PCP field carries the RoCE priority, a GID of the untagged netdev gives frames with no PCP at all. " +
			"A switch port that classifies on PCP (L2 PFC, trust pcp) puts untagged frames in its default priority, which is lossy: RoCE over the untagged GID then gets no PFC and drops under congestion, while the tagged GID is lossless. " +
			"When the fabric classifies RoCE v2 on DSCP (trust dscp) the tag does not set the priority, but it still decides the VLAN the frames travel in: the two GIDs are two subnets, and the switch port must carry the VLAN as tagged for the VLAN netdev's GID to reach anyone. RoCE v1 frames (EtherType 0x8915) have no IP header, so for them only the tag's PCP can give a lossless priority, whatever the trust mode.",
		Fix: fix,
	}.per(g.Source(), "port", "Ports with VLAN and untagged GIDs")
}

// gidAddr is a row's IPv4 address, else its GID.
func gidAddr(e ingest.GIDEntry) string {
	if e.IPv4 != "" {
		return e.IPv4
	}
	return e.GID
}
