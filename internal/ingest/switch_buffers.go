package ingest

import (
	"strconv"
	"strings"
)

// The switch parser's other formats: SONiC buffer pools and profiles
// (`show buffer information` / `mmuconfig -l`), their watermarks (`show
// buffer_pool watermark`, `show headroom-pool watermark`), `show lldp
// table`; Arista EOS egress queue counters (`show interfaces counters queue
// detail`); NVIDIA Onyx `show roce`.

// keyedBlock is a "Pool: NAME" or "Profile: NAME" title (with "for
// namespace asicN" on a multi-ASIC switch) and the key/value rows under it.
type keyedBlock struct {
	kind  byte // 'p' pool, 'r' profile
	name  string
	rows  int
	buf   bool // a buffer key was seen
	pool  BufferPool
	prof  BufferProfile
	first Evidence
}

func newBlock(kind byte, name, namespace string, ev Evidence) *keyedBlock {
	name, namespace = strings.Clone(strings.TrimSpace(name)), strings.Clone(namespace)
	return &keyedBlock{kind: kind, name: name, first: ev,
		pool: BufferPool{Name: name, Namespace: namespace, Size: -1, Peak: -1, HeadroomPeak: -1},
		prof: BufferProfile{Name: name, Namespace: namespace, Xon: -1, Xoff: -1, Size: -1, DynamicTh: -1}}
}

// blockTitle reads the title mmuconfig -l (`show buffer information`) and
// ecnconfig -l print above a key/value block: "Pool: NAME", or on a
// multi-ASIC switch "Pool for namespace asic0: NAME"; kind is "Pool" or
// "Profile".
func blockTitle(t, kind string) (name, namespace string, ok bool) {
	rest, ok := strings.CutPrefix(t, kind)
	if !ok || len(t) >= 120 {
		return "", "", false
	}
	if after, found := strings.CutPrefix(rest, " for namespace "); found {
		ns, n, cut := strings.Cut(after, ": ")
		if !cut || !isIdentName(ns) {
			return "", "", false
		}
		return n, ns, n != ""
	}
	n, ok := strings.CutPrefix(rest, ": ")
	return n, "", ok && n != ""
}

// blockTitled reports whether t is a block title of the kind.
func blockTitled(t, kind string) bool {
	_, _, ok := blockTitle(t, kind)
	return ok
}

// add reads one key/value row; it reports whether the key was a buffer
// key (others, such as ECN thresholds, are read by the caller).
func (b *keyedBlock) add(k, v string, ev Evidence) bool {
	b.rows++
	n := numOr(v)
	switch k {
	case "mode":
		b.pool.Mode = strings.Clone(v)
	case "type":
		b.pool.Type = strings.Clone(v)
	case "size":
		b.pool.Size, b.prof.Size = n, n
	case "xon":
		b.prof.Xon = n
	case "xoff":
		b.prof.Xoff = n
	case "dynamic_th":
		b.prof.DynamicTh = n
	case "pool":
		b.prof.Pool = strings.Clone(v)
	case "headroom_type", "static_th":
	default:
		return false
	}
	b.buf = true
	if len(b.pool.Evidence) < 8 {
		b.pool.Evidence = append(b.pool.Evidence, ev)
		b.prof.Evidence = append(b.prof.Evidence, ev)
	}
	return true
}

// endBlock stores the block being read as a pool or buffer profile.
func (p *switchParser) endBlock() {
	b := p.block
	p.block, p.ecn = nil, nil
	if p.table == swECN {
		p.table = swNone
	}
	if b == nil || !b.buf {
		return
	}
	if b.kind == 'p' {
		b.pool.Evidence = append([]Evidence{b.first}, b.pool.Evidence...)
		p.out.Pools = appendCapped(p.out.Pools, b.pool, maxSwitchRows, &p.out.Omitted)
		return
	}
	b.prof.Evidence = append([]Evidence{b.first}, b.prof.Evidence...)
	p.out.Profiles = appendCapped(p.out.Profiles, b.prof, maxSwitchRows, &p.out.Omitted)
}

