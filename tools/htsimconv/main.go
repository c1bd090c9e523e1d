// Command htsimconv turns a rocelab scenario into the input of csg-htsim's
// RoCE simulator (htsim_roce, github.com/Broadcom/csg-htsim, built from
// its sim/datacenter directory), so that both run the same flows on the
// same fat-tree for a side-by-side comparison (docs/engine.md gives the
// figures). It writes htsim's connection matrix and prints the command
// line that runs it.
//
//	go run ./tools/htsimconv [-mtu BYTES] [-q PACKETS] SCENARIO.yaml > FILE.cm
//	go run ./tools/htsimconv ring [-hosts N] [-group G] [-bytes SIZE] [-seed S] > ring.yaml
//
// The scenario must be a fat-tree (htsim builds its own from the host
// count) with every link alike; its flows become htsim connections, and a
// flow's dependency (after: [i]) becomes a trigger that the flow it waits
// on fires when its sender is done, as htsim's generators chain ring
// steps. htsim has no DCQCN (its RoCE is PFC only), so give the scenario
// cc: none. For results that agree as well as the same work, give the
// switches htsim's PFC thresholds, as scenarios/agree-*.yaml do;
// TestAgreesWithHtsim holds those to htsim's output (docs/engine.md).
// The ring subcommand writes the rocelab scenario of htsim's
// connection_matrices/gen_allreduce.py: groups of G hosts, each host the
// head of a chain of 2G-1 transfers around its group's ring.
//
//	go run ./tools/htsimconv from-htsim [htsim_roce|htsim_hpcc] -tm FILE.cm -nodes N ... > scenario.yaml
//
// The from-htsim subcommand goes the other way: given an htsim_roce or
// htsim_hpcc command line (its flags as htsim takes them, with htsim's
// defaults for those left out; htsim_hpcc's sender becomes cc: hpcc with
// htsim's constants), it writes the rocelab scenario of the same run: the
// fat-tree of -nodes hosts (-tiers 2 or 3), every link at -linkspeed with
// -hop_latency of cable, htsim's PFC thresholds (-pfc_thresholds, in
// packets of -mtu) as a static threshold, the path selection of -strat,
// and the matrix's connections as flows (without -tm, the matrix on
// standard input, as htsim reads it then), each trigger the dependencies
// of the flows it starts; as htsim runs them, every flow starts at 0 and
// sizes round up to whole packets, ports obey PFC frames on receipt,
// receivers ACK every packet and links are ideal; a matrix's link
// failures, which htsim_roce and htsim_hpcc read and never apply, change
// nothing, and the head says so. What rocelab cannot run alike (a trigger
// that fires on the first of several connections, a matrix htsim exits
// at) is refused with the reason.
//
//	go run ./tools/htsimconv compare [-seed S] SCENARIO.yaml HTSIM_STDOUT
//
// compare runs the scenario on rocelab and prints its flows' completion
// times (mean, median, p99, last) beside those of htsim_roce's or
// htsim_hpcc's standard output for the same run ("Flow ... finished at T"
// lines); given htsim's sink samples instead (-log sink, then
// parse_output LOGFILE -ascii), as for connections without a size, which
// run until -end, the flows' goodputs by htsim's last sample; with the
// logfile's sink names appended (grep -a '^: .*_sink_' LOGFILE), each
// sink is checked against its flow and the goodputs compared flow by
// flow too. htsim's "random seed N" line (its standard output, given
// -seed; grep '^random seed' HTSIM_STDOUT >> samples.txt) is held to
// compare's -seed, or without it to the seed of a scenario from-htsim
// wrote: nothing else tells one seed's run of a matrix from another's,
// and otherwise compare says the seed was not checked.
//
//	go run ./tools/htsimconv paths -clock SECONDS [htsim_roce|htsim_hpcc] -tm FILE.cm -nodes N -strat ecmp_host -paths 1 -seed S ...
//
// paths predicts the aggregation and core switch (with -tiers 2, the
// spine) htsim_roce (or htsim_hpcc, whose sources draw the path id alike)
// -strat ecmp_host sends each connection's data through (paths.go): htsim's
// paths follow -seed and the wall clock of the run's start (SECONDS, its
// time(NULL)), so the prediction holds for runs whose clock was pinned.
// With -find FROM-TO -record HTSIM_STDOUT in place of -clock it finds the
// second a recorded run started at: the seconds whose paths best explain
// its completion times, best first.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strings"

	"rocelab/internal/scenario"
	"rocelab/internal/unit"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "htsimconv:", err)
		os.Exit(2)
	}
}

