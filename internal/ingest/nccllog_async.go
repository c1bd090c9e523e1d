package ingest

import (
	"strconv"
	"strings"
)

// The verbs async events NCCL's IB transport reports, in each release's
// words (ncclIbAsyncThreadMain, transport/net_ib.cc, from 2.29
// transport/net_ib/common.cc):
//
//	NET/IB : Got async event : port error                       (through 2.19)
//	NET/IB : mlx5_0:1 Got async event : port error              (2.20-2.22)
//	NET/IB : mlx5_0:1 Got async error event: port error         (2.23-2.28.3)
//	NET/IB : mlx5_0:1 Got non-fatal async event: port error(10) (2.28.7 on)
//	NET/IB : mlx5_0:1 unknown event type (18)                   (2.23 on)
//	NET/IB : mlx5_0:1 GID table changed                         (2.28 on)
//	NET/IB : mlx5_ib0:1 async fatal event on QP (0x7f..): local access violation work queue error
//
// 2.23 gave the fatal events lines of their own and sent the events its
// switch does not list to "unknown event type", printing the number of
// enum ibv_event_type: the GID table change (18) until 2.28 named it.

// verbsEventNames is ibv_event_type_str's text by enum ibv_event_type
// value (rdma-core, libibverbs/enum_strs.c; the enum in
// libibverbs/verbs.h).
var verbsEventNames = [...]string{
	"CQ error", "local work queue catastrophic error", "invalid request local work queue error",
	"local access violation work queue error", "communication established", "send queue drained",
	"path migrated", "path migration request error", "local catastrophic error", "port active",
	"port error", "LID change", "P_Key change", "SM change", "SRQ catastrophic error",
	"SRQ limit reached", "last WQE reached", "client reregistration", "GID table change", "WQ fatal",
}

// ibvEventGIDChange is IBV_EVENT_GID_CHANGE.
const ibvEventGIDChange = 18

// asyncMarkers are the words that introduce the event in a line, longest
// first where one holds another.
var asyncMarkers = []string{"Got non-fatal async event", "Got async error event", "Got async event", "async non-fatal event", "async fatal event", "async event"}

// asyncEventParts reads an async event WARN: the device and port when the
// line names them, the event as ibv_event_type_str prints it, and whether
// NCCL tied it to a queue pair.
func asyncEventParts(msg string) (dev string, port int, event string, onQP, ok bool) {
	pre, body := "", ""
	for _, m := range asyncMarkers {
		if i := strings.Index(msg, m); i >= 0 {
			pre, body = msg[:i], msg[i+len(m):]
			break
		}
	}
	switch {
	case body != "":
		body = strings.TrimSpace(body)
		if strings.HasPrefix(body, "on ") {
			// "on QP (0x..) qpn=.. state=..: <event>": the event
			// follows the last colon.
			onQP = strings.HasPrefix(body, "on QP")
			if i := strings.LastIndex(body, ": "); i >= 0 {
				body = body[i+2:]
			} else if _, after, cut := strings.Cut(body, ")"); cut {
				body = after
			}
		}
		event = verbsEventText(strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(body), ":")))
	case strings.HasPrefix(msg, "NET/") && strings.HasSuffix(strings.TrimSpace(msg), " GID table changed"):
		pre, event = strings.TrimSuffix(strings.TrimSpace(msg), " GID table changed"), verbsEventNames[ibvEventGIDChange]
	default:
		head, num, cut := strings.Cut(strings.TrimSpace(msg), " unknown event type (")
		n, err := strconv.Atoi(strings.TrimSuffix(num, ")"))
		if !cut || err != nil || !strings.HasSuffix(num, ")") || !strings.HasPrefix(head, "NET/") {
			return "", 0, "", false, false
		}
		pre, event = head, "unknown event type "+strconv.Itoa(n)
		if n >= 0 && n < len(verbsEventNames) {
			event = verbsEventNames[n]
		}
	}
	if event == "" {
		return "", 0, "", false, false
	}
	pre = strings.TrimSpace(pre)
	if strings.HasPrefix(pre, "NET/") {
		// "NET/IB : mlx5_0:1": the device and port follow the transport.
		_, pre, _ = strings.Cut(pre, ":")
		pre = strings.TrimSpace(pre)
	}
	if d, ps, cut := strings.Cut(pre, ":"); cut && isIdentName(d) {
		if n, err := strconv.Atoi(ps); err == nil {
			dev, port = d, n
		}
	}
	return dev, port, event, onQP, true
}

// verbsEventText drops the event number 2.28.7 on prints after the name
// ("port error(10)").
func verbsEventText(s string) string {
	if i := strings.LastIndexByte(s, '('); i > 0 && strings.HasSuffix(s, ")") {
		if _, err := strconv.Atoi(s[i+1 : len(s)-1]); err == nil {
			return strings.TrimSpace(s[:i])
		}
	}
	return s
}

// asyncEvent records a verbs async event line; it reports false for a
// WARN that is none.
func (l *NCCLLog) asyncEvent(host, msg string, ev Evidence) bool {
	dev, port, event, onQP, ok := asyncEventParts(msg)
	if !ok {
		return false
	}
	l.AsyncEventCount++
	for i := range l.AsyncEvents {
		e := &l.AsyncEvents[i]
		if e.Host == host && e.Device == dev && e.Port == port && e.Event == event {
			e.Count++
			return true
		}
	}
	if len(l.AsyncEvents) < maxKept {
		l.AsyncEvents = append(l.AsyncEvents, AsyncEvent{Host: host, Device: strings.Clone(dev), Port: port, Event: strings.Clone(event), OnQP: onQP, Count: 1, Evidence: ev})
	}
	return true
}
