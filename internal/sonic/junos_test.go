package sonic

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/junos"
)

// TestFromJunosTaggedNoLoss reads QUADS's Juniper RoCE class-of-service
// (real; its no-loss class roce-lossless on queue 3, given 802.1p 011 by
// its ieee-802.1 classifier, which the congestion-notification-profile
// pauses) and, as a synthetic edit, the same with roce-lossless on queue 4
// and nvme-tcp on 5: QFX pauses the code point the classifier gives the
// class, whatever queue-num holds it, so both are class 3, paused, with
// roce-sched's ECN on it. Before, the edit put the ECN on class 4 and lint
// said ECN never marked RoCE.
func TestFromJunosTaggedNoLoss(t *testing.T) {
	data, err := os.ReadFile("../../testdata/lint/junos-set-dot1p-cnp/fixed/class-of-service-display-set.conf")
	if err != nil {
		t.Fatal(err)
	}
	edit := strings.NewReplacer("class roce-lossless queue-num 3", "class roce-lossless queue-num 4", "class nvme-tcp queue-num 4", "class nvme-tcp queue-num 5").Replace(string(data))
	for name, text := range map[string]string{"real": string(data), "queue 4 (synthetic edit)": edit} {
		root, err := junos.Parse("f", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		db := FromJunos("f", strings.Split(text, "\n"), root)
		if pfc := db.Tables["PORT_QOS_MAP"]["ae0"]["pfc_enable"].Text; pfc != "3" {
			t.Errorf("%s: pfc_enable %q, want 3", name, pfc)
		}
		var queues []string
		for _, q := range db.Queues() {
			if q.WREDProfile.Text != "" {
				queues = append(queues, q.Key)
			}
		}
		if strings.Join(queues, " ") != "ae0|3" {
			t.Errorf("%s: queues with ECN %v, want ae0|3", name, queues)
		}
	}
}

// TestFromJunosFilterClass: a firewall filter term that sets a forwarding
// class (synthetic, in Junos's braces and set forms) classifies ahead of
// the DSCP classifier; it is named as not judged at the class's word.
func TestFromJunosFilterClass(t *testing.T) {
	braces := "class-of-service {\n    forwarding-classes {\n        class roce queue-num 3 no-loss pfc-priority 3;\n    }\n}\nfirewall {\n    family inet {\n        filter ROCE-IN {\n            term t1 {\n                from {\n                    dscp 26;\n                }\n                then {\n                    forwarding-class roce;\n                    accept;\n                }\n            }\n        }\n    }\n}\n"
	set := "set class-of-service forwarding-classes class roce queue-num 3 no-loss pfc-priority 3\nset firewall family inet filter ROCE-IN term t1 from dscp 26\nset firewall family inet filter ROCE-IN term t1 then forwarding-class roce\nset firewall family inet filter ROCE-IN term t1 then accept\n"
	for name, c := range map[string]struct {
		text      string
		line, col int
	}{"braces": {braces, 14, 38}, "set": {set, 3, 71}} {
		root, err := junos.Parse("f", []byte(c.text))
		if err != nil {
			t.Fatal(err)
		}
		db := FromJunos("f", strings.Split(c.text, "\n"), root)
		want := "firewall filter ROCE-IN term t1 then forwarding-class roce (classification by filter, ahead of the classifiers)"
		if len(db.Skipped) != 1 || db.Skipped[0].Text != want || db.Skipped[0].Line != c.line || db.Skipped[0].Col != c.col {
			t.Errorf("%s: skipped %+v, want %q at %d:%d", name, db.Skipped, want, c.line, c.col)
		}
	}
}

// TestJunosCovers: Junos interface wildcards, `all` and `*` for any run
// of characters (a slash included: et-* covers et-0/0/3:1).
func TestJunosCovers(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{"all", "et-0/0/3", true},
		{"et-*", "et-0/0/3:1", true},
		{"et-0/0/*", "et-0/0/12", true},
		{"et-0/0/*", "et-0/1/2", false},
		{"xe-*", "et-0/0/3", false},
		{"*-0/0/3", "et-0/0/3", true},
		{"et-*/3", "et-0/0/3", true},
		{"et-*/3", "et-0/0/31", false},
		{"et-*3", "et-3", true},
		{"et-0*0", "et-0", false},
	} {
		if got := junosCovers(c.pattern, c.name); got != c.want {
			t.Errorf("junosCovers(%q, %q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
	}
}

// TestJunosWildcards: a named interface takes from `all` what it does not
// bind itself and keeps what it does; the covering wildcard is no port
// and is named as skipped at its line; `et-*` beside only `ae0` covers
// none and stays a port.
func TestJunosWildcards(t *testing.T) {
	var skipped []Value
	got := junosWildcards([]junosPort{
		{name: "et-0/0/1", smap: "sm1"},
		{name: "et-0/0/3", classifier: "own", cnp: "cnp"},
		{name: "all", at: Value{Text: "all", Line: 107, Col: 9}, classifier: "mydscp", cnp: "other"},
	}, &skipped)
	want := []junosPort{
		{name: "et-0/0/1", classifier: "mydscp", cnp: "other", smap: "sm1"},
		{name: "et-0/0/3", classifier: "own", cnp: "cnp"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("ports %+v, want %+v", got, want)
	}
	if len(skipped) != 1 || skipped[0].Line != 107 || !strings.HasPrefix(skipped[0].Text, "interfaces all:") {
		t.Errorf("skipped %+v", skipped)
	}
	skipped = nil
	got = junosWildcards([]junosPort{{name: "ae0", cnp: "cnp"}, {name: "et-*", classifier: "mydscp"}}, &skipped)
	if len(got) != 2 || got[1].name != "et-*" || got[0].classifier != "" || len(skipped) != 0 {
		t.Errorf("et-* beside ae0: ports %+v, skipped %+v", got, skipped)
	}
}

// TestJunosEthernet: the interfaces PFC can run on (physical Ethernet of
// any family, xle- and fte- among them, aggregated and redundant ports,
// interface-range names, wildcards) against the logical and management
// interfaces a whole configuration also names.
func TestJunosEthernet(t *testing.T) {
	for name, want := range map[string]bool{
		"et-0/0/3:1": true, "xe-0/0/1": true, "ge-0/0/0": true, "mge-0/0/36": true, "ae1": true, "reth0": true, "et-*": true, "all": true,
		"xle-0/0/1": true, "fte-0/0/2": true, "aes": true, "roce-ports": true, "ae1.0": true,
		"irb": false, "lo0": false, "vlan": false, "em0": false, "fxp0": false, "vme": false, "re0:mgmt-0": false, "re1:mgmt-0": false,
		"me0": false, "pp0": false, "st0": false, "gr-0/0/0": false, "lt-0/0/0": false, "irb.10": false, "lo0.0": false,
	} {
		if got := junosEthernet(name); got != want {
			t.Errorf("junosEthernet(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestFromJunosPortFamilies (synthetic): a no-loss class whose
// congestion-notification-profile is bound under class-of-service
// interfaces to xle-0/0/1, irb and lo0. The xle- port is judged (it has a
// PORT_QOS_MAP row with the class paused); irb and lo0 are logical
// interfaces and are not. Before, only ge-/xe-/et-/mge-/fe- names were
// kept and the xle- port was dropped silently.
func TestFromJunosPortFamilies(t *testing.T) {
	text := "set class-of-service forwarding-classes class roce queue-num 3 no-loss pfc-priority 3\n" +
		"set class-of-service congestion-notification-profile cnp input ieee-802.1 code-point 011 pfc\n" +
		"set class-of-service interfaces xle-0/0/1 congestion-notification-profile cnp\n" +
		"set class-of-service interfaces irb congestion-notification-profile cnp\n" +
		"set class-of-service interfaces lo0 congestion-notification-profile cnp\n"
	root, err := junos.Parse("f", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	db := FromJunos("f", strings.Split(text, "\n"), root)
	ports := slices.Sorted(maps.Keys(db.Tables["PORT_QOS_MAP"]))
	if !slices.Equal(ports, []string{"xle-0/0/1"}) {
		t.Fatalf("PORT_QOS_MAP ports %v, want [xle-0/0/1]", ports)
	}
	if pfc := db.Tables["PORT_QOS_MAP"]["xle-0/0/1"]["pfc_enable"].Text; pfc != "3" {
		t.Errorf("xle-0/0/1 pfc_enable %q, want 3", pfc)
	}
}
