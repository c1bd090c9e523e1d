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
	// DefaultJobDuration caps a scenario with an NCCL job (nccl_tests,
	// training) that gives no duration: the job ends the run, and a cap of
	// a simulated minute lets a sweep to 8 GiB on 100G finish. The cost
	// estimate follows the job, not the cap.
	DefaultJobDuration = 60 * unit.Second

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

	// PFC (IEEE 802.1Qbb; SONiC headroom model, sonic-swss
	// cfgmgr/buffer_headroom_mellanox.lua).
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
	// Huawei's AI Fabric guidance assumes (Huawei CloudEngine AI Fabric guide, support.huawei.com EDOC1100155250).
	DefaultECNRTT = 20 * unit.Microsecond

	// DefaultVendor is the switch OS configs are generated for.
	DefaultVendor = "generic"

	// PFC watchdog, on by default as on SONiC (DEVICE_METADATA
	// default_pfcwd_status enable; pfcwd start_default's times, sonic-utilities
	// pfcwd/main.py).
	DefaultWatchdogDetect  = 200 * unit.Millisecond
	DefaultWatchdogRestore = 200 * unit.Millisecond

	// Host NIC: RoCE path MTU 4096 (Ethernet MTU ≥ 4192), DSCP 26 (TOS 106),
	// which the default map puts on priority 3.
	DefaultMTU  = 4096
	DefaultDSCP = 26

	DefaultSampleInterval = 10 * unit.Microsecond
	// DefaultSampleQPs is how many rate-limited QPs per NIC have their rate
	// and α sampled.
	DefaultSampleQPs = 4

	// RDMA NIC (mlx5 defaults from mlxconfig q on a ConnectX-5 Ex; NCCL
	// src/transport/net_ib at v2.30.7; NVIDIA "Adaptive Retransmission"
	// parameters): DCQCN with the mlx5 defaults on
	// every priority (ROCE_CC_PRIO_MASK 0xFF in mlxconfig dumps), the RC
	// local ACK timeout and retry count NCCL sets since 2.23 (20, 7),
	// adaptive retransmission's 4 us time base, the Linux minimum TCP RTO,
	// and a receive buffer the size mlnx_qos reports (max_buffer_size
	// 262016 on ConnectX-5).
	DefaultCC = "dcqcn"
	// DefaultNICPorts is a single-port adapter: mlxconfig then takes _P1
	// parameters only.
	DefaultNICPorts     = 1
	DefaultDCQCNPreset  = "mlx5"
	DefaultQPTimeout    = 20
	DefaultRetryCnt     = 7
	DefaultAckCoalesce  = 4
	DefaultAdaptiveBase = 4 * unit.Microsecond
	DefaultTCPRTO       = 200 * unit.Millisecond
	DefaultRxBuffer     = 262016 * unit.Byte
	DefaultTTL          = 64
	// DefaultCompletionDelay is how long after a NIC writes a completion
	// the application sees it: the CQE's DMA over PCIe and the poll that
	// finds it. An assumption (a PCIe posted write takes a few hundred
	// nanoseconds); it is also the lookahead from the fabric to the
	// workloads that lets a run use several cores.
	DefaultCompletionDelay = 200 * unit.Nanosecond
	// An out-of-order responder's reorder buffer and NAK threshold (twin
	// choices: NVIDIA documents out-of-order placement, not its sizes):
	// 1024 PSNs hold 4 MiB at MTU 4096, more than a 100G path's BDP; a
	// responder set to receive out of order NAKs a hole once a packet
	// more than 64 PSNs past it arrived (21 us at 100G and 4 KB), longer
	// than the reordering spraying causes on a fabric whose ECN thresholds
	// hold queues near Kmin; one there for selective repeat only NAKs at
	// once (0), as IRN does.
	DefaultReorderWindow = 1024
	DefaultNAKThreshold  = 64

	// DefaultFlowletGap is the idle time that starts a new flowlet: within
	// LetFlow's 50-500 us (NSDI 2017), at its low end for 100G links whose
	// queues the ECN thresholds keep near Kmin (150 KB, 12 us).
	DefaultFlowletGap = 50 * unit.Microsecond

	// PHY: IEEE 802.3 allows a transmit clock ±100 ppm off nominal; RS-FEC
	// codewords are 5280 bits (RS(528,514), 25G-lane links up to 100G) or
	// 5440 bits (RS(544,514), 50G-lane links at 200G and 400G).
	DefaultClockPPM = 100.0
)

// FECCodeword returns the RS-FEC codeword length in bits at rate.
func FECCodeword(rate unit.BitRate) unit.Bytes {
	if rate > 100*unit.Gbps {
		return 5440 / 8
	}
	return 5280 / 8
}

// DefaultStrict is the default set of strict-priority queues: 6 (CNPs) and 7.
const DefaultStrict = 1<<6 | 1<<7

// DefaultHash is the default ECMP hash: the 5-tuple, whose UDP source port
// carries the per-QP entropy.
const DefaultHash = fabric.FiveTuple