// pool returns the pool named name in namespace ns, adding it when new.
func (p *switchParser) pool(name, ns string) *BufferPool {
	for i := range p.out.Pools {
		if p.out.Pools[i].Name == name && p.out.Pools[i].Namespace == ns {
			return &p.out.Pools[i]
		}
	}
	if len(p.out.Pools) >= maxSwitchRows {
		p.out.Omitted++
		return nil
	}
	p.out.Pools = append(p.out.Pools, BufferPool{Name: strings.Clone(name), Namespace: strings.Clone(ns), Size: -1, Peak: -1, HeadroomPeak: -1})
	return &p.out.Pools[len(p.out.Pools)-1]
}

// poolWatermark reads "ingress_lossless_pool   432640".
func (p *switchParser) poolWatermark(f []string, ev Evidence) bool {
	if len(f) != 2 || !isIdentName(f[0]) {
		return false
	}
	v := numOr(f[1])
	if pl := p.pool(f[0], p.titleNS); pl != nil {
		if p.table == swHdrmWM {
			pl.HeadroomPeak = v
		} else {
			pl.Peak = v
		}
		if len(pl.Evidence) < 10 {
			pl.Evidence = append(pl.Evidence, ev)
		}
	}
	return true
}

// ruleSpans returns the column spans of a tabulate rule ("-----  ---").
func ruleSpans(rule string) [][2]int {
	var out [][2]int
	for i := 0; i < len(rule); {
		if rule[i] != '-' {
			i++
			continue
		}
		j := i
		for j < len(rule) && rule[j] == '-' {
			j++
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

// cell returns column i of a table row by the rule's spans; the last
// column runs to the end of the line.
func cell(row string, spans [][2]int, i int) string {
	if i >= len(spans) || spans[i][0] >= len(row) {
		return ""
	}
	end := len(row)
	if i+1 < len(spans) {
		end = min(end, spans[i+1][0])
	}
	return strings.TrimSpace(row[spans[i][0]:end])
}

// lldpRow reads a `show lldp table` row by its columns: LocalPort,
// RemoteDevice, RemotePortID, Capability and, when printed,
// RemotePortDescr (which may hold spaces).
func (p *switchParser) lldpRow(row string, ev Evidence) bool {
	port, dev := cell(row, p.spans, 0), cell(row, p.spans, 1)
	if port == "" || dev == "" || !isIdentName(port) || strings.ContainsRune(dev, ' ') {
		return false
	}
	n := LLDPNeighbor{Port: strings.Clone(port), Device: strings.Clone(dev), PortID: strings.Clone(cell(row, p.spans, 2)), Evidence: ev}
	if len(p.cols) >= 5 {
		n.PortDescr = strings.Clone(cell(row, p.spans, 4))
	}
	p.out.Neighbors = appendCapped(p.out.Neighbors, n, maxSwitchRows, &p.out.Omitted)
	return true
}

// Netdev returns the host interface an LLDP neighbour names: its port ID
// when that is an interface name, else the last word of its description
// ("Interface 8 as enp5s0f0"); "" for MAC addresses and switch ports.
func (n LLDPNeighbor) Netdev() string {
	for _, s := range []string{n.PortID, lastWord(n.PortDescr)} {
		if s != "" && isIdentName(s) && !strings.ContainsRune(s, ':') && !strings.HasPrefix(s, "Ethernet") {
			return s
		}
	}
	return ""
}

func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// isEOSQueueHeader reports whether t heads Arista EOS egress queue
// counters: "Port  Traffic  DropPrec  DestType  OutEnqPkts ... OutDropPkts".
func isEOSQueueHeader(t string) bool {
	return strings.HasPrefix(t, "Port") && strings.Contains(t, "OutDropPkts") && strings.Contains(t, "OutEnqPkts")
}

// eosQueueRow reads "Et4/2/1  TC7  DP0-3  UC  0  0  1  110"; the header's
// second line ("Class") is taken as part of the table.
func (p *switchParser) eosQueueRow(f []string, ev Evidence) bool {
	if len(f) == 1 && f[0] == "Class" {
		return true
	}
	if len(f) != 8 || !strings.HasPrefix(f[1], "TC") {
		return false
	}
	tc, err := strconv.Atoi(f[1][2:])
	if err != nil || tc < 0 || tc > 15 {
		return false
	}
	pk, _ := switchNum(f[4])
	by, _ := switchNum(f[5])
	p.out.Queues = appendCapped(p.out.Queues, QueueCount{Port: strings.Clone(f[0]), Queue: tc, Type: strings.Clone(f[3]), Packets: pk, Bytes: by, DropPkts: numOr(f[6]), DropBytes: numOr(f[7]), EOS: true, Host: p.eosHost, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
	return true
}

// isEOSVoQHeader reports whether t heads the virtual output queue table
// an Arista EOS chassis or Jericho switch prints above its egress queues
// (`show interfaces counters queue`, title "Aggregate VoQ Counters"):
// "Egress  Traffic  Pkts  Octets  DropPkts  DropOctets".
func isEOSVoQHeader(t string) bool {
	f := strings.Fields(t)
	return len(f) == 6 && f[0] == "Egress" && f[1] == "Traffic" && f[2] == "Pkts" && f[3] == "Octets" && f[4] == "DropPkts" && f[5] == "DropOctets"
}

// eosVoQRow reads "Et31  TC1  400916761  38488009056  79745886
// 7655605056": the packets the ingress side queued toward port Et31's
// traffic class 1 and those it dropped there, a queue of Type "VOQ". The
// header's second line ("Port  Class") is taken as part of the table.
func (p *switchParser) eosVoQRow(f []string, ev Evidence) bool {
	if len(f) == 2 && f[0] == "Port" && f[1] == "Class" {
		return true
	}
	if len(f) != 6 || !strings.HasPrefix(f[1], "TC") || !isIdentName(strings.ReplaceAll(f[0], "/", "_")) {
		return false
	}
	tc, err := strconv.Atoi(f[1][2:])
	if err != nil || tc < 0 || tc > 15 {
		return false
	}
	pk, ok1 := switchNum(f[2])
	by, ok2 := switchNum(f[3])
	if !ok1 || !ok2 {
		return false
	}
	p.out.Queues = appendCapped(p.out.Queues, QueueCount{Port: strings.Clone(f[0]), Queue: tc, Type: "VOQ", Packets: pk, Bytes: by, DropPkts: numOr(f[4]), DropBytes: numOr(f[5]), EOS: true, Host: p.eosHost, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
	return true
}

// roceLine reads NVIDIA Onyx `show roce`: the absolute ECN thresholds of
// "Port congestion-control:" (in KB) and "switch-priority N: enabled".
func (p *switchParser) roceLine(t string, ev Evidence) bool {
	key, val, ok := strings.Cut(t, ":")
	if !ok {
		// The TC table of the same output: "3 3 RoCE WRR 50%".
		return strings.Contains(t, "RoCE") || strings.Contains(t, "CNP") || strings.HasPrefix(t, "Switch-Priority")
	}
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	switch {
	case key == "Port congestion-control":
		p.congestion = true
	case p.congestion && key == "Mode":
		if strings.Contains(val, "ecn") && strings.Contains(val, "absolute") {
			p.out.ECN = appendCapped(p.out.ECN, ECNProfile{Name: "show roce port congestion-control", GreenMin: -1, GreenMax: -1, GreenDropProbability: -1, ECN: "ecn", Evidence: []Evidence{ev}}, maxSwitchRows, &p.out.Omitted)
			if n := len(p.out.ECN); n > 0 && p.out.ECN[n-1].Evidence[0] == ev {
				p.roceECN = &p.out.ECN[n-1]
			}
		}
	case p.congestion && (key == "Min" || key == "Max") && p.roceECN != nil:
		kb := numOr(val)
		if kb >= 0 && kb < 1<<40 {
			if key == "Min" {
				p.roceECN.GreenMin = kb * 1024
			} else {
				p.roceECN.GreenMax = kb * 1024
			}
			p.roceECN.Evidence = append(p.roceECN.Evidence, ev)
		}
	case strings.HasPrefix(key, "switch-priority ") && val == "enabled":
		if n, err := strconv.Atoi(strings.TrimPrefix(key, "switch-priority ")); err == nil && n >= 0 && n < 8 && len(p.out.PFCPrios) < 8 {
			p.out.PFCPrios = append(p.out.PFCPrios, n)
			p.out.PFCPrioEvs = append(p.out.PFCPrioEvs, ev)
		}
	case key == "PFC" || key == "LLDP" || key == "Port trust mode" || key == "Application TLV" || key == "Selector" ||
		key == "Protocol" || key == "Priority" || key == "RoCE used TCs" || key == "RoCE buffer pools":
		if key != "Port congestion-control" && key != "Mode" {
			p.congestion = p.congestion && key == "PFC"
		}
	default:
		return false
	}
	return true
}
