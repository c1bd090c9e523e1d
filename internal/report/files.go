package report

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"rocelab/internal/unit"
)

// WriteDir writes the run into dir: result.json, summary.txt, flows.csv,
// queues.csv, and one ethtool -S file per port under ethtool/ that the
// doctor reads like a real dump.
func (r *Run) WriteDir(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "ethtool"), 0o755); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "result.json"), func(w *bufio.Writer) error { return r.WriteJSON(w) }); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "summary.txt"), func(w *bufio.Writer) error { return r.WriteText(w) }); err != nil {
		return err
	}
	err := writeFile(filepath.Join(dir, "flows.csv"), func(w *bufio.Writer) error {
		fmt.Fprintln(w, "id,name,src,dst,bytes,priority,start_us,fct_us,goodput_gbps,delivered_bytes,retransmitted_bytes,status")
		for _, f := range r.Flows {
			fct := ""
			if f.FCTUS != nil {
				fct = fmt.Sprintf("%.6f", *f.FCTUS)
			}
			fmt.Fprintf(w, "%d,%s,%s,%s,%d,%d,%.6f,%s,%.6f,%d,%d,%s\n", f.ID, f.Name, f.Src, f.Dst, f.Bytes, f.Priority, f.StartUS, fct, f.GoodputGbps, f.Delivered, f.Retransmitted, f.Status)
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = writeFile(filepath.Join(dir, "queues.csv"), func(w *bufio.Writer) error {
		fmt.Fprintln(w, "port,priority,time_us,bytes")
		for _, q := range r.Queues {
			for i, v := range q.Samples {
				fmt.Fprintf(w, "%s,%d,%.3f,%d\n", q.Port, q.Priority, q.FirstUS+float64(i)*q.EveryUS, v)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := r.writeHWCounters(dir); err != nil {
		return err
	}
	for _, pt := range r.obs.Ports {
		if pt.Counters == nil {
			continue
		}
		file := strings.ReplaceAll(pt.Name, "/", "-")
		err := writeFile(filepath.Join(dir, "ethtool", file+".txt"), func(w *bufio.Writer) error {
			fmt.Fprintf(w, "# source: rocelab twin, scenario %q seed %d (simulated, not a real host)\n", r.Scenario.Name, r.Scenario.Seed)
			fmt.Fprintf(w, "# what: counters of port %s (peer %s) as mlx5 prints them, at the start and at the end of the run (simulated time)\n", pt.Name, pt.Peer)
			for _, at := range []unit.Time{0, r.obs.Sim.End} {
				WriteTimeLine(w, at)
				fmt.Fprintf(w, "$ ethtool -S %s\n", file)
				fmt.Fprintln(w, "NIC statistics:")
				for _, c := range pt.Counters {
					v := c.Value
					if at == 0 {
						v = 0
					}
					fmt.Fprintf(w, "     %s: %d\n", c.Name, v)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// WriteTimeLine writes the time a counter dump is taken in the form
// rocelab diagnose reads before a dump: a `date +%s.%N` command line and
// its output. t is simulated time since the run started, so the twin's
// dumps read as taken at 0.000000000 and at the run's end; two dumps of a
// port then give rates over the window between them (docs/diagnose.md,
// "Time windows").
func WriteTimeLine(w io.Writer, t unit.Time) {
	ns := int64(t / unit.Nanosecond)
	fmt.Fprintf(w, "$ date +%%s.%%N\n%d.%09d\n", ns/1e9, ns%1e9)
}

func writeFile(path string, fill func(w *bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := fill(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeHWCounters writes each host NIC's RDMA counters under hw_counters/,
// as `grep "" /sys/class/infiniband/<dev>/ports/1/hw_counters/*` prints
// them, with the host's name as the device.
func (r *Run) writeHWCounters(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "hw_counters"), 0o755); err != nil {
		return err
	}
	for _, n := range r.obs.NICs {
		if n.HW == nil {
			continue
		}
		err := writeFile(filepath.Join(dir, "hw_counters", n.Name+".txt"), func(w *bufio.Writer) error {
			fmt.Fprintf(w, "# source: rocelab twin, scenario %q seed %d (simulated, not a real host)\n", r.Scenario.Name, r.Scenario.Seed)
			fmt.Fprintf(w, "# what: RDMA hw_counters of host %s's NIC as mlx5 exposes them, at the start and at the end of the run (simulated time)\n", n.Name)
			for _, at := range []unit.Time{0, r.obs.Sim.End} {
				WriteTimeLine(w, at)
				fmt.Fprintf(w, "$ grep \"\" /sys/class/infiniband/%s/ports/1/{hw_counters,counters}/*\n", n.Name)
				for _, set := range []struct {
					dir string
					m   map[string]int64
				}{{"hw_counters", counterMap(n.HW)}, {"counters", counterMap(n.IB)}} {
					for _, k := range sortedKeys(set.m) {
						v := set.m[k]
						if at == 0 {
							v = 0
						}
						fmt.Fprintf(w, "/sys/class/infiniband/%s/ports/1/%s/%s:%d\n", n.Name, set.dir, k, v)
					}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
