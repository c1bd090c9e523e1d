package ingest

import (
	"strconv"
	"strings"
)

// The NCCL release a log comes from, when it prints no "NCCL version"
// line (a paste that starts after it, or a process other than rank 0's):
// some lines changed shape between releases, so their form bounds the
// version. Read from NCCL's sources (src/transport/net.cc, net_ib.cc):
//
//	Ring 00 : 1[41000] -> 0[1b000] [receive] via NET/IB/0        2.3 to 2.6
//	Channel 00 : 1[41000] -> 0[1b000] [receive] via NET/IB/0     2.7 to 2.11
//	Channel 00/0 : 1[41000] -> 0[1b000] [receive] via NET/IB/0   2.12 on
//	Got completion with error 12, opcode 0, ...                  2.4 to 2.9
//	Got completion from peer 10.0.0.2<5> with error 12, ...      2.10 to 2.19
//	Got completion from peer 10.0.0.2<5> with status=12 ...      2.20 on

// VersionShape is a line whose form only some NCCL 2.x releases print:
// MinMinor to MaxMinor (MaxMinor -1: every later release).
type VersionShape struct {
	Shape              string // what the line shows, e.g. "Channel 00 : without a connection index"
	MinMinor, MaxMinor int
	Evidence           Evidence
}

// Range says "2.7-2.11" or "2.20 or later".
func (s VersionShape) Range() string {
	if s.MaxMinor < 0 {
		return "2." + strconv.Itoa(s.MinMinor) + " or later"
	}
	return "2." + strconv.Itoa(s.MinMinor) + "-2." + strconv.Itoa(s.MaxMinor)
}

// shapeNetConn notes the version a NET connection line's head shows.
func (l *NCCLLog) shapeNetConn(head string, ev Evidence) {
	if !strings.Contains(head, "[send]") && !strings.Contains(head, "[receive]") {
		return
	}
	num, _, ok := strings.Cut(head, " : ")
	if !ok {
		return
	}
	switch kind, id, _ := strings.Cut(num, " "); {
	case kind == "Ring":
		l.addShape(VersionShape{"'Ring NN :' connection lines", 3, 6, ev})
	case kind == "Channel" && !strings.Contains(id, "/"):
		l.addShape(VersionShape{"'Channel NN :' connection lines without a connection index", 7, 11, ev})
	case kind == "Channel":
		l.addShape(VersionShape{"'Channel NN/c :' connection lines", 12, -1, ev})
	}
}

// shapeCompletion notes the version a completion error's wording shows,
// for NCCL's own transport only (where: "transport/net_ib.cc:815"): a
// net plugin words its errors its own way.
func (l *NCCLLog) shapeCompletion(where, s string, ev Evidence) {
	switch {
	case !strings.Contains(where, "net_ib.cc"):
	case strings.Contains(s, "with status="):
		l.addShape(VersionShape{"completion errors worded 'with status=N'", 20, -1, ev})
	case strings.Contains(s, "Got completion from peer"):
		l.addShape(VersionShape{"completion errors worded 'from peer ... with error N,'", 10, 19, ev})
	case strings.Contains(s, "Got completion with error"):
		l.addShape(VersionShape{"completion errors worded 'with error N,' without the peer", 4, 9, ev})
	}
}

// addShape keeps the first line of each shape.
func (l *NCCLLog) addShape(s VersionShape) {
	if l.once(seenKey{kind: 'V', b: s.Shape}) {
		l.Shapes = append(l.Shapes, s)
	}
}

// InferredVersion narrows the NCCL 2.x release of a log that prints no
// version from the shapes of its lines: the range every shape allows
// (max -1: no upper bound) and the shapes it rests on. ok is false when
// the log prints a version, shows no dated shape, or its shapes disagree
// (two releases pasted together).
func (l *NCCLLog) InferredVersion() (lo, hi int, by []VersionShape, ok bool) {
	if len(l.Versions) > 0 || len(l.Shapes) == 0 {
		return 0, 0, nil, false
	}
	lo, hi = 0, -1
	for _, s := range l.Shapes {
		lo = max(lo, s.MinMinor)
		if s.MaxMinor >= 0 && (hi < 0 || s.MaxMinor < hi) {
			hi = s.MaxMinor
		}
	}
	if hi >= 0 && lo > hi {
		return 0, 0, nil, false
	}
	return lo, hi, l.Shapes, true
}

// inferredBefore reports whether the log prints no version and its
// lines' shapes date it before 2.minor.
func (l *NCCLLog) inferredBefore(minor int) bool {
	_, hi, _, ok := l.InferredVersion()
	return ok && hi >= 0 && hi < minor
}
