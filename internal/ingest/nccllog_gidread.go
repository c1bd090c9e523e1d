package ingest

import "strconv"

// NCCL 2.21 and 2.22 choose the GID index themselves when
// NCCL_IB_GID_INDEX is not set (ncclIbGetGidIndex, through
// ncclUpdateGidIndex, filtered by NCCL_IB_ADDR_FAMILY, NCCL_IB_ADDR_RANGE
// and NCCL_IB_ROCE_VERSION_NUM) and read the RoCE type of the index in
// hand and of each candidate from
// /sys/class/infiniband/<dev>/ports/<port>/gid_attrs/types/<index>. When
// that file cannot be opened or read, ncclIbRoceGetVersionNum returns
// ncclSystemError without a WARN (2.23 added "NET/IB: read failed in
// ncclIbRoceGetVersionNum", which parseSetup reads): the return chain is
// the only trace, and its first two locations are those two calls, fixed
// per release. No other check returns through the first two lines, and
// no other release has a check at them; a log that prints another
// release's version line is not read this way.
var unwarnedGIDRead = []struct {
	release string    // "2.21": the minor release whose lines these are
	first   [2]string // the two ncclIbRoceGetVersionNum checks
	next    string    // the ncclUpdateGidIndex check after them
}{
	{"2.21", [2]string{"transport/net_ib.cc:282", "transport/net_ib.cc:283"}, "transport/net_ib.cc:305"}, // v2.21.5-1
	{"2.22", [2]string{"transport/net_ib.cc:284", "transport/net_ib.cc:285"}, "transport/net_ib.cc:338"}, // v2.22.3-1
}

// gidReadStart is the first line of a chain that may be an unwarned GID
// type read: where it expects the second line, and the first's evidence.
type gidReadStart struct {
	next string
	ev   Evidence
}

// unwarnedGIDChain reads a return-code line of a thread with no WARN
// before it as the start or the second line of an unwarned GID type read
// (unwarnedGIDRead); at the second it records the failure as the
// ncclIbRoceGetVersionNum error later releases WARN about, to which the
// rest of the chain then attaches. The second line must be the thread's
// next return-code line. It reports whether it used the line.
func (l *NCCLLog) unwarnedGIDChain(key, host, where string, result int, ev Evidence) bool {
	p, started := l.gidReads[key]
	delete(l.gidReads, key)
	if result != 2 { // ncclSystemError
		return false
	}
	if started && p.next == where {
		l.SetupCount++
		if len(l.Setup) < maxKept {
			l.Setup = append(l.Setup, SetupError{Host: host, Call: "ncclIbRoceGetVersionNum", Errno: -1, GIDIndex: -1, Result: result,
				Message:  "the GID type read failed (NCCL 2.21 and 2.22 print no WARN for it, only the return chain from its check)",
				Evidence: p.ev})
			l.setLastWarn(key, warnRef{'s', len(l.Setup) - 1, ev.Line})
		}
		return true
	}
	for _, c := range unwarnedGIDRead {
		if (where != c.first[0] && where != c.first[1]) || !l.printsRelease(c.release) {
			continue
		}
		if l.gidReads == nil || len(l.gidReads) >= maxDistinct {
			l.gidReads = map[string]gidReadStart{}
		}
		l.gidReads[key] = gidReadStart{next: c.next, ev: ev}
		return true
	}
	return false
}

// printsRelease reports whether the log printed no NCCL version so far or
// one of release ("2.21").
func (l *NCCLLog) printsRelease(release string) bool {
	if len(l.Versions) == 0 {
		return true
	}
	for _, v := range l.Versions {
		if ma, mi, ok := parseVersion(v.Version); ok && strconv.Itoa(ma)+"."+strconv.Itoa(mi) == release {
			return true
		}
	}
	return false
}
