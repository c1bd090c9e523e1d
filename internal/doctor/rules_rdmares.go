package doctor

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/ingest"
)

// rdmaResRules judge the queue pairs `rdma resource show qp` lists.
func rdmaResRules() []Rule {
	return []Rule{
		{IDs: []string{"rdma.qp.error"}, Check: checkQPErrors},
		{IDs: []string{"input.garbled"}, Check: checkRDMAResGarbled},
		{IDs: []string{"input.partial"}, Check: checkRDMAResCap},
	}
}

// maxQPEvidence bounds the QP lines one finding quotes.
const maxQPEvidence = 8

// qpOwner is the QPs of one owner on one port of one host.
type qpOwner struct {
	host, dev string
	port, pid int
	comm      string
	bad, all  []ingest.RDMAQP
}

// checkQPErrors reports, per owner (process or kernel module) and port,
// the QPs in ERR or SQE. A QP listed again (the command run twice) is
// judged by its last line; QPs of inputs that name no host are told apart
// by input.
func checkQPErrors(inc *Incident) []Finding {
	type qpKey struct {
		host, src, dev string
		lqpn           uint32
	}
	last := map[qpKey]int{}
	var qps []ingest.RDMAQP
	for _, a := range All[*ingest.RDMAResource](inc) {
		for _, q := range a.QPs {
			if q.Host == "" {
				q.Host = a.Scope().Host.Name
			}
			k := qpKey{host: q.Host, dev: q.Device, lqpn: q.LQPN}
			if q.Host == "" {
				k.src = a.Source()
			}
			if i, ok := last[k]; ok {
				qps[i] = q
				continue
			}
			last[k] = len(qps)
			qps = append(qps, q)
		}
	}
	type ownerKey struct {
		host, dev, comm string
		port, pid       int
	}
	var owners []*qpOwner
	byKey := map[ownerKey]*qpOwner{}
	devFault := map[string]bool{} // host+dev whose kernel GSI QP is in ERR
	for _, q := range qps {
		if q.Type == "GSI" && q.State == "ERR" {
			devFault[q.Host+"\x00"+q.Device] = true
		}
		k := ownerKey{host: q.Host, dev: q.Device, comm: q.Comm, port: q.Port, pid: q.PID}
		o := byKey[k]
		if o == nil {
			o = &qpOwner{host: q.Host, dev: q.Device, port: q.Port, pid: q.PID, comm: q.Comm}
			byKey[k] = o
			owners = append(owners, o)
		}
		o.all = append(o.all, q)
		if q.State == "ERR" || q.State == "SQE" {
			o.bad = append(o.bad, q)
		}
	}
	var fs []Finding
	for _, o := range owners {
		if len(o.bad) > 0 {
			fs = append(fs, qpErrorFinding(o, devFault[o.host+"\x00"+o.dev]))
		}
	}
	return fs
}

