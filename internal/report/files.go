package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"rocelab/internal/textout"
	"rocelab/internal/unit"
)

// WriteDir writes the run into dir: result.json, summary.txt, flows.csv,
// queues.csv, the NCCL job's NCCL_DEBUG=INFO log (nccl.log), nccl-tests'
// JSON output (all_reduce_perf.json, as -J writes it) and the
// switches' files (writeSwitches), which the doctor reads like a real
// incident; the hosts' files are twinfeed.Incident's.
func (r *Run) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := textout.WriteFile(filepath.Join(dir, "result.json"), func(w io.Writer) error { return r.WriteJSON(w) }); err != nil {
		return err
	}
	if err := textout.WriteFile(filepath.Join(dir, "summary.txt"), func(w io.Writer) error { return r.WriteText(w) }); err != nil {
		return err
	}
	err := textout.WriteFile(filepath.Join(dir, "flows.csv"), func(w io.Writer) error {
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
	err = textout.WriteFile(filepath.Join(dir, "queues.csv"), func(w io.Writer) error {
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
	if r.obs.NCCLLog != "" {
		err := textout.WriteFile(filepath.Join(dir, "nccl.log"), func(w io.Writer) error {
			fmt.Fprintf(w, "# source: rocelab twin, scenario %q seed %d (simulated, not a real host)\n", r.Scenario.Name, r.Scenario.Seed)
			fmt.Fprintln(w, "# what: NCCL_DEBUG=INFO output of every rank while the communicator initialises and connects")
			_, err := io.WriteString(w, r.obs.NCCLLog)
			return err
		})
		if err != nil {
			return err
		}
	}
	if j := r.obs.NCCLTestsJSON; j != nil && j.Doc != "" {
		if err := textout.WriteFile(filepath.Join(dir, j.Name), func(w io.Writer) error { _, err := io.WriteString(w, j.Doc); return err }); err != nil {
			return err
		}
	}
	if err := r.writePerftest(dir); err != nil {
		return err
	}
	return r.writeSwitches(dir)
}

// writePerftest writes each perftest run as the client printed it, after
// its command line on the client's prompt: perftest/<client>-<tool>-<k>.txt.
func (r *Run) writePerftest(dir string) error {
	for k, p := range r.obs.Perftest {
		if err := os.MkdirAll(filepath.Join(dir, "perftest"), 0o755); err != nil {
			return err
		}
		tool, _, _ := strings.Cut(p.Command, " ")
		err := textout.WriteFile(filepath.Join(dir, "perftest", fmt.Sprintf("%s-%s-%d.txt", p.Client, tool, k)), func(w io.Writer) error {
			fmt.Fprintf(w, "# source: rocelab twin, scenario %q seed %d (simulated, not a real host)\n", r.Scenario.Name, r.Scenario.Seed)
			fmt.Fprintf(w, "# what: the client's output of %s against %s\n", tool, p.Server)
			fmt.Fprintf(w, "[root@%s ~]# %s %s\n", p.Client, p.Command, p.ServerIP)
			_, err := io.WriteString(w, p.Output)
			return err
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
