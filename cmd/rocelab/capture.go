package main

import (
	"os"

	"github.com/spf13/cobra"

	"rocelab/internal/capture"
	"rocelab/internal/unit"
)

func newCaptureCmd() *cobra.Command {
	var (
		asJSON    bool
		linkSpeed string
		bin       string
	)
	cmd := &cobra.Command{
		Use:   "capture FILE [--json] [--link-speed 100G] [--bin 10us]",
		Short: "Analyse a pcap/pcapng capture of RoCEv2 traffic: per-QP PSNs, retransmissions, NAKs, CNPs, ECN, PFC",
		Long: `capture reads a pcap or pcapng file (tcpdump -s 100 header-only captures are
fine) and reports per queue-pair direction: packets, bytes, throughput, PSN
gaps, go-back-N retransmission episodes with what triggered them (NAK or an
inferred ACK timeout), NAKs by syndrome, ECN CE marks and CNPs; then PFC and
802.3x PAUSE frames per priority with the requested and effective paused time.

Pause quanta are 512 bit times: give --link-speed unless the pcapng states
if_speed.

Exit status: 0 ok, 2 unreadable input or bad usage.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var opts capture.Options
			if linkSpeed != "" {
				r, err := unit.ParseRate(linkSpeed)
				if err != nil || r == 0 {
					return usageError("--link-speed: expected a link rate such as 100G or 400Gbps, got %q", linkSpeed)
				}
				opts.LinkSpeed = r
			}
			if bin != "" {
				t, err := unit.ParseTime(bin)
				if err != nil || t <= 0 {
					return usageError("--bin: expected a positive duration such as 10us, got %q", bin)
				}
				opts.Bin = t
			}
			f, err := os.Open(args[0])
			if err != nil {
				return usageError("%v", err)
			}
			defer f.Close()
			a, err := capture.Analyze(args[0], f, opts)
			if err != nil {
				return usageError("%v", err)
			}
			if asJSON {
				err = a.WriteJSON(cmd.OutOrStdout())
			} else {
				err = a.WriteText(cmd.OutOrStdout())
			}
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "write the whole analysis as JSON")
	cmd.Flags().StringVar(&linkSpeed, "link-speed", "", "link rate to convert pause quanta to time (e.g. 100G); default: pcapng if_speed")
	cmd.Flags().StringVar(&bin, "bin", "", "throughput timeline bin width (default 10us)")
	return cmd
}
