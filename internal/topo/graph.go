package topo

import (
	"fmt"
	"strconv"
	"strings"
)

// GraphLink is one entry of a graph's link list: Count parallel links
// between the nodes named A and B ("h3", "s0").
type GraphLink struct {
	A, B  string
	Count int
	LinkSpec
}

// Graph builds a fabric of hosts h0..h(hosts-1) and switches
// s0..s(switches-1) wired as links say, for fabrics no builder describes
// (another simulator's topology file, a real cluster's cabling). Each host
// has exactly one link, to a switch; every host must reach every other.
// A switch's tier is its distance in switch hops from the nearest switch
// with hosts, plus one (1 for leaves); a link between tiers is an uplink
// from the lower one. Errors name the link at fault as "links[i]".
func Graph(hosts, switches int, links []GraphLink) (*Topology, error) {
	switch {
	case hosts < 2:
		return nil, &Error{"hosts", fmt.Sprintf("need at least 2 hosts, got %d", hosts)}
	case switches < 1:
		return nil, &Error{"switches", fmt.Sprintf("need at least 1 switch, got %d", switches)}
	}
	t := &Topology{Kind: "graph"}
	for i := 0; i < switches; i++ {
		t.addNode(Node{Name: "s" + strconv.Itoa(i), Kind: Switch, Server: -1, NIC: -1})
	}
	for i := 0; i < hosts; i++ {
		t.addNode(host("h" + strconv.Itoa(i)))
	}
	node := func(name, field string) (int, error) {
		kind, num := name[:min(1, len(name))], name[min(1, len(name)):]
		i, err := strconv.Atoi(num)
		switch {
		case err != nil || i < 0 || num != strconv.Itoa(i) || (kind != "h" && kind != "s"):
			return 0, &Error{field, fmt.Sprintf("%q: expected a host h0..h%d or a switch s0..s%d", name, hosts-1, switches-1)}
		case kind == "s" && i >= switches:
			return 0, &Error{field, fmt.Sprintf("%q: the switches are s0..s%d (switches: %d)", name, switches-1, switches)}
		case kind == "h" && i >= hosts:
			return 0, &Error{field, fmt.Sprintf("%q: the hosts are h0..h%d (hosts: %d)", name, hosts-1, hosts)}
		case kind == "h":
			return switches + i, nil
		}
		return i, nil
	}
	hostLink := make([]int, hosts) // the link entry of each host's link, plus one
	type pair struct{ a, b, count int }
	var pairs []pair
	for li, l := range links {
		field := fmt.Sprintf("links[%d]", li)
		a, err := node(l.A, field)
		if err != nil {
			return nil, err
		}
		b, err := node(l.B, field)
		if err != nil {
			return nil, err
		}
		if a == b {
			return nil, &Error{field, fmt.Sprintf("%s to itself", l.A)}
		}
		if t.Nodes[a].Kind == Host && t.Nodes[b].Kind == Host {
			return nil, &Error{field, fmt.Sprintf("%s to %s: hosts connect through switches", l.A, l.B)}
		}
		for _, n := range []int{a, b} {
			if t.Nodes[n].Kind != Host {
				continue
			}
			h := n - switches
			if hostLink[h] != 0 || l.Count != 1 {
				return nil, &Error{field, fmt.Sprintf("h%d has more than one link (a host is one NIC port: give a multi-port server one host per port)", h)}
			}
			hostLink[h] = li + 1
		}
		if l.Count < 1 {
			return nil, &Error{field, fmt.Sprintf("count %d: expected at least 1", l.Count)}
		}
		pairs = append(pairs, pair{a, b, l.Count})
	}
	for h, l := range hostLink {
		if l == 0 {
			return nil, &Error{"links", fmt.Sprintf("h%d has no link", h)}
		}
	}
	adj := make([][]int, len(t.Nodes))
	for _, p := range pairs {
		adj[p.a] = append(adj[p.a], p.b)
		adj[p.b] = append(adj[p.b], p.a)
	}
	// Tiers: breadth first from every switch with hosts.
	dist := make([]int, len(t.Nodes))
	for i := range dist {
		dist[i] = -1
	}
	var queue []int
	for s := 0; s < switches; s++ {
		for _, n := range adj[s] {
			if t.Nodes[n].Kind == Host && dist[s] < 0 {
				dist[s] = 0
				queue = append(queue, s)
			}
		}
	}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, v := range adj[u] {
			if t.Nodes[v].Kind == Switch && dist[v] < 0 {
				dist[v] = dist[u] + 1
				queue = append(queue, v)
			}
		}
	}
	// Every switch is in the hosts' component, and every host reaches
	// every other.
	seen := component(adj, t.Hosts[0])
	var lost []string
	for n := range t.Nodes {
		if !seen[n] {
			lost = append(lost, t.Nodes[n].Name)
		}
	}
	if len(lost) > 0 {
		more := ""
		if len(lost) > 4 {
			lost, more = lost[:4], fmt.Sprintf(" and %d more", len(lost)-4)
		}
		return nil, &Error{"links", fmt.Sprintf("%s%s cannot reach h0: every host must reach every other, and every switch carry traffic", strings.Join(lost, ", "), more)}
	}
	for s := 0; s < switches; s++ {
		t.Nodes[s].Tier = dist[s] + 1
	}
	var hostBits, upBits float64
	for li, p := range pairs {
		a, b := p.a, p.b
		// A host link reads host first, as the builders' do; a link
		// between tiers from the lower one.
		if t.Nodes[b].Kind == Host || t.Nodes[a].Kind == Switch && t.Nodes[a].Tier > t.Nodes[b].Tier {
			a, b = b, a
		}
		ta, tb := t.Nodes[a].Tier, t.Nodes[b].Tier
		for i := 0; i < p.count; i++ {
			t.link(a, b, links[li].LinkSpec, t.Nodes[a].Kind == Switch && ta < tb)
		}
		switch {
		case t.Nodes[a].Kind == Host:
			hostBits += float64(links[li].Rate)
		case ta == 1 && tb == 2:
			upBits += float64(p.count) * float64(links[li].Rate)
		}
	}
	if upBits > 0 {
		t.Oversubscription = hostBits / upBits
	}
	return t, nil
}

// component marks the nodes reachable from n.
func component(adj [][]int, n int) []bool {
	seen := make([]bool, len(adj))
	seen[n] = true
	stack := []int{n}
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, v := range adj[u] {
			if !seen[v] {
				seen[v] = true
				stack = append(stack, v)
			}
		}
	}
	return seen
}