// pipedStdin is the standard input when a file or pipe feeds it, nil at
// a terminal (where reading would wait for typing).
func pipedStdin() io.Reader {
	if fi, err := os.Stdin.Stat(); err != nil || fi.Mode()&os.ModeCharDevice != 0 {
		return nil
	}
	return os.Stdin
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "ring" {
		return ring(args[1:], stdout)
	}
	if len(args) > 0 && args[0] == "from-htsim" {
		return fromHtsim(args[1:], pipedStdin(), stdout)
	}
	if len(args) > 0 && args[0] == "paths" {
		return pathsCmd(args[1:], stdout)
	}
	if len(args) > 0 && args[0] == "compare" {
		return compareCmd(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("htsimconv", flag.ContinueOnError)
	mtu := fs.Int("mtu", 4096, "htsim's packet size in bytes (-mtu): 4096 for equal packet counts, 9000 for htsim's default")
	queue := fs.Int("q", 1000, "htsim's queue size in packets (-q)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("expected one scenario file")
	}
	s, err := scenario.LoadFile(fs.Arg(0))
	if err != nil {
		return err
	}
	cmd, err := convert(s, *mtu, *queue, fs.Arg(0), stdout)
	if err != nil {
		return err
	}
	fmt.Fprintln(stderr, cmd)
	return nil
}

// convert writes s's flows as an htsim connection matrix and returns the
// htsim_roce command line that runs it.
func convert(s *scenario.Scenario, mtu, queue int, file string, w io.Writer) (string, error) {
	t := s.Topo
	if t.Kind != "fat-tree" {
		return "", fmt.Errorf("%s: topology %s: htsim_roce builds only fat-trees", file, t.Kind)
	}
	for _, l := range t.Links[1:] {
		if l.LinkSpec != t.Links[0].LinkSpec {
			return "", fmt.Errorf("%s: links differ (%v and %v): htsim gives every link one rate and latency", file, t.Links[0].LinkSpec, l.LinkSpec)
		}
	}
	if s.Host.NIC.CC != "none" {
		return "", fmt.Errorf("%s: host.cc is %s: htsim's RoCE has no congestion control besides PFC; set cc: none", file, s.Host.NIC.CC)
	}
	flows := s.Expand()
	// A flow that others wait on fires one trigger: every flow waiting on
	// it alone starts on it; a flow waiting on several starts on a
	// barrier that each of them fires.
	fires := make([]int, len(flows))
	startsOn := make([]int, len(flows))
	type trig struct {
		id, count int
	}
	var trigs []trig
	for i, f := range flows {
		switch {
		case len(f.After) == 0:
		case len(f.After) == 1 && fires[f.After[0]] != 0 && trigs[fires[f.After[0]]-1].count == 1:
			startsOn[i] = fires[f.After[0]]
		default:
			trigs = append(trigs, trig{id: len(trigs) + 1, count: len(f.After)})
			id := len(trigs)
			for _, d := range f.After {
				if fires[d] != 0 {
					return "", fmt.Errorf("%s: flow %s waits on %s, which already starts other flows: htsim's triggers cannot say that", file, f.Name, flows[d].Name)
				}
				fires[d] = id
			}
			startsOn[i] = id
		}
		if f.AfterCount != 0 && f.AfterCount < len(f.After) {
			return "", fmt.Errorf("%s: flow %s starts when %d of the %d flows it waits on have completed: htsim's multishot trigger says that only of targets that share their firers, which the converter does not write", file, f.Name, f.AfterCount, len(f.After))
		}
		if f.Start > 0 {
			return "", fmt.Errorf("%s: flow %s starts at %v: htsim_roce starts every connection as it is connected, whatever its start (roce.cpp, RoceSrc::connect)", file, f.Name, f.Start)
		}
		if f.Bytes > math.MaxInt32 {
			return "", fmt.Errorf("%s: flow %s of %d B: htsim reads a connection's size with stoi, an int of at most %d", file, f.Name, int64(f.Bytes), math.MaxInt32)
		}
	}
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "Nodes %d\nConnections %d\n", len(t.Hosts), len(flows))
	if len(trigs) > 0 {
		fmt.Fprintf(b, "Triggers %d\n", len(trigs))
	}
	var bytes, packets int64
	for i, f := range flows {
		fmt.Fprintf(b, "%d->%d id %d", f.Src, f.Dst, i+1)
		if startsOn[i] != 0 {
			fmt.Fprintf(b, " trigger %d", startsOn[i])
		} else {
			b.WriteString(" start 0")
		}
		fmt.Fprintf(b, " size %d", int64(f.Bytes))
		if fires[i] != 0 {
			fmt.Fprintf(b, " send_done_trigger %d", fires[i])
		}
		fmt.Fprintln(b)
		bytes += int64(f.Bytes)
		// htsim's source sends whole packets of -mtu to the last
		// (roce.cpp, RoceSrc::send_packet), as rocelab's QP sends
		// whole path MTUs: each flow's count is rounded up alone.
		packets += (int64(f.Bytes) + int64(mtu) - 1) / int64(mtu)
	}
	for _, tr := range trigs {
		if tr.count == 1 {
			fmt.Fprintf(b, "trigger id %d oneshot\n", tr.id)
		} else {
			fmt.Fprintf(b, "trigger id %d barrier count %d\n", tr.id, tr.count)
		}
	}
	if err := b.Flush(); err != nil {
		return "", err
	}
	l := t.Links[0]
	hop := float64(l.Cable.Delay()) / float64(unit.Microsecond)
	sw := ""
	if s.Switch.Latency > 0 {
		sw = fmt.Sprintf(" -switch_latency %g", float64(s.Switch.Latency)/float64(unit.Microsecond))
	}
	pfc, unlike := htsimUnlike(s, mtu)
	cmd := fmt.Sprintf("htsim_roce -nodes %d -tiers 3 -tm FILE.cm -strat ecmp_host -paths 1 -linkspeed %d -mtu %d -hop_latency %g%s%s -q %d -end %d   # %d flows, %d bytes, %d packets of %d B",
		len(t.Hosts), int64(l.Rate/unit.Mbps), mtu, hop, sw, pfc, queue, int64(s.Duration/unit.Microsecond), len(flows), bytes, packets, mtu)
	for _, u := range unlike {
		cmd += "\n# not alike, the same work only: " + u
	}
	return cmd, nil
}

// htsimUnlike returns htsim_roce's -pfc_thresholds for the scenario's
// static threshold, and what of the scenario htsim runs otherwise, each
// with the setting that would make the two alike (from-htsim writes them).
func htsimUnlike(s *scenario.Scenario, mtu int) (string, []string) {
	var pfc string
	var unlike []string
	sw, pkt := s.Switch, unit.Bytes(mtu)
	switch {
	case sw.StaticTh == 0:
		unlike = append(unlike, "switch: htsim pauses an ingress port at a static threshold (15 packets, XON at 12, unless -pfc_thresholds); set switch.static_th and pfc.xon_offset")
	case sw.StaticTh%pkt != 0 || sw.XONOffset%pkt != 0 || sw.XONOffset >= sw.StaticTh || sw.XONOffset == 0:
		unlike = append(unlike, fmt.Sprintf("switch.static_th %v, pfc.xon_offset %v: htsim's -pfc_thresholds counts whole packets of %d B, its XON (low) above 0 and below its XOFF (high)", sw.StaticTh, sw.XONOffset, mtu))
	default:
		pfc = fmt.Sprintf(" -pfc_thresholds %d %d", int64((sw.StaticTh-sw.XONOffset)/pkt), int64(sw.StaticTh/pkt))
	}
	if sw.StaticTh > 0 && sw.Reserve != 0 {
		unlike = append(unlike, "switch.reserve: set 0 (htsim counts every byte against its threshold)")
	}
	if sw.PFC.ResponseTime == 0 || sw.PFC.ResponseTime > unit.Nanosecond {
		unlike = append(unlike, "switch.pfc.response_time: set 1ps (htsim obeys a pause frame on receipt)")
	}
	if s.Host.NIC.AckCoalesce != 1 {
		unlike = append(unlike, "host.qp.ack_coalesce: set 1 (htsim's sink ACKs every packet)")
	}
	if !s.Host.NIC.QPOrderByIndex {
		unlike = append(unlike, "host.qp.order: set index (htsim's host queue serves its flows round robin by flow id: FairPullQueue)")
	}
	if s.PHY.ClockPPM != 0 || s.PHY.FECJitter != 0 || s.PHY.Auto {
		unlike = append(unlike, "phy: set {clock_ppm: 0, fec_jitter: 0ns} (htsim's links are ideal)")
	}
	if int(s.Host.MTU) != mtu {
		unlike = append(unlike, fmt.Sprintf("host.mtu %d: htsim sends packets of -mtu %d B", s.Host.MTU, mtu))
	}
	return pfc, unlike
}

// ring writes the rocelab scenario of htsim's gen_allreduce.py: hosts
// shuffled into groups; in each group of G, host i heads a chain of 2G-1
// transfers, each from where the last one went to the next host of the
// ring, each starting when the one before it is done.
func ring(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("htsimconv ring", flag.ContinueOnError)
	hosts := fs.Int("hosts", 128, "hosts of the fat-tree (k³/4)")
	group := fs.Int("group", 16, "hosts per ring")
	size := fs.String("bytes", "1MB", "bytes of each transfer")
	seed := fs.Uint64("seed", 1, "seed of the shuffle of hosts into rings")
	cable := fs.String("cable", "200m", "cable length: 200m is htsim's 1 us hop")
	if err := fs.Parse(args); err != nil {
		return err
	}
	k := 2
	for k*k*k/4 < *hosts {
		k += 2
	}
	if k*k*k/4 != *hosts || *group < 2 || *hosts%*group != 0 {
		return fmt.Errorf("%d hosts in rings of %d: expected k³/4 hosts (k even) split into whole rings", *hosts, *group)
	}
	if _, err := unit.ParseBytes(*size); err != nil {
		return fmt.Errorf("-bytes: %v", err)
	}
	order := rand.New(rand.NewPCG(*seed, 0)).Perm(*hosts)
	var b strings.Builder
	fmt.Fprintf(&b, "# Chained ring transfers as htsim's connection_matrices/gen_allreduce.py\n# lays them out: %d rings of %d hosts, each host the head of a chain of %d\n# transfers of %s, each starting when the one before it is done.\n",
		*hosts / *group, *group, 2**group-1, *size)
	fmt.Fprintf(&b, "name: ring-%dx%d\nduration: 10s\ntopology: {kind: fat-tree, k: %d, host_link: {rate: 100G, cable: %s}}\nhost: {cc: none}\ntraffic:\n  flows:\n", *hosts / *group, *group, k, *cable)
	n := 0
	for g := 0; g < *hosts / *group; g++ {
		members := order[g**group : (g+1)**group]
		for s := 0; s < *group; s++ {
			for d := 1; d < 2**group; d++ {
				src, dst := members[(s+d-1)%*group], members[(s+d)%*group]
				fmt.Fprintf(&b, "    - {name: r%d, src: h%d, dst: h%d, bytes: %s", n, src, dst, *size)
				if d > 1 {
					fmt.Fprintf(&b, ", after: [r%d]", n-1)
				}
				b.WriteString("}\n")
				n++
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
