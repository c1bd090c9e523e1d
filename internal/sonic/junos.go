package sonic

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/junos"
	"rocelab/internal/textout"
)

// VendorJunos marks a ConfigDB made from a Juniper Junos configuration.
const VendorJunos = "juniper-junos"

// junosFC is a forwarding class: its queue, and whether it is no-loss
// with a PFC priority; tagged when an ieee-802.1 classifier gives it the
// 802.1p priority dot1p.
type junosFC struct {
	queue, prio, dot1p int
	lossless, tagged   bool
	at                 Value
}

// class is the number lint calls the forwarding class's class: a no-loss
// class's PFC priority (what the NICs must pause, whatever queue holds
// it: its pfc-priority, else the 802.1p priority its ieee-802.1
// classifier gives it), else its queue, or 8 + its queue where a no-loss
// class's priority has that number (queue 3 beside a no-loss class on
// priority 3 held in queue 4 are two classes).
func (f junosFC) class(lossless []int) int {
	switch {
	case f.lossless && f.prio >= 0:
		return f.prio
	case f.lossless && f.tagged:
		return f.dot1p
	case slices.Contains(lossless, f.queue):
		return 8 + f.queue
	}
	return f.queue
}

// FromJunos writes what a Junos class-of-service configuration says of
// RoCE as CONFIG_DB rows, each value at its place:
//
//   - A forwarding class is a class: a `no-loss` class with `pfc-priority
//     P` is class P (PFC pauses priority P, whichever queue holds it), one
//     without it the 802.1p code point an ieee-802.1 classifier gives it,
//     another its queue-num (8 + it when a no-loss class has that number).
//   - DSCP_TO_TC_MAP is the DSCP classifier an interface binds (else the
//     configuration's only one): each code point to its forwarding
//     class's class; a DSCP it leaves out is best-effort, queue 0.
//   - pfc_enable is the PFC priorities of the no-loss classes on
//     interfaces that bind a congestion-notification-profile (Junos
//     pauses nothing without one), with the 802.1p code points that
//     profile's `input ieee-802.1` pauses; none elsewhere.
//   - A scheduler with `explicit-congestion-notification` is a WRED
//     profile that marks (ecn_all), one with a drop-profile alone drops
//     (ecn_none), on its forwarding class's class. Drop-profile fill
//     levels are percentages of the queue's buffer, not bytes: named as
//     not judged.
//
// Ports are the interfaces the configuration names (`et-*` included);
// without an interfaces block, one port named "class-of-service" that
// binds the configuration's classifier and congestion-notification-profile
// when it defines one of each (said so in Skipped). A whole configuration
// without class-of-service writes no rows: it sets no QoS on any port
// (config.qos.absent), as the other switch OSes' readers say of theirs.
func FromJunos(file string, lines []string, root *junos.Node) *ConfigDB {
	db := newDB(file, "")
	db.lines, db.Vendor = lines, VendorJunos
	if len(root.Find("class-of-service")) == 0 && junos.Whole([]byte(strings.Join(lines, "\n"))) {
		return db
	}
	fcs := map[string]junosFC{}
	for _, set := range root.Find("forwarding-classes") {
		for _, c := range set.Children {
			w := c.Words
			switch {
			case len(w) >= 2 && w[0].Text == "class":
				f := junosFC{prio: -1, at: w[1]}
				if q, ok := c.Word("queue-num"); ok {
					f.queue, _ = strconv.Atoi(q.Text)
				}
				if p, ok := c.Word("pfc-priority"); ok {
					f.prio, _ = strconv.Atoi(p.Text)
				}
				_, f.lossless = c.Has("no-loss")
				fcs[w[1].Text] = f
			case len(w) == 3 && w[0].Text == "queue":
				q, _ := strconv.Atoi(w[1].Text)
				fcs[w[2].Text] = junosFC{queue: q, prio: -1, at: w[2]}
			}
		}
	}
	var lossless []int
	var losslessAt Value
	for _, n := range slices.Sorted(maps.Keys(fcs)) {
		if f := fcs[n]; f.lossless && f.prio >= 0 && !slices.Contains(lossless, f.prio) {
			lossless = append(lossless, f.prio)
			if losslessAt.Line == 0 {
				losslessAt = f.at
			}
		}
	}
	slices.Sort(lossless)
	junosTagged(root, fcs)
	// taken are the classes no-loss classes are, which a lossy class on
	// the same queue number is not.
	taken := slices.Clone(lossless)
	for _, f := range fcs {
		if f.lossless && f.prio < 0 && f.tagged && !slices.Contains(taken, f.dot1p) {
			taken = append(taken, f.dot1p)
		}
	}
	dot1p := junosDot1pPFC(root)
	// DSCP classifiers: name → DSCP → the class, at its code point.
	classifiers := map[string]map[int]Value{}
	for _, cl := range root.Find("classifiers") {
		for _, d := range cl.Children {
			if len(d.Words) != 2 || d.Words[0].Text != "dscp" || len(d.Children) == 0 {
				continue // an interface's binding, `dscp mydscp;`
			}
			m := map[int]Value{}
			for _, fc := range d.Children {
				name, ok := fc.Word("forwarding-class")
				f, known := fcs[name.Text]
				if !ok || !known {
					continue
				}
				for _, lp := range fc.Children {
					i := slices.IndexFunc(lp.Words, func(v junos.Value) bool { return v.Text == "code-points" })
					for _, cp := range lp.Words[i+1:] {
						if n, ok := junos.DSCP(cp.Text); ok && i >= 0 {
							v := cp
							v.Text = strconv.Itoa(f.class(taken))
							m[n] = v
						}
					}
				}
			}
			classifiers[d.Words[1].Text] = m
		}
	}
	// Schedulers: the forwarding classes a scheduler-map gives each.
	ecnOf := map[string]*junos.Node{}
	for _, s := range root.Find("schedulers") {
		for _, c := range s.Children {
			if len(c.Words) == 1 {
				ecnOf[c.Words[0].Text] = c
			}
		}
	}
	var ports []junosPort
	for _, ifs := range root.Find("interfaces") {
		for _, it := range ifs.Children {
			if len(it.Words) != 1 {
				continue
			}
			p := junosPort{name: it.Words[0].Text, at: it.Words[0]}
			if !junosEthernet(p.name) {
				continue
			}
			for _, c := range it.Find("congestion-notification-profile") {
				if len(c.Words) == 2 {
					p.cnp = c.Words[1].Text
				}
			}
			for _, c := range it.Find("scheduler-map") {
				if len(c.Words) == 2 {
					p.smap = c.Words[1].Text
				}
			}
			// The classifier a `classifiers` block binds, on the port or
			// a unit: a `rewrite-rules { dscp NAME; }` beside it names a
			// rewrite rule, no classifier.
			for _, cl := range it.Find("classifiers") {
				for _, c := range cl.Find("dscp") {
					if len(c.Words) == 2 {
						p.classifier = c.Words[1].Text
					}
				}
			}
			ports = append(ports, p)
		}
	}
	ports = junosWildcards(ports, &db.Skipped)
	if len(ports) == 0 {
		p := junosPort{name: "class-of-service"}
		if len(classifiers) == 1 {
			p.classifier = slices.Collect(maps.Keys(classifiers))[0]
		}
		// A cut without the interfaces that bind them: the one profile
		// and scheduler map it defines are taken as bound, and said so.
		for _, b := range []struct {
			kind  string
			bound *string
		}{{"congestion-notification-profile", &p.cnp}, {"scheduler-maps", &p.smap}} {
			var defs []*junos.Node
			for _, c := range root.Find(b.kind) {
				for _, d := range c.Children {
					if len(d.Words) == 1 && len(d.Children) > 0 {
						defs = append(defs, d)
					}
				}
			}
			if len(defs) != 1 {
				continue
			}
			d := defs[0].Words[0]
			*b.bound = d.Text
			db.Skipped = append(db.Skipped, Value{Text: "the interfaces that bind " + strings.TrimSuffix(b.kind, "s") + " " + d.Text + " (not in the input; taken as bound)", Line: d.Line, Col: d.Col})
		}
		ports = append(ports, p)
	}
	for _, p := range ports {
		row := map[string]Value{}
		if m, ok := classifiers[p.classifier]; ok {
			name := "classifiers dscp " + p.classifier
			if db.table("DSCP_TO_TC_MAP")[name] == nil {
				t := map[string]Value{}
				for d := range 64 {
					v, ok := m[d]
					if !ok { // best-effort, queue 0
						v = Value{Text: strconv.Itoa(junosFC{prio: -1}.class(taken))}
					}
					t[strconv.Itoa(d)] = v
				}
				db.table("DSCP_TO_TC_MAP")[name] = t
			}
			row["dscp_to_tc_map"] = Value{Text: name, Line: p.at.Line, Col: p.at.Col}
		}
		pfc := p.at
		pfc.Text = ""
		if p.cnp != "" {
			prios, at := lossless, losslessAt
			for _, cp := range dot1p[p.cnp] {
				if n, _ := strconv.ParseInt(cp.Text, 2, 8); !slices.Contains(prios, int(n)) {
					prios = append(slices.Clone(prios), int(n))
				}
				if at.Line == 0 {
					at = cp
				}
			}
			slices.Sort(prios)
			if len(prios) > 0 { // a profile that only honours pauses sends none
				pfc = at
				pfc.Text = textout.Ints(prios)
			}
		}
		row["pfc_enable"] = pfc
		db.table("PORT_QOS_MAP")[p.name] = row
		if p.smap == "" {
			continue
		}
		for _, sm := range root.Find(p.smap) {
			for _, c := range sm.Children {
				fc, ok1 := c.Word("forwarding-class")
				sched, ok2 := c.Word("scheduler")
				f, ok3 := fcs[fc.Text]
				s, ok4 := ecnOf[sched.Text]
				if !ok1 || !ok2 || !ok3 || !ok4 {
					continue
				}
				db.junosScheduler(p.name, f.class(taken), sched.Text, s)
			}
		}
	}
	db.Skipped = append(db.Skipped, junosFilterFCs(root)...)
	// Without schedulers the input may be a cut that leaves them out.
	db.nosECN(len(ecnOf) == 0, ecnWords...)
	// Without forwarding classes the input may be a cut that leaves a
	// no-loss class out.
	db.nosPFC(len(root.Find("forwarding-classes")) == 0)
	for t := range db.Tables {
		db.tablePos[t] = Value{Text: t, Line: 1, Col: 1}
	}
	return db
}

