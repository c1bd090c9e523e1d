package lint

import (
	"fmt"
	"strconv"

	"rocelab/internal/doctor"
	"rocelab/internal/headroom"
	"rocelab/internal/sonic"
	"rocelab/internal/unit"
)

// Cumulus Linux's interface MTU when the configuration sets none, and the
// link speed and cable a hand-sized PFC buffer is judged at when the input
// gives neither: the lowest a RoCE fabric runs, so that the need is a
// lower bound.
const (
	cumulusMTU = 9216
	nvueSpeed  = 100 * unit.Gbps
)

// nvueHeadroom judges the PFC profiles of an NVUE configuration whose
// buffer is sized by hand (port-buffer and xoff-threshold both set): the
// room after XOFF, port-buffer minus xoff-threshold, must hold what the
// cable and the peer still send, by the formula SONiC and Cumulus's
// Spectrum switches share (headroom.Floor). Profiles NVUE sizes itself
// from cable-length are its own to get right.
func nvueHeadroom(db *sonic.ConfigDB) []doctor.Finding {
	var fs []doctor.Finding
	for _, b := range db.NVUEBuffers() {
		buf, errB := strconv.ParseInt(b.PortBuffer.Text, 10, 64)
		xoff, errX := strconv.ParseInt(b.Xoff.Text, 10, 64)
		if errB != nil || errX != nil {
			continue
		}
		var assumed []string
		speed := nvueSpeed
		if mbps, err := strconv.ParseInt(b.Speed.Text, 10, 64); err == nil && mbps > 0 {
			speed = unit.BitRate(mbps) * unit.Mbps
		} else {
			assumed = append(assumed, fmt.Sprintf("link speed %v (no interface of the profile gives one), so the need is a lower bound", speed))
		}
		metres, err := strconv.ParseFloat(b.Cable.Text, 64)
		if err != nil || metres < 0 {
			continue
		}
		if b.Cable.Line == 0 {
			assumed = append(assumed, fmt.Sprintf("cable-length %g m, Cumulus Linux's default", metres))
		}
		assumed = append(assumed, fmt.Sprintf("interface MTU %d (Cumulus Linux's default)", cumulusMTU),
			"bytes, not cells, and mac_phy_delay 0.8 KiB: the Spectrum generation is not in the configuration")
		cable := unit.Length(metres * float64(unit.Metre))
		need := headroom.Compute(headroom.Floor(speed, cable, cumulusMTU)).Xoff
		static := headroom.Compute(headroom.StaticFloor(speed, cable, cumulusMTU)).Xoff
		room := buf - xoff
		subject := fmt.Sprintf("%s qos pfc %s", db.File, b.Profile)
		if len(b.Ports) != 1 || b.Ports[0] != b.Profile {
			subject += " on " + portList(b.Ports)
		}
		calc := fmt.Sprintf("`rocelab calc headroom --speed %v --cable %gm --mtu %d` shows the terms", speed, metres, cumulusMTU)
		unset := fmt.Sprintf("nv unset qos pfc %s port-buffer; nv unset qos pfc %s xoff-threshold; nv unset qos pfc %s xon-threshold", b.Profile, b.Profile, b.Profile)
		ev := evs(sonicEv(db, b.PortBuffer), sonicEv(db, b.Xoff))
		if b.Cable.Line > 0 {
			ev = evs(append(ev, sonicEv(db, b.Cable))...)
		}
		mech := "port-buffer is the buffer reserved for the priority group and xoff-threshold how much of it fills before the switch sends XOFF; what the cable and the peer still send after that must fit in the rest. NVIDIA recommends leaving both to Cumulus Linux, which sizes them from cable-length and the link speed. "
		if room <= 0 {
			fs = append(fs, doctor.Finding{
				ID: "pfc.headroom.short", Severity: doctor.Error, Layer: doctor.LayerFabric,
				Title:     fmt.Sprintf("%s: xoff-threshold %d B is not below port-buffer %d B: nothing is left for what arrives after XOFF (%d B needed for %v on %gm)", subject, xoff, buf, int64(need), speed, metres),
				Subject:   subject,
				Evidence:  ev,
				Mechanism: mech + "With no room after XOFF, every frame in flight when the pause is sent overflows the group and lossless packets drop. " + assumedText(assumed),
				Fix:       fmt.Sprintf("Let Cumulus Linux size the buffer (%s, then set cable-length to the real cable), or make port-buffer at least xoff-threshold + %d B; %s.", unset, int64(need), calc),
			})
			continue
		}
		sev, short := doctor.HeadroomShort(unit.Bytes(room), need, static)
		if !short {
			continue
		}
		title := fmt.Sprintf("%s: port-buffer %d B minus xoff-threshold %d B leaves %d B after XOFF, below the %d B %v on %gm of cable needs", subject, buf, xoff, room, int64(need), speed, metres)
		more := "A peer that keeps sending for the IEEE response budget (394 quanta = 25216 B at 100G) after the pause overruns it and lossless packets drop. "
		if sev == doctor.Info {
			title = fmt.Sprintf("%s: port-buffer %d B minus xoff-threshold %d B leaves %d B after XOFF: enough for a peer that pauses within NVIDIA's fixed 3.8 KiB (%d B), not the IEEE budget (%d B) for %v on %gm", subject, buf, xoff, room, int64(static), int64(need), speed, metres)
			more = "NVIDIA's Spectrum switches and ConnectX NICs answer a pause within 3.8 KiB, so this holds in an all-NVIDIA fabric; a peer that takes the IEEE budget can overrun it. "
		}
		fs = append(fs, doctor.Finding{
			ID: "pfc.headroom.short", Severity: sev, Layer: doctor.LayerFabric,
			Title:     title,
			Subject:   subject,
			Evidence:  ev,
			Mechanism: mech + more + assumedText(assumed),
			Fix:       fmt.Sprintf("Let Cumulus Linux size the buffer (%s, then set cable-length to the real cable), or raise port-buffer to at least xoff-threshold + %d B; %s.", unset, int64(need), calc),
		})
	}
	return fs
}
