package lint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/doctor"
	"rocelab/internal/sonic"
	"rocelab/internal/unit"
)

// sonicSharedHeadroom checks each shared headroom pool (a BUFFER_POOL with
// an xoff, SAI_BUFFER_POOL_ATTR_XOFF_SIZE, which SAI defines for ingress
// pools only: an egress pool's is skipped) against the headroom of one lossless priority group drawing on
// it: the largest xoff of the lossless profiles of that pool the BUFFER_PG
// rows name (every lossless profile of the pool in a config without
// BUFFER_PG rows).
func sonicSharedHeadroom(db *sonic.ConfigDB) []doctor.Finding {
	var used []string
	for _, pg := range db.PGs() {
		used = append(used, strings.TrimSpace(pg.Profile.Text))
	}
	var fs []doctor.Finding
	for _, pool := range db.Tables["BUFFER_POOL"].Keys() {
		v, _ := db.Field("BUFFER_POOL", pool, "xoff")
		shp, err := strconv.ParseInt(strings.TrimSpace(v.Text), 10, 64)
		if typ, _ := db.Field("BUFFER_POOL", pool, "type"); err != nil || shp <= 0 || strings.EqualFold(strings.TrimSpace(typ.Text), "egress") {
			continue
		}
		var big *sonic.BufferProfile
		for _, name := range db.Tables["BUFFER_PROFILE"].Keys() {
			p, _ := db.Profile(name)
			if p.Xoff <= 0 || strings.TrimSpace(p.Pool.Text) != pool || len(used) > 0 && !slices.Contains(used, name) {
				continue
			}
			if big == nil || p.Xoff > big.Xoff {
				big = p
			}
		}
		if big == nil || big.Xoff <= shp {
			continue
		}
		subject := fmt.Sprintf("%s BUFFER_POOL %s", db.File, pool)
		fs = append(fs, doctor.Finding{
			ID: "pfc.headroom.shared_pool", Severity: doctor.Error, Layer: doctor.LayerFabric,
			Title: fmt.Sprintf("%s: its shared headroom pool (xoff %d B) is smaller than the headroom of one lossless priority group drawing on it (BUFFER_PROFILE %s, xoff %d B): one group's pause can fill it",
				subject, shp, big.Name, big.Xoff),
			Subject:  subject,
			Evidence: evs(sonicEv(db, v), sonicEv(db, big.XoffAt)),
			Mechanism: "With a shared headroom pool (SAI_BUFFER_POOL_ATTR_XOFF_SIZE on an ingress pool) the lossless priority groups do not each reserve their xoff (SAI_BUFFER_PROFILE_ATTR_XOFF_TH): what arrives after a pause is held in the pool's xoff, which all of them share, sized as the sum of their xoff over an over-subscription ratio (sonic-swss cfgmgr/buffer_pool_mellanox.lua: the lossless groups' xoff over DEFAULT_LOSSLESS_BUFFER_PARAMETER over_subscribe_ratio), a bet that few groups pause at once. On Spectrum each port with lossless groups keeps a small private headroom besides, outside the pool (the lua sets lossless_port_count × private_headroom aside), which absorbs no group's full xoff. " +
				fmt.Sprintf("A pool smaller than one group's xoff loses that bet on the first pause: the %v the cable and the sender still deliver after XOFF do not fit, and the lossless class drops. Often a value written in kilobytes or cells where CONFIG_DB wants bytes.", unit.Bytes(big.Xoff)),
			Fix: fmt.Sprintf("BUFFER_POOL|%s xoff at least %d B (one group's xoff), sized as the sum of the lossless groups' xoff over the over-subscription ratio; or the dynamic buffer model (Mellanox/Barefoot), where buffermgrd sizes it from over_subscribe_ratio.", pool, big.Xoff),
		})
	}
	return fs
}