// junosPort is an interface block under class-of-service interfaces:
// the classifier, congestion-notification-profile and scheduler map it
// binds.
type junosPort struct {
	name                  string
	at                    Value
	classifier, cnp, smap string
}

// junosEthernet reports whether an interface name under class-of-service
// interfaces is one PFC can run on, or a wildcard over such names: any name
// but Junos's logical, tunnel and management interfaces (lo0, irb, vlan,
// em0, fxp0, vme, me0, re0:mgmt-0, pp0, st0, gr-/lt-/vt- tunnels...), which
// carry no priority flow control and are no ports of the RoCE class. Names
// are excluded rather than known ports kept, so a port of a family not
// listed (xle-, fte-, an interface-range's name) is still judged.
func junosEthernet(name string) bool {
	if name == "all" || strings.Contains(name, "*") {
		return true
	}
	if strings.Contains(name, ":mgmt") { // re0:mgmt-0, the routing engine's management port
		return false
	}
	base, _, _ := strings.Cut(name, ".")
	if slices.Contains(junosLogicalNames, base) {
		return false
	}
	for _, p := range junosLogicalNumbered {
		if rest, ok := strings.CutPrefix(base, p); ok && rest != "" && rest[0] >= '0' && rest[0] <= '9' {
			return false
		}
	}
	for _, p := range junosLogicalDashed {
		if strings.HasPrefix(base, p) {
			return false
		}
	}
	return true
}

