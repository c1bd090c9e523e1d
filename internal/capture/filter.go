package capture

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"rocelab/internal/wire"
)

// A FlowFilter keeps the RoCE packets between two hosts, each an IP
// address or a name the capture's Name Resolution Block gives; "" matches
// any host. Both keeps the two directions.
type FlowFilter struct {
	Src, Dst string
	Both     bool
}

// ParseFlowFilter reads "SRC>DST" (one direction) or "SRC<>DST" (both);
// either side may be empty ("h0>" is everything h0 sends).
func ParseFlowFilter(s string) (FlowFilter, error) {
	if a, b, ok := strings.Cut(s, "<>"); ok {
		return FlowFilter{Src: strings.TrimSpace(a), Dst: strings.TrimSpace(b), Both: true}, nil
	}
	if a, b, ok := strings.Cut(s, ">"); ok {
		return FlowFilter{Src: strings.TrimSpace(a), Dst: strings.TrimSpace(b)}, nil
	}
	return FlowFilter{}, fmt.Errorf("expected SRC>DST or SRC<>DST with hosts as IP addresses or names (10.0.0.1>10.0.0.2, h0<>h3, h0>), got %q", s)
}

// String formats the filter as it parses.
func (f FlowFilter) String() string {
	if f.Both {
		return f.Src + "<>" + f.Dst
	}
	return f.Src + ">" + f.Dst
}

// ParseQPN reads a queue pair number, decimal or 0x hex, of 24 bits.
func ParseQPN(s string) (uint32, error) {
	v, err := strconv.ParseUint(strings.TrimSpace(s), 0, 32)
	if err != nil || v >= 1<<24 {
		return 0, fmt.Errorf("expected a queue pair number of 24 bits such as 0x000101 or 257, got %q", s)
	}
	return uint32(v), nil
}

// filtering reports whether the options select packets.
func (o *Options) filtering() bool { return len(o.QPs) > 0 || len(o.Flows) > 0 }

// describeFilter says what the options select, for the report.
func (o *Options) describeFilter() string {
	var parts []string
	for _, q := range o.QPs {
		parts = append(parts, fmt.Sprintf("qp 0x%06x", q))
	}
	for _, f := range o.Flows {
		parts = append(parts, "flow "+f.String())
	}
	return strings.Join(parts, " or ")
}

// keep reports whether the filter keeps a frame: every pause frame (a port
// is paused, not a flow) and the RoCE packets of a selected QP or flow.
// Frames that did not decode, and other traffic, are left out.
func (a *Analysis) keep(f *wire.Frame, decoded bool) bool {
	if !decoded {
		return false
	}
	switch f.Kind {
	case wire.FrameMACControl:
		return true
	case wire.FrameRoCE:
	default:
		return false
	}
	for _, q := range a.opts.QPs {
		if f.BTH.DestQP == q {
			return true
		}
	}
	for _, fl := range a.opts.Flows {
		if a.hostIs(f.SrcIP, fl.Src) && a.hostIs(f.DstIP, fl.Dst) || fl.Both && a.hostIs(f.SrcIP, fl.Dst) && a.hostIs(f.DstIP, fl.Src) {
			return true
		}
	}
	return false
}

// hostIs reports whether ip is the host named h (an address or a name).
func (a *Analysis) hostIs(ip netip.Addr, h string) bool {
	return h == "" || ip.String() == h || a.names[ip] == h
}
