package scenario

import "github.com/goccy/go-yaml/ast"

// A file of explicit flows holds thousands of small mappings; go-yaml's
// NodeToValue spends about 117 k instructions a flow storing their nodes
// into rawFlow. decodeFlows stores them directly instead, giving each field
// exactly the node NodeToValue would: a null value leaves the field nil,
// an anchor is stepped over and a tag is kept. It takes only the forms it
// decodes the same way (mappings of plain keys, each once; go-yaml's parser
// gives a single-pair item [src: h0] as a mapping too); for any other
// it declines and the whole body goes through NodeToValue, so a file with
// an odd flow still gets go-yaml's own error.

// splitFlows returns body with traffic.flows set to null, and the flows'
// list node, when body is a mapping whose traffic is a mapping whose flows
// is a list, each key once; otherwise ok is false. body is not modified:
// the two mappings on the path are copied, as an alias elsewhere may share
// them.
func splitFlows(body ast.Node) (rest ast.Node, flows *ast.SequenceNode, ok bool) {
	top, traffic, ok := onlyPair(body, "traffic")
	if !ok {
		return nil, nil, false
	}
	tr, fl, ok := onlyPair(traffic.Value, "flows")
	if !ok {
		return nil, nil, false
	}
	flows, ok = skipAnchors(fl.Value).(*ast.SequenceNode)
	if !ok {
		return nil, nil, false
	}
	nf := *fl
	nf.Value = ast.Null(fl.Value.GetToken())
	nt := *traffic
	nt.Value = replacePair(tr, fl, &nf)
	return replacePair(top, traffic, &nt), flows, true
}

// onlyPair returns the mapping under n's anchors and its one pair whose key
// is the plain key; ok is false when n is not a mapping or holds the key
// other than once as a plain string.
func onlyPair(n ast.Node, key string) (m *ast.MappingNode, pair *ast.MappingValueNode, ok bool) {
	m, isMap := skipAnchors(n).(*ast.MappingNode)
	if !isMap {
		return nil, nil, false
	}
	for _, kv := range m.Values {
		k, plain := plainKey(kv)
		if !plain {
			return nil, nil, false
		}
		if k == key {
			if pair != nil {
				return nil, nil, false
			}
			pair = kv
		}
	}
	return m, pair, pair != nil
}

// replacePair returns a copy of m with old replaced by pair.
func replacePair(m *ast.MappingNode, old, pair *ast.MappingValueNode) *ast.MappingNode {
	c := *m
	c.Values = make([]*ast.MappingValueNode, len(m.Values))
	for i, kv := range m.Values {
		if kv == old {
			kv = pair
		}
		c.Values[i] = kv
	}
	return &c
}

// decodeFlows decodes the flow list as NodeToValue would into []*rawFlow;
// ok is false for a form it leaves to NodeToValue.
func decodeFlows(seq *ast.SequenceNode) ([]*rawFlow, bool) {
	flows := make([]*rawFlow, len(seq.Values))
	store := make([]rawFlow, len(seq.Values))
	for i, item := range seq.Values {
		m, isMap := skipAnchors(item).(*ast.MappingNode)
		if !isMap {
			return nil, false
		}
		f := &store[i]
		var seen uint16
		for _, kv := range m.Values {
			k, plain := plainKey(kv)
			if !plain {
				return nil, false
			}
			dst, bit := f.field(k)
			if dst == nil || seen&bit != 0 || kv.Value == nil {
				return nil, false
			}
			seen |= bit
			switch v := skipAnchors(kv.Value).(type) {
			case *ast.AliasNode:
				return nil, false
			case *ast.NullNode:
				// A bare null leaves the field unset; an anchored one
				// is kept, as NodeToValue does.
				if v != kv.Value {
					*dst = v
				}
			default:
				*dst = v
			}
		}
		flows[i] = f
	}
	return flows, true
}

// plainKey returns kv's key when it is a plain or quoted string.
func plainKey(kv *ast.MappingValueNode) (string, bool) {
	s, ok := kv.Key.(*ast.StringNode)
	if !ok {
		return "", false
	}
	return s.Value, true
}

// skipAnchors returns the node under n's anchors, as NodeToValue stores it.
func skipAnchors(n ast.Node) ast.Node {
	for {
		a, ok := n.(*ast.AnchorNode)
		if !ok {
			return n
		}
		n = a.Value
	}
}

// field returns the field that key k names and a bit of its own, nil for
// none.
func (f *rawFlow) field(k string) (*ast.Node, uint16) {
	switch k {
	case "src":
		return &f.Src, 1 << 0
	case "dst":
		return &f.Dst, 1 << 1
	case "bytes":
		return &f.Bytes, 1 << 2
	case "start":
		return &f.Start, 1 << 3
	case "dscp":
		return &f.DSCP, 1 << 4
	case "priority":
		return &f.Priority, 1 << 5
	case "rate":
		return &f.Rate, 1 << 6
	case "after":
		return &f.After, 1 << 7
	case "after_count":
		return &f.AfterN, 1 << 8
	case "name":
		return &f.Name, 1 << 9
	}
	return nil, 0
}