// Junos's logical, tunnel, services and management interfaces: by their
// whole name, by a prefix and a number (lo0, em1, fxp0), and by a prefix
// with a dash before the slot (gr-0/0/0, lt-0/0/0).
var (
	junosLogicalNames    = []string{"irb", "vlan", "vme", "vtep", "lsi", "gre", "ipip", "mtun", "pimd", "pime", "tap", "dsc", "esi", "jsrv", "rbeb"}
	junosLogicalNumbered = []string{"lo", "em", "fxp", "me", "pp", "st", "bme", "cbp", "fti", "demux", "jsrv", "ps"}
	junosLogicalDashed   = []string{"gr-", "ip-", "lt-", "vt-", "mt-", "pd-", "pe-", "sp-", "ms-", "si-", "lc-", "pfe-", "pfh-", "rlsq", "rms"}
)

// junosWildcards applies the wildcard blocks (`all`, or a name with `*`
// such as `et-*`) to the interfaces named alone: what a named interface
// does not bind itself it takes from each wildcard that covers it, the
// way Juniper's AI-cluster configlet binds the DSCP classifier under
// `all unit *` and the congestion-notification-profile per port. A
// wildcard that covers a named interface is then no port of its own: the
// interfaces it covers beyond them are not in the input, which skipped
// says; one that covers none (`et-*` beside `ae0`) stays a port.
func junosWildcards(ports []junosPort, skipped *[]Value) []junosPort {
	wild := func(p junosPort) bool { return p.name == "all" || strings.Contains(p.name, "*") }
	var named []junosPort
	for _, p := range ports {
		if !wild(p) {
			named = append(named, p)
		}
	}
	out := slices.Clone(named)
	for _, w := range ports {
		if !wild(w) {
			continue
		}
		covers := false
		for i := range out {
			if !junosCovers(w.name, out[i].name) {
				continue
			}
			covers = true
			for _, f := range []struct{ to, from *string }{
				{&out[i].classifier, &w.classifier}, {&out[i].cnp, &w.cnp}, {&out[i].smap, &w.smap},
			} {
				if *f.to == "" {
					*f.to = *f.from
				}
			}
		}
		if !covers {
			out = append(out, w)
			continue
		}
		at := w.at
		at.Text = "interfaces " + w.name + ": the interfaces it covers beyond those named (not in the input)"
		*skipped = append(*skipped, at)
	}
	return out
}

