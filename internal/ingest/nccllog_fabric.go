package ingest

import (
	"strconv"
	"strings"
)

// GPUFabric is one GPU's NVLink fabric registration as NCCL 2.20 and later
// print it at init when NVML reports the GPU as part of an NVLink fabric
// (init.cc: "MNNVL busId 0x%lx fabric UUID %lx.%lx cliqueId 0x%x state %d
// healthMask 0x%x", NCCL 2.30.7 init.cc:775). State is NVML's
// nvmlGpuFabricState_t: 1 not started, 2 in progress, 3 completed; NCCL
// uses multi-node NVLink only when every rank's GPU says 3 (mnnvl.cc).
// Health is NVML's health mask: two-bit fields for degraded bandwidth
// (shift 0), route recovery (2), route unhealthy (4) and access timeout
// recovery (6), each 0 not supported, 1 true, 2 false, and from bit 8 a
// four-bit incorrect-configuration code (0 not supported, 1 none, 2 and
// up a fault).
type GPUFabric struct {
	Host, BusID, UUID, Clique string
	State                     int
	Health                    uint64
	Evidence                  Evidence
}

// addFabric records one "MNNVL busId ..." line, once per host, GPU, state
// and mask: every communicator's init prints it again, and a GPU whose
// registration or health changed between two inits is read both times.
func (l *NCCLLog) addFabric(host, msg string, ev Evidence) {
	bus, stateW, maskW := wordAfter(msg, "MNNVL busId "), wordAfter(msg, " state "), wordAfter(msg, " healthMask ")
	state, errS := strconv.Atoi(stateW)
	health, errH := strconv.ParseUint(strings.TrimPrefix(maskW, "0x"), 16, 32)
	if bus == "" || errS != nil || errH != nil || len(l.Fabric) >= maxDistinct || !l.once(seenKey{kind: 'F', a: host, b: bus, c: stateW, d: maskW}) {
		return
	}
	l.Fabric = append(l.Fabric, GPUFabric{Host: host, BusID: strings.Clone(bus), UUID: strings.Clone(wordAfter(msg, " fabric UUID ")),
		Clique: strings.Clone(wordAfter(msg, " cliqueId ")), State: state, Health: health, Evidence: ev})
}
