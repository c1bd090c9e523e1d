package scenario

import (
	"rocelab/internal/fabric"
	"rocelab/internal/unit"
)

// Defaults, in one place. docs/scenario.md lists them with their sources;
// a test keeps the two in step.
const (
	DefaultSeed     = 1
	DefaultDuration = 10 * unit.Millisecond

	DefaultHostRate    = 100 * unit.Gbps
	DefaultHostCable   = 3 * unit.Metre
	DefaultFabricCable = 10 * unit.Metre

	// Switch buffer and admission (SONiC: lossless dynamic_th 0 ⇒ α = 1,
	// lossy dynamic_th 3 ⇒ α = 8).
	DefaultBuffer     = 32 * unit.MiB
	DefaultAlpha      = 1.0
	DefaultAlphaLossy = 8.0
	DefaultReserve    = 0
	DefaultXONOffset  = 8 * unit.KiB

	// PFC (IEEE 802.1Qbb; SONiC headroom model, facts.md §3).
	DefaultPFCPriority   = 3
	DefaultPauseQuanta   = 0xFFFF
	DefaultPortMTU       = 9100 * unit.Byte
	DefaultMACPHYDelay   = 1 * unit.KiB
	DefaultCellOccupancy = 1.0

	// ECN/RED on the lossless queue (NVIDIA RoCE example for 100G;
	// Pmax from the HPCC ns-3 runs).
	DefaultKmin = 150 * unit.KB
	DefaultKmax = 1500 * unit.KB
	DefaultPmax = 0.2
	// DefaultECNRTT is the RTT ECN thresholds are judged against: the one
	// Huawei's AI Fabric guidance assumes (facts.md §2).
	DefaultECNRTT = 20 * unit.Microsecond

	// DefaultVendor is the switch OS configs are generated for.
	DefaultVendor = "generic"

	// PFC watchdog (SONiC pfcwd defaults).
	DefaultWatchdogDetect  = 200 * unit.Millisecond
	DefaultWatchdogRestore = 200 * unit.Millisecond

	// Host NIC: RoCE path MTU 4096 (Ethernet MTU ≥ 4192), DSCP 26 (TOS 106),
	// which the default map puts on priority 3.
	DefaultMTU  = 4096
	DefaultDSCP = 26

	DefaultSampleInterval = 10 * unit.Microsecond
)

// DefaultStrict is the default set of strict-priority queues: 6 (CNPs) and 7.
const DefaultStrict = 1<<6 | 1<<7

// DefaultHash is the default ECMP hash: the 5-tuple, whose UDP source port
// carries the per-QP entropy.
const DefaultHash = fabric.FiveTuple
