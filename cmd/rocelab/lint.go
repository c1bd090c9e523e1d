package main

import (
	"errors"
	"io"

	"github.com/spf13/cobra"

	"rocelab/internal/doctor"
	"rocelab/internal/lint"
)

func newLintCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "lint [-j|--json] FILE...|-",
		Short: "Check a cluster description and real configs (SONiC, mlnx_qos, mlxconfig, NCCL env, DCQCN sysfs) for known mistakes",
		Long: `lint reads the configuration of a RoCE fabric and joins it into one model
of the RoCE class: a cluster description (a scenario's switch, host and
topology sections), SONiC config_db.json, Cumulus NVUE, an Arista EOS
running-config, mlnx_qos output or commands,
mlxconfig query output or set commands, NCCL env files, DCQCN sysfs dumps
and show_gids tables. It reports what disagrees between NIC and switch or
breaks a known rule (priority mismatch, CNP class, ROCE_CC_PRIO_MASK, ECN
thresholds against the BDP, headroom against SONiC's formula, the MTU chain,
lossless priorities, the PFC watchdog, NCCL timeouts, the GID index), in the
doctor's format. Rule ids and sources: docs/lint.md.

Exit status: 0 no error-level finding, 1 an error-level finding, 2 a file
that cannot be read or parsed (reported as file:line:col).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := lint.Lint(args, cmd.InOrStdin())
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			return writeReport(cmd.OutOrStdout(), rep, asJSON)
		},
	}
	cmd.Flags().BoolVarP(&asJSON, "json", "j", false, "write the report as JSON")
	return cmd
}

// writeReport prints a doctor report (diagnose, lint) as text or JSON and
// turns its findings into the exit status.
func writeReport(w io.Writer, rep *doctor.Report, asJSON bool) error {
	var err error
	if asJSON {
		err = rep.WriteJSON(w)
	} else {
		err = rep.WriteText(w)
	}
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if code := rep.ExitCode(); code != 0 {
		if code == 2 {
			return &exitError{code: code, err: errors.New(rep.Unusable())}
		}
		return &exitError{code: code}
	}
	return nil
}
