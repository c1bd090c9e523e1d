// Command ns3conv turns a rocelab scenario into the input of the HPCC ns-3
// model (github.com/alibaba-edu/High-Precision-Congestion-Control,
// simulation/, ns-3.17 with waf: scratch/third), so that both run the same
// flows on the same fabric with the same PFC, ECN and congestion control
// (DCQCN, HPCC, TIMELY or DCTCP, CC_MODE 1, 3, 7, 8), and
// compares the two runs' flow completion times (docs/engine.md, "Against
// the HPCC ns-3 model", gives the figures and the mapping).
//
//	go run ./tools/ns3conv [-dir DIR] [-seed S] [-hash] SCENARIO.yaml
//	go run ./tools/ns3conv compare [-seed S] [-topology TOPOLOGY.txt] SCENARIO.yaml DIR
//
// The first writes config.txt, topology.txt, flow.txt and trace.txt into
// DIR (default "."), and prints the command that runs ns-3 there (-hash:
// prints the sha256 of those files instead, which ties a recorded run to
// its input; record.sh records one). The
// converter refuses a scenario ns-3 cannot follow and lists every
// setting to change: ns-3 builds in some of what rocelab configures (a
// 4 KiB reserve per queue, a 3 KiB XON offset, a PFC share of 1/8, a
// headroom of three bandwidth-delay products, hosts that never pause),
// so the scenario must say the same; scenarios/*.yaml do.
//
//	go run ./tools/ns3conv from-ns3 CONFIG.txt > scenario.yaml
//
// from-ns3 goes the other way: it writes the rocelab scenario of an ns-3
// run from its config.txt and the topology and flow files it names
// (relative to config.txt's directory or one above it, where ns-3 runs,
// or beside config.txt; an absolute path not on this machine by its
// tail there): the topology as a graph, ns-3's
// built-in switch and NIC as the keys that say the same, the config's
// congestion control, ECN and buffer, and the flows, their starts counted
// from the first. What rocelab cannot run alike (windows other than
// HPCC's, DCTCP or HPCC-PINT, a priority group other than 3; a lossy
// link becomes a loss fault)
// is refused, and so is a key HPCC's third.cc does not read (a fork's),
// and a file that sets none (a topology, flow or trace file, a size CDF,
// fct.txt, given in config.txt's place), named for what it reads as.
// A note in braces after a value (the model's mix/config_doc.txt) is
// skipped, as third.cc skips its words.
//
// compare runs the scenario on rocelab and reads ns-3's fct.txt and
// pfc.txt from DIR: it prints both sides' completion times (mean, median,
// p99, largest), the per-flow ratio rocelab/ns-3 and the PFC pauses.
// With -topology, the topology.txt from-ns3 read, it matches the flows by
// ns-3's node ids, for topologies whose hosts are not ns-3's first nodes.
// -qlen has ns-3's queue monitor sample the whole run into qlen.txt.
// With a qlen.txt in DIR (QLEN_MON_FILE) compare adds the queue lengths at the
// switch ports over ns-3's monitor window, pooled and for the fullest
// ports, each port told by -topology's (or DIR's topology.txt's)
// interfaces (qlen.go).
// A run that SIMULATOR_STOP_TIME cut short is compared on the flows both
// runs completed, with a warning of how many each left unfinished; one
// whose lines end well before its stop time, without a flow rocelab
// finished well before it, is refused as a real disagreement.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"rocelab/internal/scenario"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "ns3conv:", err)
		os.Exit(2)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "compare" {
		return compareCmd(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "from-ns3" {
		if len(args) != 2 {
			return errors.New("from-ns3: expected ns-3's config.txt")
		}
		return fromNs3(args[1], stdout)
	}
	fs := flag.NewFlagSet("ns3conv", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", ".", "directory to write ns-3's input files into")
	seed := fs.Uint64("seed", 0, "the scenario's seed, which draws generated flows (0: the file's)")
	hash := fs.Bool("hash", false, "print the sha256 of ns-3's input, which a recorded run's head carries, and write nothing")
	qlen := fs.Bool("qlen", false, "have ns-3's queue monitor write qlen.txt over the run (every switch port every 100 ns: slow), which compare reads; the run then stops at the monitor's last dump")
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
	if *seed != 0 {
		s.Seed = *seed
	}
	f, err := convert(s, fs.Arg(0))
	if err != nil {
		return err
	}
	if *qlen {
		f.monitorQueues(s.Duration)
	}
	if *hash {
		_, err := fmt.Fprintln(stdout, f.hash())
		return err
	}
	if err := f.write(func(name string) (io.WriteCloser, error) { return os.Create(filepath.Join(*dir, name)) }); err != nil {
		return err
	}
	var bytes int64
	for _, x := range f.flows {
		bytes += int64(x.Bytes)
	}
	out := "fct.txt and pfc.txt"
	if *qlen {
		out = "fct.txt, pfc.txt and qlen.txt"
	}
	fmt.Fprintf(stderr, "cd %s && NS3/build/scratch/third config.txt   # %d flows, %d bytes, %d-byte packets; writes %s\n", *dir, len(f.flows), bytes, s.Host.MTU, out)
	return nil
}

func compareCmd(args []string, w, warn io.Writer) error {
	fs := flag.NewFlagSet("ns3conv compare", flag.ContinueOnError)
	seed := fs.Uint64("seed", 1, "rocelab's seed")
	topology := fs.String("topology", "", "ns-3's topology.txt that from-ns3 read, to match the flows by ns-3's node ids")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return errors.New("compare: expected a scenario file and ns-3's output directory")
	}
	var hostIDs []int
	var t *ns3Topology
	if *topology != "" {
		var err error
		if t, err = readFile(*topology, readTopology); err != nil {
			return err
		}
		hostIDs = t.hostIDs()
	}
	// ns-3's queue lengths, with the topology their ports are numbered
	// by: -topology's, or the topology.txt ns3conv wrote beside them
	// (a scenario cut in time: the last dump at or before the cut)
	q := filepath.Join(fs.Arg(1), "qlen.txt")
	var d *qlenDump
	var after int64
	if exists(q) {
		until, cutting := scenarioCut(fs.Arg(0))
		if !cutting {
			until = math.MaxInt64
		}
		var err error
		if d, err = readFile(q, func(file string, r io.Reader) (d *qlenDump, err error) {
			d, after, err = readQlenUntil(file, r, until)
			return d, err
		}); err != nil {
			return err
		}
		if own := filepath.Join(fs.Arg(1), "topology.txt"); t == nil && exists(own) {
			if t, err = readFile(own, readTopology); err != nil {
				return err
			}
		}
		if d != nil {
			if err := qlenStart(filepath.Join(fs.Arg(1), "config.txt"), d); err != nil {
				return err
			}
		}
	}
	c, err := compareQueues(fs.Arg(0), *seed, filepath.Join(fs.Arg(1), "fct.txt"), filepath.Join(fs.Arg(1), "pfc.txt"), hostIDs, d)
	if err != nil {
		return err
	}
	if exists(q) {
		if err := c.withQlen(q, d, after, t); err != nil {
			return err
		}
	}
	c.print(w, warn)
	return nil
}

// exists says a file is there to read.
func exists(file string) bool {
	_, err := os.Stat(file)
	return err == nil
}

// qlenStart gives dump d the run's QLEN_MON_START from its config.txt,
// when DIR holds one, for the monitor's sample interval; a config.txt
// that does not read is refused where it fails, one without the key
// leaves third.cc's interval.
func qlenStart(file string, d *qlenDump) error {
	if !exists(file) {
		return nil
	}
	c, err := readFile(file, readConfig)
	if err != nil {
		return err
	}
	if _, ok := c.kv["QLEN_MON_START"]; !ok {
		return nil
	}
	start, err := c.num("QLEN_MON_START")
	if err != nil {
		return err
	}
	return d.sampledFrom(int64(start), c.at("QLEN_MON_START"))
}