// junosCovers reports whether the wildcard interface name pattern (`all`,
// or `*` for any run of characters, `/` included) covers name.
func junosCovers(pattern, name string) bool {
	if pattern == "all" {
		return true
	}
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	rest := name[len(parts[0]):]
	for i, p := range parts[1:] {
		if i == len(parts)-2 {
			return strings.HasSuffix(rest, p)
		}
		j := strings.Index(rest, p)
		if j < 0 {
			return false
		}
		rest = rest[j+len(p):]
	}
	return rest == ""
}

// junosFilterFCs names the firewall filter terms that set a forwarding
// class (`then forwarding-class FC`), at the class's word: a filter an
// interface applies classifies ahead of its classifiers, which no rule
// weighs.
func junosFilterFCs(root *junos.Node) []Value {
	var out []Value
	var walk func(n *junos.Node, path []string)
	walk = func(n *junos.Node, path []string) {
		path = slices.Clone(path)
		for _, w := range n.Words {
			path = append(path, w.Text)
		}
		if i := slices.Index(path, "forwarding-class"); i > 0 && i+1 < len(path) && slices.Contains(path[:i], "then") {
			fc, ok := n.Word("forwarding-class")
			if !ok {
				fc = n.Words[len(n.Words)-1]
			}
			name := []string{"firewall"}
			for _, k := range []string{"filter", "term"} {
				if j := slices.Index(path, k); j >= 0 && j+1 < len(path) {
					name = append(name, k, path[j+1])
				}
			}
			out = append(out, Value{Text: strings.Join(name, " ") + " then forwarding-class " + path[i+1] + " (classification by filter, ahead of the classifiers)", Line: fc.Line, Col: fc.Col})
			return
		}
		for _, c := range n.Children {
			walk(c, path)
		}
	}
	for _, fw := range root.Find("firewall") {
		walk(fw, nil)
	}
	return out
}

