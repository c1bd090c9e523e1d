package main

import (
	"io"
	"time"

	"github.com/spf13/cobra"

	"rocelab/internal/doctor"
	"rocelab/internal/page"
	"rocelab/internal/unit"
)

func newDiagnoseCmd() *cobra.Command {
	var (
		asJSON   bool
		nicSpeed string
		nicsNode int
		interval time.Duration
		htmlFile string
	)
	cmd := &cobra.Command{
		Use:   "diagnose [-j|--json] [--nic-speed 100G] [--nics-per-node N] [--interval 10s] PATH...",
		Short: "Diagnose real artifacts (NCCL logs, nccl-tests, counters, perftest, GIDs, QoS, captures)",
		Long: `diagnose reads what an engineer has from a slow or failing job and reports,
layer by layer, what is wrong, the lines that show it, and the fix:
  1. is RDMA used at all, and are the queue pairs up?
  2. are PFC and ECN in effect on the RoCE priority?
  3. only then, NCCL parameters and end-to-end performance.

PATH is a file, "-" for stdin, a directory holding an incident's files
(files in it that hold no artifact are skipped and listed once), or a
rocelab collect archive (several hosts' archives may be given together).
Two dumps of one port become rates over the window between them when a
date line precedes each (date +%s.%N), or over --interval. Findings from
different files are joined into one story. Like findings about many ports or
files are grouped in the text report; --json keeps one finding per subject.
--html FILE also writes the report as one self-contained HTML page, with a
timeline of the evidence lines that carry times. Every finding id and the
JSON schema: docs/diagnose.md.

` + exitDiagnose,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var opts doctor.Options
			if nicSpeed != "" {
				r, err := unit.ParseRate(nicSpeed)
				if err != nil || r == 0 || unit.Bare(nicSpeed) {
					return usageError("--nic-speed: expected a link rate such as 100G or 400Gbps, got %q", nicSpeed)
				}
				opts.NICSpeed = r
			}
			if nicsNode < 0 || nicsNode > 64 {
				return usageError("--nics-per-node: expected the RDMA NICs of one node, 1 to 64, got %d", nicsNode)
			}
			opts.NICsPerNode = nicsNode
			if interval < 0 {
				return usageError("--interval: expected a positive duration such as 10s, got %s", interval)
			}
			opts.Interval = interval
			if err := checkHTML(htmlFile); err != nil {
				return err
			}
			rep := doctor.Diagnose(args, cmd.InOrStdin(), opts)
			if htmlFile != "" {
				if err := writeHTML(htmlFile, func(w io.Writer) error { return page.Diagnosis(w, rep, version()) }); err != nil {
					return err
				}
			}
			return writeReport(cmd.OutOrStdout(), rep, asJSON)
		},
	}
	cmd.Flags().BoolVarP(&asJSON, "json", "j", false, "write the report as JSON")
	cmd.Flags().StringVar(&htmlFile, "html", "", "also write the report as one self-contained HTML page: findings by layer with their evidence and fix, a timeline, the subjects named")
	cmd.Flags().DurationVar(&interval, "interval", 0, "time between two dumps of a port that carry no date line of their own (e.g. 10s), to judge rates")
	cmd.Flags().StringVar(&nicSpeed, "nic-speed", "", "NIC line rate to judge bandwidth against when the artifacts do not say it (e.g. 100G, 400G)")
	cmd.Flags().IntVar(&nicsNode, "nics-per-node", 0, "RDMA NICs per node that carry the job, when the artifacts do not list them (NCCL's 'NET/IB : Using' line does)")
	return cmd
}