// qpErrorFinding is the finding of one owner's QPs in ERR or SQE;
// devFault says the device's own GSI QP is in ERR too.
func qpErrorFinding(o *qpOwner, devFault bool) Finding {
	// link names the QPs' port as the listing does; arg as rdma's "link"
	// argument takes it, the device alone for QPs bound to no port
	// ("mlx5_4/-" is no port rdma accepts).
	link, arg := o.dev+"/-", o.dev
	if o.port > 0 {
		link = fmt.Sprintf("%s/%d", o.dev, o.port)
		arg = link
	}
	who := link
	if o.host != "" {
		who = o.host + " " + link
	}
	owner := "the kernel's " + o.comm
	if o.pid > 0 {
		owner = fmt.Sprintf("%s (pid %d)", o.comm, o.pid)
	} else if o.comm == "" {
		owner = "an owner not printed"
	}
	var types, states []string
	count := map[string]int{}
	var ev []Evidence
	for _, q := range o.bad {
		if !slices.Contains(types, q.Type) {
			types = append(types, q.Type)
		}
		if count[q.State] == 0 {
			states = append(states, q.State)
		}
		count[q.State]++
		if len(ev) < maxQPEvidence {
			ev = append(ev, q.Evidence)
		}
	}
	in := states[0]
	if len(states) > 1 {
		var parts []string
		for _, s := range states {
			parts = append(parts, fmt.Sprintf("%d %s", count[s], s))
		}
		in = strings.Join(parts, ", ")
	}
	kind := strings.Join(types, "/")
	var title string
	switch {
	case len(o.all) == 1:
		title = fmt.Sprintf("%s: the %s QP of %s in %s", who, kind, owner, in)
	case len(o.bad) == len(o.all):
		title = fmt.Sprintf("%s: all %d %s QPs of %s in %s", who, len(o.bad), kind, owner, in)
	default:
		title = fmt.Sprintf("%s: %d of the %d QPs of %s in %s (%s)", who, len(o.bad), len(o.all), owner, in, kind)
	}
	if len(o.bad) > maxQPEvidence {
		title += fmt.Sprintf(" (the first %d quoted)", maxQPEvidence)
	}
	mech := "A reliable-connected (RC) QP leaves RTS for ERR when one of its work requests completes in error, and an unreliable one's send queue goes to SQE (its receives go on): the transport retries ran out (status 12, RETRY_EXC: no ACK within the timeout, retry_cnt times over: packets lost to a congested lossless class without PFC, a port down or flapping, a wrong GID, route or MTU to the peer, or a peer gone), the RNR retries ran out (13), the peer answered with a NAK (remote access or operation error, 10 and 11), or a local protection or length error (4, 1). Every work request still queued is then flushed (status 5) and the QP carries nothing until its owner destroys or resets it: the connection is broken, and a collective on it hangs or aborts. An application tearing its QPs down may move them to ERR first, so a single reading during an exit is not yet a fault; QPs that stay in ERR while the process runs are."
	if devFault {
		mech += " The device's own GSI QP (the kernel's, for connection management) is in ERR too: the device itself faulted (a firmware fatal error or a reset), breaking every QP on it."
	}
	fix := fmt.Sprintf("Find the first completion error the owner logged (NCCL: `NET/IB : Got completion from peer ... with error N, vendor err M`; perftest: `Completion with error`) and read %s's counters and kernel log for that time: `rdma statistic show link %s` (local_ack_timeout_err, packet_seq_err, out_of_sequence, rnr_nak_retry_err, req_remote_access_errors), `dmesg` (mlx5 CQE error syndromes, link down), `devlink health`; check PFC and ECN on the RoCE priority end to end and the path MTU. QPs in ERR do not recover by themselves: end the process that holds them and restart the job once the cause is mended.", o.dev, arg)
	if o.pid > 0 {
		fix += fmt.Sprintf(" `rdma res show qp link %s pid %d` lists them again: run it twice to see whether they stay in ERR.", arg, o.pid)
	}
	return Finding{
		ID: "rdma.qp.error", Severity: Error, Layer: LayerRDMA,
		Title: title, Evidence: ev, Mechanism: mech, Fix: fix,
		Subject: who + " " + owner,
	}
}

// checkRDMAResGarbled reports QP lines and JSON arrays of `rdma resource`
// that do not read.
func checkRDMAResGarbled(inc *Incident) []Finding {
	return garbledOf(inc, "rdma resource output", func(a *ingest.RDMAResource) []ingest.Garble { return a.Garbled },
		"These lines are `rdma resource show qp` QPs (or its -j array) whose QP number or state does not read, or whose array was cut: the paste was edited or cut, so those QPs were judged by no rule.",
		"Paste the unedited output of `rdma res show qp` (or `rdma -j res show qp`).")
}

// checkRDMAResCap reports the QPs, CM ids and device lines of `rdma
// resource` output read past the reader's bound, which no rule judged.
func checkRDMAResCap(inc *Incident) []Finding {
	var ev []Evidence
	for _, a := range All[*ingest.RDMAResource](inc) {
		if a.Omitted > 0 {
			ev = append(ev, Evidence{File: a.Source(), Text: fmt.Sprintf("%d QPs, CM ids or device lines beyond the limit of %d of each per input", a.Omitted, ingest.MaxRDMAObjects)})
		}
	}
	return partialFinding(ev, "some rdma resource objects were not read",
		"rocelab keeps a bounded number of the QPs, CM ids and device lines of `rdma resource` output per input so that memory stays bounded; the rest were skipped, and rdma.qp.error judged the ones kept.",
		"List the QPs of the processes of interest (`rdma res show qp pid N`, `rdma res show qp link mlx5_0/1`), or split the input.")
}
