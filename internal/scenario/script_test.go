package scenario

import (
	"flag"
	"fmt"
	"sort"
	"strings"
	"testing"

	"rocelab/internal/fabric"
	"rocelab/internal/script"
	"rocelab/internal/unit"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata/scripts")

// TestScripts runs the stories in testdata/scripts. A script is prose (lines
// starting with #) and commands; each command is followed by its input
// lines, a "----" line, and its expected output, ending at a blank line.
// Run with -rewrite to regenerate the expected output, then read the diff.
//
// Commands:
//
//	scenario        build the scenario whose YAML is the input
//	run [until=T]   run to T (or to completion) and print the time reached
//	flows           per-flow delivered bytes, drops and completion
//	queues          non-empty switch queues now
//	pfc             which ports hold which priorities off, and are held off
//	counters port=P [match=S]  the port's non-zero counters (names containing S)
//	totals          network totals
func TestScripts(t *testing.T) {
	script.RunAll(t, "testdata/scripts/*.txt", *rewrite, func(t *testing.T) func(script.Command) (string, error) {
		var tw *Twin
		return func(c script.Command) (string, error) { return execScript(t, &tw, c), nil }
	})
}

func execScript(t *testing.T, tw **Twin, c script.Command) string {
	name, kv, input := c.Name, c.Args, c.Input
	if name != "scenario" && *tw == nil {
		t.Fatalf("%s before scenario", c.Line)
	}
	var b strings.Builder
	switch name {
	case "scenario":
		s, err := Load("script.yaml", []byte(input))
		if err != nil {
			return "error: " + err.Error()
		}
		*tw, err = Build(s)
		if err != nil {
			return "error: " + err.Error()
		}
		fmt.Fprintf(&b, "%d hosts, %d switches, %d flows", len(s.Topo.Hosts), len((*tw).Net.Switches), len((*tw).Flows))
	case "run":
		if u, ok := kv["until"]; ok {
			d, err := unit.ParseTime(u)
			if err != nil {
				t.Fatal(err)
			}
			(*tw).RunUntil(d)
		} else {
			(*tw).Run()
		}
		fmt.Fprintf(&b, "t=%v all flows done: %v", (*tw).Net.Now(), (*tw).Done())
	case "flows":
		conns := (*tw).Transport.Conns()
		for i := range (*tw).Flows {
			st := (*tw).Traffic.State(i)
			if !st.Started {
				fmt.Fprintf(&b, "%s: not started\n", (*tw).Flows[i].Name)
				continue
			}
			c := conns[st.QP]
			fct := "running"
			if d, ok := st.FCT(); ok {
				fct = "fct " + d.String()
			} else if st.Done {
				fct = st.Status.String()
			}
			fmt.Fprintf(&b, "%s: delivered %d retransmitted %d %s\n", (*tw).Flows[i].Name, c.Delivered, c.Retransmit, fct)
		}
	case "hw":
		for _, n := range (*tw).NICs {
			if n.Name() != kv["host"] {
				continue
			}
			for _, c := range n.HW.List() {
				if c.Value != 0 && strings.Contains(c.Name, kv["match"]) {
					fmt.Fprintf(&b, "%s: %d\n", c.Name, c.Value)
				}
			}
		}
		if b.Len() == 0 {
			b.WriteString("all zero")
		}
	case "queues":
		for _, sw := range (*tw).Net.Switches {
			for i, pt := range sw.Ports() {
				for p := 0; p < 8; p++ {
					if q := sw.QueueBytes(i, p); q > 0 {
						fmt.Fprintf(&b, "%s prio%d: %d B (max %d)\n", pt.Name(), p, q, sw.QueueMax(i, p))
					}
				}
			}
		}
		if b.Len() == 0 {
			b.WriteString("all empty")
		}
	case "pfc":
		for _, pt := range (*tw).Net.Ports {
			for p := 0; p < 8; p++ {
				if pt.XOFF(p) {
					fmt.Fprintf(&b, "%s holds prio%d off at %s\n", pt.Name(), p, pt.Peer().Name())
				}
				if pt.Paused(p) {
					fmt.Fprintf(&b, "%s is paused on prio%d\n", pt.Name(), p)
				}
				if pt.Stormed(p) {
					fmt.Fprintf(&b, "%s prio%d: watchdog storm (pauses ignored, queue dropped)\n", pt.Name(), p)
				}
			}
		}
		if b.Len() == 0 {
			b.WriteString("no pause in effect")
		}
	case "counters":
		var pt *fabric.Port
		for _, p := range (*tw).Net.Ports {
			if p.Name() == kv["port"] {
				pt = p
			}
		}
		if pt == nil {
			t.Fatalf("no port %q", kv["port"])
		}
		_, isSwitch := pt.Node().(*fabric.Switch)
		snap := pt.Snapshot()
		for _, c := range snap.Ethtool(fabric.NewEthtoolNames(), 0xff, isSwitch) {
			if c.Value != 0 && strings.Contains(c.Name, kv["match"]) {
				fmt.Fprintf(&b, "%s: %d\n", c.Name, c.Value)
			}
		}
	case "totals":
		tot := (*tw).Net.Totals()
		in := (*tw).Net.InFlight()
		fmt.Fprintf(&b, "sent %d + retransmitted %d = delivered %d + dropped %d + discarded %d + in flight %d\n",
			tot.Sent.Bytes, tot.Retransmitted.Bytes, tot.Delivered.Bytes, tot.Dropped.Bytes, tot.Discarded.Bytes, in.Bytes)
		var rs []string
		for _, r := range fabric.DropReasons() {
			if tot.DropsByReason[r] > 0 {
				rs = append(rs, fmt.Sprintf("%s=%d", r, tot.DropsByReason[r]))
			}
		}
		sort.Strings(rs)
		fmt.Fprintf(&b, "drops %s; pause frames %d; ecn marked %d", strings.Join(rs, " "), tot.PauseFrames, tot.ECNMarked)
	default:
		t.Fatalf("unknown command %q", c.Line)
	}
	return b.String()
}
