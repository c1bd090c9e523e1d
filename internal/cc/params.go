package cc

import (
	"fmt"
	"strings"
)

// Param is one knob of TIMELY or HPCC (C is the algorithm's configuration):
// one row of the table that the scenario loader and docs/cc.md read, as
// Knob is for DCQCN. Values are integers in Unit; fractions are in 1/1000.
type Param[C any] struct {
	Name string
	Unit string
	// Min and Max bound the values Set accepts.
	Min, Max int64
	// Paper and NS3 are the values of the two presets: the algorithm's
	// paper, and the HPCC ns-3 model's run.py at 100 Gb/s.
	Paper, NS3 int64
	// Meaning says in one line what the knob does here; Note qualifies the
	// source or the value.
	Meaning, Note string

	field func(*C) *int64
}

// params is a knob table with the operations every configuration shares.
type params[C any] struct {
	algo  string
	table []Param[C]
}

func (p *params[C]) lookup(name string) (*Param[C], bool) {
	for i := range p.table {
		if p.table[i].Name == name {
			return &p.table[i], true
		}
	}
	return nil, false
}

// Names returns the knob names in table order.
func (p *params[C]) Names() []string {
	ns := make([]string, len(p.table))
	for i := range p.table {
		ns[i] = p.table[i].Name
	}
	return ns
}

func (p *params[C]) unknown(name string) error {
	return fmt.Errorf("cc: unknown %s knob %q (known: %s)", p.algo, name, strings.Join(p.Names(), ", "))
}

func (p *params[C]) check(k *Param[C], v int64) error {
	if v < k.Min || v > k.Max {
		return fmt.Errorf("cc: %s = %d out of range: allowed %d..%d %s (%s)", k.Name, v, k.Min, k.Max, k.Unit, k.Meaning)
	}
	return nil
}

func (p *params[C]) set(c *C, name string, v int64) error {
	k, ok := p.lookup(name)
	if !ok {
		return p.unknown(name)
	}
	if err := p.check(k, v); err != nil {
		return err
	}
	*k.field(c) = v
	return nil
}

func (p *params[C]) get(c *C, name string) (int64, error) {
	k, ok := p.lookup(name)
	if !ok {
		return 0, p.unknown(name)
	}
	return *k.field(c), nil
}

func (p *params[C]) validate(c *C) error {
	for i := range p.table {
		if err := p.check(&p.table[i], *p.table[i].field(c)); err != nil {
			return err
		}
	}
	return nil
}

// preset fills c with the named preset's values: "paper" or "ns3".
func (p *params[C]) preset(c *C, name string) error {
	if name != "paper" && name != "ns3" {
		return fmt.Errorf("cc: unknown %s preset %q (known: paper, ns3)", p.algo, name)
	}
	for i := range p.table {
		v := p.table[i].Paper
		if name == "ns3" {
			v = p.table[i].NS3
		}
		*p.table[i].field(c) = v
	}
	return nil
}

// clamped returns c with every knob moved into its range.
func (p *params[C]) clamped(c C) C {
	for i := range p.table {
		k := &p.table[i]
		f := k.field(&c)
		*f = min(max(*f, k.Min), k.Max)
	}
	return c
}

// Table returns the knob table, in a fixed order, without the accessors.
func (p *params[C]) Table() []Param[C] {
	out := append([]Param[C](nil), p.table...)
	for i := range out {
		out[i].field = nil
	}
	return out
}
