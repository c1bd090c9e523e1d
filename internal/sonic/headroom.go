package sonic

import (
	"fmt"
	"strconv"
	"strings"

	"rocelab/internal/headroom"
	"rocelab/internal/unit"
)

// PortHeadroom is what a config_db says about the headroom of a port's
// lossless PGs: the formula input, and which inputs the file does not give
// and were assumed.
type PortHeadroom struct {
	Input headroom.Input
	// ASIC is the ASIC_TABLE row of DEVICE_METADATA's platform, "" when
	// the platform is absent or unknown.
	ASIC string
	// Assumed lists the inputs the file does not give, each with the value
	// used ("mtu 9100 (SONiC's default)").
	Assumed []string
	// Speed and Cable are where the port's speed and cable length are
	// written.
	Speed, Cable Value
}

// DefaultPortMTU is SONiC's port MTU when PORT has none.
const DefaultPortMTU = 9100

// LosslessPattern returns LOSSLESS_TRAFFIC_PATTERN's mtu and
// small_packet_percentage (the first row), and whether the file has them.
func (db *ConfigDB) LosslessPattern() (mtu int64, small float64, ok bool) {
	t := db.Tables["LOSSLESS_TRAFFIC_PATTERN"]
	for _, k := range t.Keys() {
		m, err1 := strconv.ParseInt(t[k]["mtu"].Text, 10, 64)
		s, err2 := strconv.ParseFloat(t[k]["small_packet_percentage"].Text, 64)
		if err1 == nil && err2 == nil {
			return m, s, true
		}
	}
	return 0, 0, false
}

// PortHeadroom returns the headroom input of port: its PORT speed and mtu,
// its CABLE_LENGTH, the ASIC of DEVICE_METADATA|localhost|platform, the
// LOSSLESS_TRAFFIC_PATTERN, and whether ingress_lossless_pool has a shared
// headroom pool (xoff). Without an ASIC, bytes are counted (no cell
// overhead) with the MAC/PHY delay every Spectrum has (0.8 KiB): the need
// is then a lower bound, which the Assumed list says. Without a
// LOSSLESS_TRAFFIC_PATTERN, SONiC's default (mtu 1024, 50 %) is used. It returns false when the port's speed or
// cable length is missing.
func (db *ConfigDB) PortHeadroom(port string) (PortHeadroom, bool) {
	metres, cable, ok := db.CableLength(port)
	if !ok {
		return PortHeadroom{}, false
	}
	return db.portHeadroom(port, metres, cable)
}

// PortHeadroomNamed is PortHeadroom for a port without a CABLE_LENGTH
// entry whose BUFFER_PG row names profile, a lossless profile named as
// buffermgrd names them (pg_lossless_<speed>_<cable>_profile) for the
// port's own speed: the name records the cable the profile was sized for
// and stands in for the missing length. The row's profile field is the
// place that shows it, and Assumed says so. It returns false when the port
// has a CABLE_LENGTH entry, parsable or not (buffermgrd matches no profile
// to a malformed one, so the name says nothing of the cable), or the name is not buffermgrd's or is for another
// speed.
func (db *ConfigDB) PortHeadroomNamed(port string, profile Value) (PortHeadroom, bool) {
	if _, ok := db.CableEntry(port); ok {
		return PortHeadroom{}, false
	}
	pn, named := headroom.ParseProfileName(strings.TrimSpace(profile.Text))
	speed, _ := db.Field("PORT", port, "speed")
	mbps, err := strconv.ParseInt(speed.Text, 10, 64)
	if !named || err != nil || pn.Speed != unit.BitRate(mbps)*unit.Mbps {
		return PortHeadroom{}, false
	}
	h, ok := db.portHeadroom(port, pn.Cable.Metres(), profile)
	h.Assumed = append(h.Assumed, fmt.Sprintf("cable length %gm, read from the profile's name as buffermgrd writes it: the port has no CABLE_LENGTH entry", pn.Cable.Metres()))
	return h, ok
}

// portHeadroom is PortHeadroom with the port's cable length given, and
// cable the place that shows it.
func (db *ConfigDB) portHeadroom(port string, metres float64, cable Value) (PortHeadroom, bool) {
	var h PortHeadroom
	speed, okS := db.Field("PORT", port, "speed")
	mbps, err := strconv.ParseInt(speed.Text, 10, 64)
	if !okS || err != nil || mbps <= 0 || metres < 0 {
		return h, false
	}
	h.Speed, h.Cable = speed, cable
	in := headroom.Floor(unit.BitRate(mbps)*unit.Mbps, unit.Length(metres*float64(unit.Metre)), DefaultPortMTU)
	if v, ok := db.Field("PORT", port, "mtu"); ok {
		if n, err := strconv.ParseInt(v.Text, 10, 64); err == nil && n > 0 {
			in.PortMTU = unit.Bytes(n)
		}
	} else {
		h.Assumed = append(h.Assumed, "port mtu 9100 (SONiC's default)")
	}
	if p, ok := db.Field("DEVICE_METADATA", "localhost", "platform"); ok {
		if a, ok := headroom.PlatformASIC(p.Text); ok {
			a.Apply(&in)
			h.ASIC = a.Name
		}
	}
	if h.ASIC == "" {
		h.Assumed = append(h.Assumed, "bytes, not cells, and mac_phy_delay 0.8 KiB: the ASIC is not known from DEVICE_METADATA platform, so this is a lower bound")
	}
	if mtu, small, ok := db.LosslessPattern(); ok {
		in.LosslessMTU, in.SmallPacketPercent = unit.Bytes(mtu), small
	} else {
		h.Assumed = append(h.Assumed, "LOSSLESS_TRAFFIC_PATTERN mtu 1024, small_packet_percentage 50 (SONiC's default, buffers_config.j2)")
	}
	if v, ok := db.Field("BUFFER_POOL", "ingress_lossless_pool", "xoff"); ok && v.Text != "" && v.Text != "0" {
		in.SharedHeadroomPool = true
	}
	h.Input = in
	return h, true
}
