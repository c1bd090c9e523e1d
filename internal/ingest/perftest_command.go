package ingest

import (
	"strconv"
	"strings"
)

// The perftest command lines a paste holds ("ib_write_bw -d mlx5_0 -x 3
// -b peer"): the flags that apply to the run printed after them.

// perftestTools are the perftest binaries whose command lines are read.
var perftestTools = []string{
	"ib_write_bw", "ib_read_bw", "ib_send_bw", "ib_atomic_bw",
	"ib_write_lat", "ib_read_lat", "ib_send_lat", "ib_atomic_lat",
}

type ptCommand struct {
	cmd shellCommand
	ev  Evidence
}

// command records a perftest command line; its flags apply to the next run.
func (p *perftestParser) command(t string, ev Evidence) bool {
	if !strings.Contains(t, "ib_") {
		return false
	}
	for _, tool := range perftestTools {
		c, ok := findCommand(t, tool)
		if !ok {
			continue
		}
		pc := &ptCommand{cmd: c, ev: ev}
		pc.cmd.Args = append([]string{tool}, c.Args...)
		p.pending = pc
		p.byTool[tool] = pc
		return true
	}
	return false
}

// applyCommand copies the pending command's facts into r.
func (p *perftestParser) applyCommand(r *PerftestRun) {
	pc := p.pending
	if pc == nil {
		return
	}
	if r.Test != "" && pc.cmd.Args[0] != r.Test {
		return
	}
	p.pending = nil
	delete(p.byTool, pc.cmd.Args[0])
	commandFacts(r, pc)
}

func commandFacts(r *PerftestRun, pc *ptCommand) {
	c := pc.cmd
	if r.Test == "" {
		r.Test = c.Args[0]
	}
	r.Host = c.Host
	if d, ok := c.flagValue("-d", "--ib-dev"); ok && r.Device == "" && isIdentName(d) {
		r.Device = d
	}
	if c.hasFlag("-b", "--bidirectional") {
		r.Bidirectional = true
	}
	if c.hasFlag("-D", "--duration") {
		r.DurationMode = true
	}
	if l, ok := c.flagValue("--force-link"); ok && isIdentName(l) {
		r.ForcedLink = l
		r.Fields["--force-link"] = pc.ev
	}
	if x, ok := c.flagValue("-x", "--gid-index"); ok && r.GIDIndex < 0 {
		if n, err := strconv.Atoi(x); err == nil {
			r.GIDIndex = n
			r.Fields["GID index"] = pc.ev
		}
	}
	// The peer is the first argument that is neither a flag nor a flag's value.
	for i := 1; i < len(c.Args); i++ {
		a := c.Args[i]
		if strings.HasPrefix(a, "-") {
			if !strings.Contains(a, "=") && i+1 < len(c.Args) && !strings.HasPrefix(c.Args[i+1], "-") && perftestFlagTakesValue(a) {
				i++
			}
			continue
		}
		if isIdentName(a) {
			r.Peer = a
		}
		break
	}
}

// perftestFlagTakesValue reports whether a perftest flag takes an argument
// (-c, the connection type, and -Q, the CQ moderation, do).
func perftestFlagTakesValue(f string) bool {
	switch f {
	case "-a", "-b", "-F", "-R", "-z", "-H", "-V", "-h", "-e", "-N", "-C", "-U",
		"--all", "--bidirectional", "--report_gbits", "--run_infinitely", "--report-both", "--use_old_post_send":
		return false
	}
	return true
}
