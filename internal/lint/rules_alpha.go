package lint

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"rocelab/internal/doctor"
	"rocelab/internal/sonic"
	"rocelab/internal/unit"
)

// The dynamic_th range the stock lossless priority-group profiles of
// sonic-buildimage's device tree span (pg_profile_lookup.ini and the
// buffers_defaults templates, 285 and 741 files at 086b03bd): -6 on
// Broadcom DNX platforms (Arista 7280R3 and 7800R3, Nokia IXR7250) to 1
// (Marvell, Broadcom Trident 3); 0 on NVIDIA Spectrum and in the dynamic
// buffer model's default_dynamic_th. Barefoot Tofino platforms alone run
// 7. Mellanox's SAI (mlnx_sai_buffer.c) reads -8 and below as α = 0 and 7
// and above as an unbounded α; sonic-buffer-profile.yang allows -8..7.
const (
	alphaLowest  = -8
	alphaHighest = 7
	alphaLow     = -7 // at or below: below every stock lossless PG profile
	alphaHigh    = 3  // at or above: one congested group takes 8/9 of what is free
)

// sonicAlpha judges the dynamic_th of each lossless BUFFER_PROFILE (one
// with xoff, or headroom_type dynamic) and the dynamic buffer model's
// default_dynamic_th: the share α/(1+α) of the pool's free space one
// priority group may hold before it reaches XOFF.
func sonicAlpha(db *sonic.ConfigDB) []doctor.Finding {
	if db.Vendor != "" {
		return nil
	}
	// Rows of one value and pool are one finding (buffermgrd's profiles
	// for each speed and cable share theirs).
	type group struct {
		rows []string
		vals []sonic.Value
		pool sonic.Value
	}
	var groups []*group
	add := func(row string, v, pool sonic.Value) {
		for _, g := range groups {
			if strings.TrimSpace(g.vals[0].Text) == strings.TrimSpace(v.Text) && strings.TrimSpace(g.pool.Text) == strings.TrimSpace(pool.Text) {
				g.rows, g.vals = append(g.rows, row), append(g.vals, v)
				return
			}
		}
		groups = append(groups, &group{rows: []string{row}, vals: []sonic.Value{v}, pool: pool})
	}
	for _, name := range db.Tables["BUFFER_PROFILE"].Keys() {
		prof, ok := db.Profile(name)
		if ok && prof.KeepsHeadroom() && prof.DynamicThAt.Text != "" {
			add("BUFFER_PROFILE|"+name, prof.DynamicThAt, prof.Pool)
		}
	}
	for _, key := range db.Tables["DEFAULT_LOSSLESS_BUFFER_PARAMETER"].Keys() {
		if v, ok := db.Field("DEFAULT_LOSSLESS_BUFFER_PARAMETER", key, "default_dynamic_th"); ok {
			add("DEFAULT_LOSSLESS_BUFFER_PARAMETER|"+key, v, sonic.Value{Text: "ingress_lossless_pool"})
		}
	}
	var fs []doctor.Finding
	for _, g := range groups {
		if f, bad := judgeAlpha(db, strings.Join(g.rows, ", "), g.vals[0], g.pool); bad {
			for _, v := range g.vals[1:] {
				f.Evidence = append(f.Evidence, sonicEv(db, v))
			}
			f.Evidence = evs(f.Evidence...)
			fs = append(fs, f)
		}
	}
	return fs
}

