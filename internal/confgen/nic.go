package confgen

import (
	"fmt"
	"math"
	"strings"

	"rocelab/internal/fabric"
)

// genMlnxQoS writes mlnx_qos commands for each interface: trust, PFC, the
// DSCP map entries that differ from mlx5's default, and the cable length
// (which sizes the NIC's receive-buffer headroom).
func genMlnxQoS(p *plan, o Options) (Output, error) {
	s := p.s
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	b.WriteString(p.header("mlnx_qos", "#"))
	b.WriteString("# Not persistent: run at boot (or use DCBX from the switch with LLDP).\nset -e\n")
	trust := "dscp"
	if s.Host.Trust == fabric.TrustPCP {
		trust = "pcp"
	}
	pfc := make([]string, 8)
	for q := range pfc {
		pfc[q] = "0"
		if s.Host.Priority < 0 && containsInt(p.lossless, q) || s.Host.Priority >= 0 && q == s.Host.Priority {
			pfc[q] = "1"
		}
	}
	var mapArgs []string
	for d := 0; d < 64; d++ {
		if int(s.Host.DSCPToPrio[d]) != d>>3 {
			mapArgs = append(mapArgs, fmt.Sprintf("--dscp2prio set,%d,%d", d, s.Host.DSCPToPrio[d]))
		}
	}
	cable := 0.0
	for _, pt := range p.ports {
		if pt.ToHost {
			cable = pt.Cable.Metres()
			break
		}
	}
	for _, i := range o.Interfaces {
		fmt.Fprintf(&b, "\n# %s: trust %s (%s)\n", i, trust, p.from("host.trust", "dscp"))
		fmt.Fprintf(&b, "mlnx_qos -i %s --trust %s\n", i, trust)
		fmt.Fprintf(&b, "# %s: PFC on the lossless priorities (%s)\n", i, p.from("switch.pfc.priorities", "[3]"))
		fmt.Fprintf(&b, "mlnx_qos -i %s --pfc %s\n", i, strings.Join(pfc, ","))
		if len(mapArgs) > 0 {
			fmt.Fprintf(&b, "# %s: DSCP map entries that differ from mlx5's default DSCP>>3 (%s)\n", i, p.from("host.dscp_to_priority", "default"))
			for _, a := range mapArgs {
				fmt.Fprintf(&b, "mlnx_qos -i %s %s\n", i, a)
			}
		}
		if cable > 0 {
			fmt.Fprintf(&b, "# %s: cable length in metres, for the NIC's headroom (topology host link)\n", i)
			fmt.Fprintf(&b, "mlnx_qos -i %s --cable_len=%d\n", i, int(math.Ceil(cable)))
		}
	}
	return Output{Config: []byte(b.String())}, nil
}

// genMlxConfig writes the firmware settings: DCQCN on the RoCE priority
// only, and the CNP marking the switches expect.
func genMlxConfig(p *plan, o Options) (Output, error) {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	b.WriteString(p.header("mlxconfig", "#"))
	b.WriteString("# Firmware (NVConfig) settings take effect after a reboot or `mlxfwreset -d <dev> reset`.\nset -e\n")
	fmt.Fprintf(&b, "# ROCE_CC_PRIO_MASK: DCQCN acts on priority %d only (the RoCE priority above)\n", p.rocePrio)
	fmt.Fprintf(&b, "# CNP_DSCP / CNP_802P_PRIO: mlx5 defaults %d / %d, which the switches map to a strict class\n", p.cnpDSCP, p.cnpPrio)
	fmt.Fprintf(&b, "mlxconfig -d %s -y set ROCE_CC_PRIO_MASK_P1=%#x ROCE_CC_PRIO_MASK_P2=%#x CNP_DSCP_P1=%d CNP_DSCP_P2=%d CNP_802P_PRIO_P1=%d CNP_802P_PRIO_P2=%d\n",
		o.Device, p.prioMask(), p.prioMask(), p.cnpDSCP, p.cnpDSCP, p.cnpPrio, p.cnpPrio)
	return Output{Config: []byte(b.String())}, nil
}

// genSysfs writes DCQCN's runtime settings: reaction and notification
// points on the RoCE priority only, and the CNP marking.
func genSysfs(p *plan, o Options) (Output, error) {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	b.WriteString(p.header("dcqcn-sysfs", "#"))
	b.WriteString("# MLNX_OFED's /sys/class/net/<if>/ecn; not persistent: run at boot (e.g. from a systemd oneshot unit).\nset -e\n")
	for _, i := range o.Interfaces {
		base := "/sys/class/net/" + i + "/ecn"
		fmt.Fprintf(&b, "\n# %s: DCQCN reaction point (rate control) and notification point (CNPs) on priority %d only\n", i, p.rocePrio)
		for q := 0; q < 8; q++ {
			on := 0
			if q == p.rocePrio {
				on = 1
			}
			fmt.Fprintf(&b, "echo %d > %s/roce_rp/enable/%d\n", on, base, q)
			fmt.Fprintf(&b, "echo %d > %s/roce_np/enable/%d\n", on, base, q)
		}
		fmt.Fprintf(&b, "# %s: CNP marking (mlx5 defaults; the switches serve it strictly)\n", i)
		fmt.Fprintf(&b, "echo %d > %s/roce_np/cnp_dscp\n", p.cnpDSCP, base)
		fmt.Fprintf(&b, "echo %d > %s/roce_np/cnp_802p_prio\n", p.cnpPrio, base)
	}
	return Output{Config: []byte(b.String())}, nil
}

// genNCCLEnv writes the NCCL settings that follow from the description.
func genNCCLEnv(p *plan, o Options) (Output, error) {
	var b strings.Builder
	b.WriteString(p.header("nccl-env", "#"))
	ect := ""
	if p.s.Host.ECN {
		ect = " with ECT(0)"
	}
	fmt.Fprintf(&b, "# NCCL_IB_TC is the IP TOS byte: DSCP %d × 4%s (%s)\n", p.roceDSCP, ect, p.from("host.dscp", "26"))
	fmt.Fprintf(&b, "export NCCL_IB_TC=%d\n", p.ncclTC())
	return Output{Config: []byte(b.String())}, nil
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
