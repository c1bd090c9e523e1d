package ingest

import (
	"strconv"
	"strings"
)

// The source locations NCCL and its plugins print before a WARN or a
// return code, in the shapes parseOrigin reads past: a C++ plugin's
// function signature, and the function NCCL 2.30.7 names after the
// location.

// signatureLoc splits off the location a C++ build of aws-ofi-nccl prints
// for its WARNs: the function's signature and line
// ("accept_wait_for_connection(nccl_net_ofi_rdma_domain_t*,
// nccl_net_ofi_rdma_listen_comm_t*, nccl_net_ofi_rdma_recv_comm_t**):4909",
// aws-ofi-nccl#990). It returns "accept_wait_for_connection:4909" and the
// prefix before the signature.
func signatureLoc(pre string) (loc, before string, ok bool) {
	t := strings.TrimRight(pre, " ")
	c := strings.LastIndex(t, "):")
	if c < 0 || !strings.ContainsRune(t[:c], ' ') {
		return "", "", false
	}
	line := t[c+2:]
	if _, err := strconv.Atoi(line); err != nil {
		return "", "", false
	}
	open := strings.LastIndexByte(t[:c], '(')
	if open < 0 {
		return "", "", false
	}
	sp := strings.LastIndexByte(t[:open], ' ')
	name := t[sp+1 : open]
	if name == "" || strings.ContainsAny(name, "[]:") {
		return "", "", false
	}
	return name + ":" + line, t[:max(sp, 0)], true
}

// cutFuncName drops the function NCCL 2.30.7 and later print after a
// source location ("nccl/src/allocator.cc:229 (ncclSpaceAlloc)" before
// NCCL WARN, and before a return code: "dev_runtime.cc:602
// (symMemoryObtain) -> 3"), leaving "file:line" as older releases print
// it. Anything else is returned unchanged.
func cutFuncName(s string) string {
	t := strings.TrimRight(s, " ")
	if !strings.HasSuffix(t, ")") {
		return s
	}
	open := strings.LastIndex(t, " (")
	if open < 0 || strings.ContainsAny(t[open+2:len(t)-1], " []") {
		return s
	}
	loc, _ := lastField(t[:open])
	if _, line, ok := cutLast(loc, ':'); !ok || !isDigits(line) {
		return s
	}
	return t[:open]
}