// judgeAlpha returns the finding for one lossless dynamic_th, if it is
// out of range or outside what SONiC ships for lossless priority groups.
func judgeAlpha(db *sonic.ConfigDB, row string, v, pool sonic.Value) (doctor.Finding, bool) {
	subject := db.File + " " + row
	f := doctor.Finding{ID: "pfc.pg.dynamic_th", Severity: doctor.Warn, Layer: doctor.LayerFabric, Subject: subject, Evidence: evs(sonicEv(db, v))}
	n, err := strconv.Atoi(strings.TrimSpace(v.Text))
	if err != nil {
		f.Severity = doctor.Error
		f.Title = fmt.Sprintf("%s: dynamic_th %q is not an integer", subject, v.Text)
		f.Mechanism = "dynamic_th is SAI's shared dynamic threshold, an integer exponent read as α = 2^dynamic_th; sonic-buffer-profile.yang allows only the integers -8..7, so this row is refused or read as some other value, and the priority group's share of the pool is not the one meant."
		f.Fix = "An integer dynamic_th: " + doctor.DynamicThFix
		return f, true
	}
	switch {
	case n < alphaLowest || n > alphaHighest:
		f.Severity = doctor.Error
		f.Title = fmt.Sprintf("%s: dynamic_th %d is outside -8..7, the range SONiC's YANG model allows", subject, n)
		f.Mechanism = "dynamic_th is SAI's shared dynamic threshold, an int8 read as α = 2^dynamic_th; sonic-buffer-profile.yang refuses values outside -8..7, and a SAI that takes the row clamps it (Mellanox's reads -8 and below as α = 0, 7 and above as unbounded), so the priority group's share of the pool is not the one written."
		f.Fix = "dynamic_th within -8..7: SONiC's lossless profiles run -6..1 (0 on NVIDIA Spectrum, 7 only on Barefoot Tofino)."
	case n <= alphaLow:
		f.Title = fmt.Sprintf("%s: lossless dynamic_th %d (%s) lets the priority group hold %s before it sends XOFF: it pauses its upstream at light load", subject, n, alphaText(db, n), alphaShare(db, n, pool))
		f.Mechanism = "A lossless priority group may take α/(1+α) of the pool's free space before it reaches XOFF and pauses the port upstream. With α this small the group fills after a few packets of any burst, so PFC fires at low load and its pauses spread upstream, stopping every flow of the class behind them. SONiC's stock lossless profiles go no lower than -6 (Broadcom DNX); -8 appears only in Mellanox's zero profiles, which give unused ports no buffer at all (its SAI reads -8 as α = 0)."
		f.Fix = doctor.DynamicThFix
	case n >= alphaHigh && !db.Tofino():
		f.Title = fmt.Sprintf("%s: lossless dynamic_th %d (%s) lets one congested priority group hold %s, leaving the other lossless and lossy traffic of the pool little", subject, n, alphaText(db, n), alphaShare(db, n, pool))
		f.Mechanism = "A priority group may take α/(1+α) of the pool's free space before it sends XOFF. With α of 8 or more one incast port fills nearly the whole pool before it pauses, so every other port's lossless groups reach their own thresholds early and pause, and lossy queues sharing the pool drop. SONiC's stock lossless profiles go no higher than 1 (α = 2) except on Barefoot Tofino, whose profiles run 7."
		f.Fix = doctor.DynamicThFix
		if n == alphaHighest && !namesPlatform(db) {
			// Tofino's stock value in a fragment that does not say
			// which switch it is from (sonic-mgmt#7016's T1 profiles).
			f.Severity = doctor.Info
			f.Title += "; 7 is the stock value on Barefoot Tofino platforms, and the input names no platform"
			f.Fix = "If the switch is not a Barefoot Tofino one: " + f.Fix + " Giving DEVICE_METADATA (platform) beside the fragment has it judged."
		}
	default:
		return doctor.Finding{}, false
	}
	return f, true
}

// namesPlatform reports whether DEVICE_METADATA says which switch the
// config is from.
func namesPlatform(db *sonic.ConfigDB) bool {
	_, p := db.Field("DEVICE_METADATA", "localhost", "platform")
	_, h := db.Field("DEVICE_METADATA", "localhost", "hwsku")
	return p || h
}

// spectrumAlpha reports whether Mellanox SAI's reading of the ends
// applies: -8 and below are α = 0, 7 and above unbounded.
func spectrumAlpha(db *sonic.ConfigDB, n int) bool {
	return db.Spectrum() && (n <= alphaLowest || n >= alphaHighest)
}

// alphaText is α = 2^n as written in the finding, as the platform reads
// it when DEVICE_METADATA names one whose SAI reads the ends apart.
func alphaText(db *sonic.ConfigDB, n int) string {
	switch {
	case spectrumAlpha(db, n) && n < 0:
		return "α = 0 on NVIDIA Spectrum, whose SAI reads -8 and below so"
	case spectrumAlpha(db, n):
		return "α unbounded on NVIDIA Spectrum, whose SAI reads 7 and above so"
	case n < 0:
		return fmt.Sprintf("α = 1/%d", 1<<(-n))
	}
	return fmt.Sprintf("α = %d", 1<<n)
}

// alphaShareOf is the share α/(1+α) of a pool that a priority group with
// dynamic threshold α holds, alone in the empty pool, when it reaches its
// limit: s = α·(pool − s).
func alphaShareOf(alpha float64) float64 {
	return alpha / (1 + alpha)
}

// alphaShare is the share of the pool's free space one priority group may
// hold, in bytes of the pool when BUFFER_POOL gives its size.
func alphaShare(db *sonic.ConfigDB, n int, pool sonic.Value) string {
	frac := alphaShareOf(math.Ldexp(1, n))
	if spectrumAlpha(db, n) {
		if n < 0 {
			return "none of the pool's free space (only its reserved size)"
		}
		return "all of the pool's free space"
	}
	pct := fmt.Sprintf("%.3g %% of the pool's free space", 100*frac)
	name := strings.TrimSpace(pool.Text)
	bytes, _, ok := db.PoolSize(name)
	if !ok || bytes <= 0 {
		return pct
	}
	return fmt.Sprintf("%s (%v of %s's %v when it is empty)", pct, unit.Bytes(frac*float64(bytes)), name, unit.Bytes(bytes))
}
