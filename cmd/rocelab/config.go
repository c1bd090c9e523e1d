package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"rocelab/internal/confgen"
	"rocelab/internal/scenario"
)

func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Generate device configurations from a cluster description",
	}
	cmd.AddCommand(newConfigGenCmd())
	return cmd
}

func newConfigGenCmd() *cobra.Command {
	var (
		target, device, out string
		ifaces, ports       []string
		strict              bool
	)
	var help strings.Builder
	for _, t := range confgen.Targets() {
		fmt.Fprintf(&help, "  %-12s %s\n", t[0], t[1])
	}
	cmd := &cobra.Command{
		Use:   "gen --target T [--if eth0,...] [--device mlx5_0] [--ports Ethernet0,...] [--out FILE] FILE|-",
		Short: "Write the config of one device type (sonic, mlnx_qos, mlxconfig, dcqcn-sysfs, nccl-env) from a cluster description",
		Long: `config gen writes, from a cluster description (a scenario's switch, host and
topology sections; traffic optional), the exact configuration of one kind of
device. Targets:
` + help.String() + `
Every value carries a comment saying where it comes from (the description's
line, or the default and its source); for sonic, whose JSON has no comments,
that provenance goes to stderr (or FILE.provenance with --out). The output is
deterministic, and 'rocelab lint' on it together with the description gives no
warning or error.

The sonic target checks every value of every table it writes against SONiC's
published YANG models (sonic-yang-models: ranges, enums, patterns, leafrefs
such as a BUFFER_PROFILE's pool). A number outside its range is clamped to the
nearest legal value with a warning on stderr that names the twin's value and
the written one (--strict refuses instead); anything else is refused with
exit 2. Details: docs/lint.md.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			name, data, err := readSmall(args[0], c.InOrStdin(), "a cluster description")
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			s, err := scenario.LoadDescription(name, data)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			o := confgen.Options{Interfaces: ifaces, Device: device, Ports: ports, Strict: strict}
			res, err := confgen.Generate(target, s, o)
			if err != nil {
				return usageError("--target %s: %v", target, err)
			}
			for _, w := range res.Warnings {
				fmt.Fprintf(c.ErrOrStderr(), "rocelab: warning: %s\n", w)
			}
			if out != "" {
				if err := os.WriteFile(out, res.Config, 0o644); err != nil {
					return &exitError{code: 2, err: err}
				}
				if len(res.Provenance) > 0 {
					if err := os.WriteFile(out+".provenance", res.Provenance, 0o644); err != nil {
						return &exitError{code: 2, err: err}
					}
				}
				return nil
			}
			if _, err := c.OutOrStdout().Write(res.Config); err != nil {
				return err
			}
			_, err = c.ErrOrStderr().Write(res.Provenance)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&target, "target", "", "sonic, mlnx_qos, mlxconfig, dcqcn-sysfs or nccl-env")
	f.StringSliceVar(&ifaces, "if", nil, "hosts' RoCE netdevs (default eth0)")
	f.StringVar(&device, "device", "", "NIC for mlxconfig -d (default mlx5_0)")
	f.StringSliceVar(&ports, "ports", nil, "switch port names in topology order (default Ethernet0, Ethernet4, ...)")
	f.StringVar(&out, "out", "", "write to FILE (and FILE.provenance) instead of stdout")
	f.BoolVar(&strict, "strict", false, "refuse a value the device would not accept (exit 2) instead of clamping it with a warning")
	_ = cmd.MarkFlagRequired("target")
	return cmd
}