// junosTagged gives each no-loss forwarding class without a pfc-priority
// the first 802.1p code point an ieee-802.1 classifier maps to it: the
// priority QFX pauses for it when a congestion-notification-profile's
// `input ieee-802.1 code-point` has pfc, whichever queue-num holds it.
func junosTagged(root *junos.Node, fcs map[string]junosFC) {
	for _, cl := range root.Find("classifiers") {
		for _, d := range cl.Children {
			if len(d.Words) != 2 || d.Words[0].Text != "ieee-802.1" {
				continue
			}
			for _, fc := range d.Children {
				name, ok := fc.Word("forwarding-class")
				f, known := fcs[name.Text]
				if !ok || !known || !f.lossless || f.prio >= 0 || f.tagged {
					continue
				}
				for _, lp := range fc.Children {
					i := slices.IndexFunc(lp.Words, func(v junos.Value) bool { return v.Text == "code-points" })
					for _, cp := range lp.Words[i+1:] {
						if n, err := strconv.ParseUint(cp.Text, 2, 3); i >= 0 && err == nil && len(cp.Text) == 3 && !f.tagged {
							f.dot1p, f.tagged = int(n), true
							fcs[name.Text] = f
						}
					}
				}
			}
		}
	}
}

// junosDot1pPFC gives each congestion-notification-profile's `input
// ieee-802.1 code-point BITS { pfc; }` code points: the 802.1p priorities
// it pauses, as QFX's PFC for tagged traffic works (the no-loss class
// needs no pfc-priority, which only DSCP-based PFC uses).
func junosDot1pPFC(root *junos.Node) map[string][]Value {
	out := map[string][]Value{}
	for _, top := range root.Find("congestion-notification-profile") {
		for _, prof := range top.Children {
			if len(prof.Words) != 1 {
				continue
			}
			for _, in := range prof.Children {
				if in.Text() != "input" {
					continue
				}
				for _, ie := range in.Children {
					if ie.Text() != "ieee-802.1" {
						continue
					}
					for _, cp := range ie.Children {
						bits := Value{}
						if len(cp.Words) == 2 && cp.Words[0].Text == "code-point" {
							bits = cp.Words[1]
						}
						if len(bits.Text) == 3 && strings.Trim(bits.Text, "01") == "" && len(cp.Find("pfc")) > 0 {
							out[prof.Words[0].Text] = append(out[prof.Words[0].Text], bits)
						}
					}
				}
			}
		}
	}
	return out
}

// junosScheduler writes a scheduler's ECN or drop profile on a port's
// class; its fill-level thresholds are percentages, named as not judged.
func (db *ConfigDB) junosScheduler(port string, class int, name string, s *junos.Node) {
	var ecn, drop Value
	for _, c := range s.Children {
		if len(c.Words) == 0 {
			continue
		}
		switch c.Words[0].Text {
		case "explicit-congestion-notification":
			ecn = c.Words[0]
		case "drop-profile-map":
			drop = c.Words[0]
		}
	}
	at := ecn
	mode := "ecn_all"
	if at.Line == 0 {
		at, mode = drop, "ecn_none"
	}
	if at.Line == 0 {
		return
	}
	wname := "schedulers " + name
	if _, seen := db.table("WRED_PROFILE")[wname]; !seen {
		th := at
		th.Text = "fill-level %"
		db.table("WRED_PROFILE")[wname] = map[string]Value{"ecn": {Text: mode, Line: at.Line, Col: at.Col}, "wred_green_enable": {Text: "true", Line: at.Line, Col: at.Col},
			"green_min_threshold": th, "green_max_threshold": th, "green_drop_probability": th}
		if drop.Line > 0 {
			db.Skipped = append(db.Skipped, Value{Text: fmt.Sprintf("%s drop-profile (fill levels in percent of the queue's buffer)", wname), Line: drop.Line, Col: drop.Col})
		}
	}
	db.table("QUEUE")[port+"|"+strconv.Itoa(class)] = map[string]Value{"wred_profile": {Text: wname, Line: at.Line, Col: at.Col}}
}

// junosHeader is the `version …;` (or `set version …`) line a whole Junos
// configuration begins with (junos.Whole), as RunningConfigHeader gives
// the other OSes' headers.
func (db *ConfigDB) junosHeader() (Value, bool) {
	if !junos.Whole([]byte(strings.Join(db.lines, "\n"))) {
		return Value{}, false
	}
	for i, l := range db.lines {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "version ") || strings.HasPrefix(t, "set version ") {
			return Value{Text: t, Line: i + 1, Col: strings.Index(l, t) + 1}, true
		}
	}
	return Value{}, false
}
