package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"rocelab/internal/capture"
	"rocelab/internal/doctor"
	"rocelab/internal/ingest"
	"rocelab/internal/page"
	"rocelab/internal/unit"
)

func newCaptureCmd() *cobra.Command {
	var (
		asJSON    bool
		linkSpeed string
		bin       string
		count     int64
		qps       []string
		flows     []string
		htmlFile  string
	)
	cmd := &cobra.Command{
		Use:   "capture FILE|- [-j|--json] [--link-speed 100G] [--bin 10us] [-c N] [--qp QPN] [--flow SRC>DST]",
		Short: "Analyse a pcap/pcapng capture of RoCEv2 traffic: per-QP PSNs, retransmissions, NAKs, CNPs, ECN, PFC",
		Long: `capture reads a pcap or pcapng file (plain or gzip; - reads stdin, as in
tcpdump -w - | rocelab capture -) and reports per queue-pair direction:
packets, bytes, throughput, PSN gaps, go-back-N retransmission episodes with
what triggered them (NAK or an inferred ACK timeout), NAKs by syndrome, ECN CE
marks and CNPs; then PFC and 802.3x PAUSE frames per priority with the
requested and effective paused time; then the doctor's findings on it.

Ethernet and Linux cooked captures (tcpdump -i any, SLL and SLL2) are read;
header-only captures (tcpdump -s 100) are fine. A capture that ends inside a
record is analysed up to its last whole packet, with a finding that says
where it breaks off.

Pause quanta are 512 bit times: give --link-speed unless the pcapng states
if_speed (a twin capture does). Hosts are named when the capture names them
(a pcapng Name Resolution Block, as the twin writes).

--qp and --flow keep the RoCE packets of some queue pairs (by BTH destination
QP, decimal or 0x hex) or between some hosts (SRC>DST one way, SRC<>DST both,
by address or name), and every pause frame; -c stops after N packets.

--html FILE also writes the analysis as one self-contained HTML page: each
queue pair's request PSN progress over time with its retransmissions, the
NAKs and CNPs sent back and the pause frames marked.

` + exitCapture,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeFiles("pcap", "pcapng", "cap", "gz"),
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
			if count < 0 {
				return usageError("-c: expected a positive number of packets, got %d", count)
			}
			opts.Count = count
			for _, q := range qps {
				n, err := capture.ParseQPN(q)
				if err != nil {
					return usageError("--qp: %v", err)
				}
				opts.QPs = append(opts.QPs, n)
			}
			for _, f := range flows {
				ff, err := capture.ParseFlowFilter(f)
				if err != nil {
					return usageError("--flow: %v", err)
				}
				opts.Flows = append(opts.Flows, ff)
			}
			if err := checkHTML(htmlFile); err != nil {
				return err
			}
			in, err := openInput(args[0], cmd.InOrStdin(), "a capture", captureName, "; 'rocelab diagnose "+args[0]+"' reads every capture and log in it")
			if err != nil {
				return usageError("%v", err)
			}
			defer in.Close()
			a, err := capture.Analyze(in.name, in.r, opts)
			if err != nil {
				return usageError("%v", err)
			}
			findings := doctor.Check(&doctor.Incident{Options: doctor.Options{NICSpeed: opts.LinkSpeed}, Artifacts: []ingest.Artifact{a}})
			if htmlFile != "" {
				if err := writeHTML(htmlFile, func(w io.Writer) error { return page.Capture(w, a, findings, version()) }); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if asJSON {
				err = a.WriteJSON(w)
			} else if err = a.WriteText(w); err == nil {
				err = writeFindingTitles(w, findings)
			}
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			for _, f := range findings {
				if f.Severity == doctor.Error {
					return &exitError{code: 1}
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&asJSON, "json", "j", false, "write the whole analysis as JSON")
	f.StringVar(&linkSpeed, "link-speed", "", "link rate to convert pause quanta to time (e.g. 100G); default: pcapng if_speed")
	f.StringVar(&bin, "bin", "", "throughput timeline bin width (default 10us)")
	f.Int64VarP(&count, "count", "c", 0, "stop after this many packets (counting those --qp/--flow keep)")
	f.StringSliceVar(&qps, "qp", nil, "keep the RoCE packets to these queue pairs (BTH destination QP, e.g. 0x000101)")
	f.StringVar(&htmlFile, "html", "", "also write the analysis as one self-contained HTML page: per-QP PSN progress over time with retransmissions, NAKs, CNPs and pauses marked")
	f.StringSliceVar(&flows, "flow", nil, "keep the RoCE packets between hosts: SRC>DST or SRC<>DST, by IP or name (e.g. h0>h17)")
	return cmd
}

// writeFindingTitles lists the doctor's findings on a capture, one line
// each; 'rocelab diagnose' gives their evidence, mechanism and fix.
func writeFindingTitles(w io.Writer, fs []doctor.Finding) error {
	if len(fs) == 0 {
		return nil
	}
	if _, err := fmt.Fprintf(w, "\nFindings (rocelab diagnose FILE explains each)\n"); err != nil {
		return err
	}
	for _, f := range fs {
		if _, err := fmt.Fprintf(w, "  %-5s %s: %s\n", f.Severity, f.ID, f.Title); err != nil {
			return err
		}
	}
	return nil
}
