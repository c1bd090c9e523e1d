package headroom

import (
	"strconv"
	"strings"

	"rocelab/internal/unit"
)

// Profile is what a SONiC lossless profile's name says about the port it
// was computed for. buffermgrd names the profiles it creates
// pg_lossless_<speed>_<cable>[_mtu<mtu>][_th<threshold>][_<gearbox>][_8lane]_profile
// (sonic-swss cfgmgr/buffermgrdyn.cpp getDynamicProfileName; the static
// model's buffermgr.cpp uses the first two fields only).
type Profile struct {
	Speed unit.BitRate
	Cable unit.Length
	// MTU is the port MTU of an _mtu<N> name, else 0 (SONiC's 9100).
	MTU    unit.Bytes
	Lanes8 bool
}

// ParseProfileName reads a lossless profile name, or returns false when
// the name does not follow buffermgrd's pattern.
func ParseProfileName(name string) (Profile, bool) {
	rest, ok := strings.CutPrefix(name, "pg_lossless_")
	if !ok {
		return Profile{}, false
	}
	rest, ok = strings.CutSuffix(rest, "_profile")
	if !ok {
		return Profile{}, false
	}
	f := strings.Split(rest, "_")
	if len(f) < 2 {
		return Profile{}, false
	}
	mbps, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || mbps <= 0 || mbps > 1_600_000 {
		return Profile{}, false
	}
	m, ok := strings.CutSuffix(f[1], "m")
	metres, err := strconv.ParseInt(m, 10, 64)
	if !ok || err != nil || metres < 0 || metres > 100_000 {
		return Profile{}, false
	}
	p := Profile{Speed: unit.BitRate(mbps) * unit.Mbps, Cable: unit.Length(metres) * unit.Metre}
	for _, x := range f[2:] {
		switch {
		case x == "8lane":
			p.Lanes8 = true
		case strings.HasPrefix(x, "mtu"):
			n, err := strconv.ParseInt(x[3:], 10, 64)
			if err != nil || n < 68 || n > 9216 {
				return Profile{}, false
			}
			p.MTU = unit.Bytes(n)
		}
	}
	return p, true
}

// PortMTU is the MTU of the profile's port: the name's, else SONiC's
// default port MTU, 9100.
func (p Profile) PortMTU() unit.Bytes {
	if p.MTU == 0 {
		return 9100
	}
	return p.MTU
}

// Floors returns the xoff a profile of this name needs when nothing else
// is known of its port: need by Floor (the IEEE response budget), static
// by StaticFloor (a peer that pauses within StaticPeerResponse), at its
// PortMTU and lane count.
func (p Profile) Floors() (need, static unit.Bytes) {
	mtu := p.PortMTU()
	in, st := Floor(p.Speed, p.Cable, mtu), StaticFloor(p.Speed, p.Cable, mtu)
	if p.Lanes8 {
		in.Lanes, st.Lanes = 8, 8
	}
	return Compute(in).Xoff, Compute(st).Xoff
}
