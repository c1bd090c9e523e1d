// Package confgen writes the device configurations a cluster description
// implies: SONiC config_db.json fragments, mlnx_qos and mlxconfig commands,
// DCQCN sysfs settings and an NCCL env file. Every value is derived once
// (plan.go) and each target writes it in its device's syntax with a comment
// saying where it comes from. Output is deterministic, and `rocelab lint`
// on it (with the description) gives no warning or error.
package confgen

import (
	"fmt"
	"sort"
	"strings"

	"rocelab/internal/scenario"
)

// Options name the devices the commands are for.
type Options struct {
	// Interfaces are the hosts' RoCE netdevs (mlnx_qos, dcqcn-sysfs).
	Interfaces []string
	// Device is the NIC as mlxconfig -d takes it (mlx5_0, a PCI address
	// or an mst path).
	Device string
	// Ports names the switch ports (SONiC), in the order of the first
	// switch's ports in the topology: all of them, or none (Ethernet<4·i>).
	Ports []string
	// Strict refuses a value the device would not accept instead of
	// clamping it to the nearest legal one with a warning.
	Strict bool
}

// DefaultOptions are the names used when none are given.
func DefaultOptions() Options {
	return Options{Interfaces: []string{"eth0"}, Device: "mlx5_0"}
}

// An Output is what a target writes.
type Output struct {
	// Config is the configuration itself: commands, an env file, or JSON.
	Config []byte
	// Provenance says where each value comes from, for targets whose
	// syntax has no comments (JSON); empty otherwise.
	Provenance []byte
	// Warnings name each value written other than the description gives
	// (clamped into the device's range), with both values.
	Warnings []string
}

// A target writes one device's configuration.
type target struct {
	name, what string
	gen        func(p *plan, o Options) (Output, error)
}

// targets lists the targets. Add one line per target file.
func targets() []target {
	return []target{
		{"sonic", "SONiC config_db.json fragment (QoS maps, PFC, WRED/ECN, buffers, PFC watchdog)", genSONiC},
		{"mlnx_qos", "mlnx_qos commands for the hosts' NICs (trust, PFC, DSCP map, cable length)", genMlnxQoS},
		{"mlxconfig", "mlxconfig commands for NIC firmware (ROCE_CC_PRIO_MASK, CNP marking)", genMlxConfig},
		{"dcqcn-sysfs", "DCQCN settings as echo commands into /sys/class/net/<if>/ecn", genSysfs},
		{"nccl-env", "NCCL environment file (export lines)", genNCCLEnv},
	}
}

// Targets lists the target names with what each writes.
func Targets() [][2]string {
	var out [][2]string
	for _, t := range targets() {
		out = append(out, [2]string{t.name, t.what})
	}
	return out
}

// Generate writes the configuration of target for the description s.
func Generate(targetName string, s *scenario.Scenario, o Options) (Output, error) {
	for _, t := range targets() {
		if t.name == targetName {
			if len(o.Interfaces) == 0 {
				o.Interfaces = DefaultOptions().Interfaces
			}
			if o.Device == "" {
				o.Device = DefaultOptions().Device
			}
			for _, i := range o.Interfaces {
				if !isName(i) {
					return Output{}, fmt.Errorf("interface %q: expected a netdev name such as ens1f0", i)
				}
			}
			if !isName(o.Device) {
				return Output{}, fmt.Errorf("device %q: expected mlx5_0, a PCI address or an mst device path", o.Device)
			}
			p := newPlan(s)
			if len(o.Ports) > 0 && len(o.Ports) != len(p.ports) {
				return Output{}, fmt.Errorf("--ports names %d of the switch's %d ports: name every one, in the order of the topology's ports (or none, for Ethernet0, Ethernet4, ...)", len(o.Ports), len(p.ports))
			}
			return t.gen(p, o)
		}
	}
	var names []string
	for _, t := range targets() {
		names = append(names, t.name)
	}
	sort.Strings(names)
	return Output{}, fmt.Errorf("unknown target %q (expected one of: %s)", targetName, strings.Join(names, ", "))
}

// isName accepts netdev, device and port names: letters, digits and
// "_.:/-", not empty, at most 128 bytes.
func isName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_.:/-", c)) {
			return false
		}
	}
	return true
}
