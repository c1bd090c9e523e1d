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
		c, ok := findPerftestCommand(t, tool)
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

// findPerftestCommand is findCommand for a perftest tool, skipping the
// occurrences that are prose: perftest takes one bare argument (its
// server), so a name followed by several bare words ("run ib_write_bw
// client on host: ...", "ib_write_bw between the two pods") is a sentence
// about the tool, and the command, if any, is a later occurrence.
func findPerftestCommand(t, tool string) (shellCommand, bool) {
	for {
		c, ok := findCommand(t, tool)
		if !ok {
			return c, false
		}
		if len(perftestBareArgs(c.Args)) <= 1 {
			return c, true
		}
		t = t[strings.Index(t, tool)+len(tool):]
	}
}

// perftestBareArgs are the arguments that are neither a flag, a flag's
// value nor a line continuation, up to a shell comment or the operator that
// ends the command ("&", "&&": what follows is another command).
func perftestBareArgs(args []string) []string {
	var bare []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case strings.HasPrefix(a, "#") || a == "&" || a == "&&":
			return bare
		case strings.HasPrefix(a, "-"):
			if i+1 < len(args) && perftestFlagTakesValue(a) {
				i++
			}
		case a == "\\":
		default:
			bare = append(bare, a)
		}
	}
	return bare
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
	// The GPU buffer flags: the command's line is Fields["--use_cuda"] or
	// Fields["--use_rocm"].
	for _, f := range []string{"--use_cuda", "--use_rocm"} {
		if _, ok := c.flagValue(f); ok || c.hasFlag(f) {
			r.Fields[f] = pc.ev
		}
	}
	if x, ok := c.flagValue("-x", "--gid-index"); ok && r.GIDIndex < 0 {
		if n, err := strconv.Atoi(x); err == nil {
			r.GIDIndex = n
			r.Fields["GID index"] = pc.ev
		}
	}
	// The peer is the argument that is neither a flag nor a flag's value.
	if bare := perftestBareArgs(c.Args[1:]); len(bare) == 1 && isIdentName(bare[0]) {
		r.Peer = bare[0]
	}
}

// perftestShortValued are the short flags perftest's getopt string
// (perftest_parameters.c) gives a value ("w:y:p:...").
const perftestShortValued = "wypdimsntuSxcqIoMrQAlDfBTLEJjKkXW"

// perftestLongValued are perftest's long options with has_arg = 1
// (perftest_parameters.c, linux-rdma/perftest 00b55b6).
var perftestLongValued = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`port ib-dev ib-port mtu size iters tx-depth qp-timeout sl gid-index connection qp
		vector inline_size outs tos hop_limit MGID rx-depth cq-mod atomic_type post_list duration margin source_mac
		dest_mac dest_ip source_ip dest_port source_port ethertype limit_bw limit_msgrate report-counters force-link
		remote_mac local_mac remote_ip local_ip remote_port local_port pkey_index burst_size typical_pkt_size rate_limit
		rate_limit_type rate_units output out_json_file latency_gap flow_label retry_count payload_file_path use_cuda
		use_cuda_bus_id cuda_mem_type use_musa use_musa_bus_id use_rocm use_neuron use_hl use_mlu use_opencl
		opencl_platform_id use_ib_dm_dmabuf gpu_touch mmap mmap-offset dlid tclass wait_destroy flows flows_burst
		reply_every vlan_pcp recv_post_list log_dci_streams log_active_dci_streams congest_type bind_source_ip cqe_poll
		tph_mem cpu_id ph pin_cores numa_node`) {
		m[n] = true
	}
	return m
}()

// perftestFlagTakesValue reports whether the argument after flag f is its
// value: a long option with has_arg = 1 written without "=", or a cluster
// of short flags ("-aF", "-d") whose last flag takes a value not attached
// to it. An unknown long option takes none.
func perftestFlagTakesValue(f string) bool {
	if name, ok := strings.CutPrefix(f, "--"); ok {
		return !strings.Contains(name, "=") && perftestLongValued[name]
	}
	for i := 1; i < len(f); i++ {
		if strings.IndexByte(perftestShortValued, f[i]) >= 0 {
			return i == len(f)-1
		}
	}
	return false
}
