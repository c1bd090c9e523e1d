package scenario

import (
	"reflect"
	"strings"
	"testing"
)

// Anchors, aliases and merge keys load as if written out, and x- keys at
// the top level hold the profiles.
func TestAliases(t *testing.T) {
	withAliases := `
x-profiles:
  pfc: &pfc {enabled: true, priorities: [3], quanta: 1000}
  link: &link {rate: 400G, cable: 30m}
topology: {kind: dumbbell, left: 2, right: 1, host_link: *link, fabric_link: *link}
switch:
  pfc:
    <<: *pfc
    quanta: 2000
  ecn: {<<: [{kmin: 10KB, kmax: 100KB}, {kmin: 20KB, pmax: 0.5}], enabled: true}
traffic:
  flows:
    - &f {src: h0, dst: h2, bytes: 1MiB, name: a}
    - {<<: *f, name: b, src: h1}
`
	written := `
topology: {kind: dumbbell, left: 2, right: 1, host_link: {rate: 400G, cable: 30m}, fabric_link: {rate: 400G, cable: 30m}}
switch:
  pfc: {enabled: true, priorities: [3], quanta: 2000}
  ecn: {kmin: 10KB, kmax: 100KB, pmax: 0.5, enabled: true}
traffic:
  flows:
    - {src: h0, dst: h2, bytes: 1MiB, name: a}
    - {src: h1, dst: h2, bytes: 1MiB, name: b}
`
	a, err := Load("a.yaml", []byte(withAliases))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load("b.yaml", []byte(written))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Switch, b.Switch) || !reflect.DeepEqual(a.Host, b.Host) {
		t.Errorf("switch or host differ:\n%+v\n%+v", a.Switch, b.Switch)
	}
	if !reflect.DeepEqual(a.Flows, b.Flows) {
		t.Errorf("flows %+v, want %+v", a.Flows, b.Flows)
	}
	if !reflect.DeepEqual(a.Topo.Links, b.Topo.Links) {
		t.Errorf("links %+v, want %+v", a.Topo.Links, b.Topo.Links)
	}
}

// A mistake reached through an alias is reported where it is written, and
// alias misuse is an error at the alias.
func TestAliasErrors(t *testing.T) {
	laughs := "x-a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h"} {
		laughs += "x-" + n + ": &" + n + " [" + strings.Repeat("*"+prev+", ", 9) + "*" + prev + "]\n"
		prev = n
	}
	for _, c := range []struct{ name, yaml, want string }{
		{"bad value in a profile", `
x-p: &p {rate: 100Q}
topology: {kind: single-switch, hosts: 2, host_link: *p}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`, `bad.yaml:1:16: topology.host_link.rate: expected a positive bit rate`},
		{"unknown key in a merged profile", `
x-p: &p {enabled: true, prioritis: [3]}
topology: {kind: single-switch, hosts: 2}
switch: {pfc: {<<: *p}}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`, `bad.yaml:1:25: switch.pfc: unknown key "prioritis"`},
		{"unknown alias", `
topology: {kind: single-switch, hosts: 2, host_link: *nope}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`, "bad.yaml:1:54: unknown alias *nope"},
		{"recursive alias", "x-a: &x {b: *x}\ntopology: {kind: single-switch}", "bad.yaml:1:13: alias *x is inside its own anchor"},
		{"merge of a scalar", `
x-p: &p 3
topology: {kind: single-switch, hosts: 2}
switch: {pfc: {<<: *p}}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`, "bad.yaml:1:9: a merge key (<<) takes a mapping"},
		{"billion laughs", laughs + "topology: {kind: single-switch, hosts: 2}\ntraffic: {flows: [{src: h0, dst: h1, bytes: 1MiB, name: *h}]}", "aliases expand the scenario to more than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load("bad.yaml", []byte(strings.TrimPrefix(c.yaml, "\n")))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}
