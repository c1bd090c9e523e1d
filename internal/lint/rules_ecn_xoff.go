package lint

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/sonic"
	"rocelab/internal/unit"
)

// pgXoff is where RoCE's ingress priority group on a config_db port sends
// XOFF when its port alone feeds a congested queue and the pool is
// otherwise empty: SAI's dynamic threshold lets a group hold 2^dynamic_th
// of the pool's free space (saibuffer.h SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH,
// "the threshold is set to the 2^n of available buffer of the pool"), so
// a group alone stops at s = α·(pool − s), α/(1+α) of the pool, on top of
// its reserved size (SAI_BUFFER_PROFILE_ATTR_BUFFER_SIZE); a static_th is
// the shared threshold itself. Any other use of the pool lowers it, so a
// WRED minimum at or above it marks nothing before PFC pauses.
type pgXoff struct {
	Port, Profile string
	Pool          unit.Bytes
	PoolName      string
	Alpha         float64    // 2^dynamic_th; 0 with a static threshold
	Static        unit.Bytes // static_th
	Reserved      unit.Bytes // the profile's size
	Evidence      []Evidence
}

// At is the group's occupancy when it sends XOFF.
func (x pgXoff) At() unit.Bytes {
	if x.Static > 0 {
		return x.Reserved + min(x.Static, x.Pool)
	}
	return x.Reserved + unit.Bytes(alphaShareOf(x.Alpha)*float64(x.Pool))
}

// How says how At is reached, for a finding.
func (x pgXoff) How() string {
	reserved := ""
	if x.Reserved > 0 {
		reserved = fmt.Sprintf(" plus its %v reserved size", x.Reserved)
	}
	if x.Static > 0 {
		return fmt.Sprintf("BUFFER_PROFILE %s's static_th %v%s, on %s", x.Profile, x.Static, reserved, x.Port)
	}
	return fmt.Sprintf("BUFFER_PROFILE %s's α = %s: α/(1+α) of %s's %v%s, on %s", x.Profile, alphaFrac(x.Alpha), x.PoolName, x.Pool, reserved, x.Port)
}

// alphaFrac writes α = 2^n as a whole number or 1/2^k.
func alphaFrac(a float64) string {
	if a < 1 {
		return fmt.Sprintf("1/%g", 1/a)
	}
	return fmt.Sprintf("%g", a)
}

// roceXoff returns the lowest XOFF point of RoCE's priority group over
// the ports given: the BUFFER_PG row of the group its tc_to_pg_map gives
// RoCE's class, its lossless profile's dynamic_th (or static_th) and
// reserved size, and its pool's BUFFER_POOL size. ok is false when no
// port's group, profile and pool size are all in the config (a fragment,
// or the dynamic buffer model, whose pool sizes buffermgrd computes).
func (m *Model) roceXoff(db *sonic.ConfigDB, ports []string) (best pgXoff, ok bool) {
	for _, p := range m.rocePaths(db) {
		if !slices.Contains(ports, p.pq.Port) || !p.path.PGKnown {
			continue
		}
		x, found := pgXoffOf(db, p.pq, p.path.PG)
		if found && (!ok || x.At() < best.At()) {
			best, ok = x, true
		}
	}
	return best, ok
}

// lowestXoff is the lowest XOFF point of RoCE's priority group over every
// port of the config_dbs given, or 0: an `ecnconfig -l` profile given
// beside them names no port, and is judged against it as it is at their
// fastest PORT speed.
func (m *Model) lowestXoff() unit.Bytes {
	var best unit.Bytes
	for _, db := range m.Sonic {
		var ports []string
		for _, pq := range db.PortQoSMaps() {
			ports = append(ports, pq.Port)
		}
		if x, ok := m.roceXoff(db, ports); ok && (best == 0 || x.At() < best) {
			best = x.At()
		}
	}
	return best
}

// pgXoffOf reads the XOFF point of one port's priority group, from the
// BUFFER_PG row sonic.LosslessPGs finds for it. A group no row covers
// (buffermgrd writes its row) or whose port's rows name a profile the
// config lacks is not judged.
func pgXoffOf(db *sonic.ConfigDB, pq sonic.PortQoS, pg int) (pgXoff, bool) {
	lossless, _, known := db.LosslessPGs(pq)
	row, ok := lossless[pg]
	if !known || !ok || row == pq.PFCEnableAt {
		return pgXoff{}, false
	}
	port := pq.Port
	name := strings.TrimSpace(row.Text)
	prof, ok := db.Profile(name)
	if !ok || prof.Xoff <= 0 {
		return pgXoff{}, false
	}
	poolName := strings.TrimSpace(prof.Pool.Text)
	size, sizeAt, ok := db.PoolSize(poolName)
	if !ok || size <= 0 {
		return pgXoff{}, false
	}
	x := pgXoff{Port: port, Profile: name, Pool: unit.Bytes(size), PoolName: poolName, Evidence: evs(sonicEv(db, row), sonicEv(db, sizeAt))}
	if prof.Size > 0 {
		x.Reserved = unit.Bytes(prof.Size)
		x.Evidence = evs(append(x.Evidence, sonicEv(db, prof.SizeAt))...)
	}
	mode, _ := db.Field("BUFFER_POOL", poolName, "mode")
	static := strings.EqualFold(strings.TrimSpace(mode.Text), "static")
	th, err := strconv.Atoi(strings.TrimSpace(prof.DynamicThAt.Text))
	switch {
	case static && prof.Static > 0:
		st, _ := db.Field("BUFFER_PROFILE", name, "static_th")
		x.Static = unit.Bytes(prof.Static)
		x.Evidence = evs(append(x.Evidence, sonicEv(db, st))...)
	case !static && err == nil && th >= alphaLowest && th <= alphaHighest && !spectrumAlpha(db, th):
		x.Alpha = math.Ldexp(1, th)
		x.Evidence = evs(append(x.Evidence, sonicEv(db, prof.DynamicThAt))...)
	default:
		return pgXoff{}, false
	}
	return x, true
}
