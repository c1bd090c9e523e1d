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

// genMlxConfig writes the firmware settings: the priorities DCQCN acts on,
// the CNP marking the switches expect, the DCQCN knobs the description sets,
// and any other mlxconfig setting it gives, for each port of the adapter
// (host.nic_ports: _P1 alone on a single-port card).
func genMlxConfig(p *plan, o Options) (Output, error) {
	ports := p.s.Host.NIC.Ports
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	b.WriteString(p.header("mlxconfig", "#"))
	fmt.Fprintf(&b, "# Adapter ports: %d (%s).\n", ports, p.from("host.nic_ports", "1"))
	b.WriteString("# Firmware (NVConfig) settings take effect after a reboot or `mlxfwreset -d <dev> reset`.\nset -e\n")
	var args []string
	add := func(name string, v string, from string) {
		fmt.Fprintf(&b, "# %s = %s: %s\n", name, v, from)
		for port := 1; port <= ports; port++ {
			args = append(args, fmt.Sprintf("%s_P%d=%s", name, port, v))
		}
	}
	mask, from := p.ccMask()
	add("ROCE_CC_PRIO_MASK", fmt.Sprintf("%#x", mask), from)
	cnpFrom := "mlx5 default, which the switches map to a strict class"
	if p.s.Host.NIC.DCQCN.Config != nil {
		cnpFrom = p.from("host.dcqcn", "mlx5 preset") + " (cnp_dscp, cnp_802p_prio)"
	}
	add("CNP_DSCP", fmt.Sprint(p.cnpDSCP), cnpFrom)
	add("CNP_802P_PRIO", fmt.Sprint(p.cnpPrio), cnpFrom)
	for _, k := range p.knobs() {
		if k.Knob.Name == "cnp_dscp" || k.Knob.Name == "cnp_802p_prio" {
			continue
		}
		add(strings.ToUpper(k.Knob.Name), fmt.Sprint(k.Value), k.From)
	}
	for _, f := range p.s.Host.NIC.Firmware {
		if strings.HasPrefix(f.Name, "ROCE_CC_PRIO_MASK") {
			continue
		}
		fmt.Fprintf(&b, "# %s = %s: %s:%d host.firmware.%s (as written)\n", f.Name, f.Value, p.file, f.Line, f.Name)
		args = append(args, f.Name+"="+f.Value)
	}
	fmt.Fprintf(&b, "mlxconfig -d %s -y set %s\n", o.Device, strings.Join(args, " "))
	return Output{Config: []byte(b.String())}, nil
}

// genSysfs writes DCQCN's runtime settings: reaction and notification
// points on the priorities of ROCE_CC_PRIO_MASK, the CNP marking, and the
// knobs the description sets.
func genSysfs(p *plan, o Options) (Output, error) {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	b.WriteString(p.header("dcqcn-sysfs", "#"))
	b.WriteString("# MLNX_OFED's /sys/class/net/<if>/ecn; not persistent: run at boot (e.g. from a systemd oneshot unit).\nset -e\n")
	mask, from := p.ccMask()
	for _, i := range o.Interfaces {
		base := "/sys/class/net/" + i + "/ecn"
		fmt.Fprintf(&b, "\n# %s: DCQCN reaction point (rate control) and notification point (CNPs) per priority, mask %#x: %s\n", i, mask, from)
		for q := 0; q < 8; q++ {
			on := 0
			if mask&(1<<q) != 0 {
				on = 1
			}
			fmt.Fprintf(&b, "echo %d > %s/roce_rp/enable/%d\n", on, base, q)
			fmt.Fprintf(&b, "echo %d > %s/roce_np/enable/%d\n", on, base, q)
		}
		fmt.Fprintf(&b, "# %s: CNP marking (the switches serve it strictly)\n", i)
		fmt.Fprintf(&b, "echo %d > %s/roce_np/cnp_dscp\n", p.cnpDSCP, base)
		fmt.Fprintf(&b, "echo %d > %s/roce_np/cnp_802p_prio\n", p.cnpPrio, base)
		for _, k := range p.knobs() {
			if k.Knob.Name == "cnp_dscp" || k.Knob.Name == "cnp_802p_prio" || k.Knob.Point == "port" {
				continue
			}
			fmt.Fprintf(&b, "# %s: %s (%s)\n", i, k.Knob.Name, k.From)
			fmt.Fprintf(&b, "echo %d > %s/roce_%s/%s\n", k.Value, base, k.Knob.Point, k.Knob.Name)
		}
	}
	return Output{Config: []byte(b.String())}, nil
}

// genNCCLEnv writes the NCCL settings of the description: its nccl section
// as written, NCCL_IB_TC from the RoCE DSCP when the section leaves it out,
// and the QP timeout and retry count when host.qp sets them.
func genNCCLEnv(p *plan, o Options) (Output, error) {
	var b strings.Builder
	b.WriteString(p.header("nccl-env", "#"))
	given := map[string]bool{}
	for _, x := range p.s.NCCL {
		given[x.Name] = true
		fmt.Fprintf(&b, "# %s:%d nccl.%s\nexport %s=%s\n", p.file, x.Line, x.Name, x.Name, shellWord(x.Value))
	}
	if !given["NCCL_IB_TC"] {
		ect := ""
		if p.s.Host.ECN {
			ect = " with ECT(0)"
		}
		fmt.Fprintf(&b, "# NCCL_IB_TC is the IP TOS byte: DSCP %d × 4%s (%s)\n", p.roceDSCP, ect, p.from("host.dscp", "26"))
		fmt.Fprintf(&b, "export NCCL_IB_TC=%d\n", p.ncclTC())
	}
	for _, q := range []struct{ env, key, val string }{
		{"NCCL_IB_TIMEOUT", "host.qp.timeout", fmt.Sprint(p.s.Host.NIC.Timeout)},
		{"NCCL_IB_RETRY_CNT", "host.qp.retry_cnt", fmt.Sprint(p.s.Host.NIC.RetryCnt)},
	} {
		if _, ok := p.s.Where[q.key]; ok && !given[q.env] {
			fmt.Fprintf(&b, "# NCCL sets the QP field from it (%s)\nexport %s=%s\n", p.from(q.key, ""), q.env, q.val)
		}
	}
	return Output{Config: []byte(b.String())}, nil
}

// shellWord quotes a value for an export line when it needs it.
func shellWord(v string) string {
	for _, c := range v {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_.,:/=^-+", c)) {
			return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
		}
	}
	return v
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
