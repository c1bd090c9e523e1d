package doctor

import "rocelab/internal/unit"

// HeadroomShort judges the xoff of a lossless buffer profile for both
// front ends (the doctor's switch.headroom.short on `mmuconfig -l` and
// `show buffer profile`, lint's pfc.headroom.short on BUFFER_PROFILE)
// against two floors for its port: need, SONiC's formula with the IEEE
// response budget (headroom.Floor or the ASIC's row), and static, the
// same with the vendors' static tables' fixed peer response
// (headroom.StaticFloor; 0 when not known). An xoff that holds need is
// not short (ok false); one that holds static but not need is Info (it
// holds while the peer answers a pause as fast as NVIDIA's tables
// assume); below both, or below need with no static floor known, Warn.
func HeadroomShort(xoff, need, static unit.Bytes) (sev Severity, ok bool) {
	switch {
	case xoff >= need:
		return Info, false
	case static > 0 && xoff >= static:
		return Info, true
	}
	return Warn, true
}
