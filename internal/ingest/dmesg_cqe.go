package ingest

import (
	"strconv"
	"strings"
)

// A CQEError is mlx5_ib's report of a completion with error, two kernel
// lines per completion:
//
//	infiniband rocep33s0f0: mlx5_poll_one:527:(pid 0): Responder error cqe on cqn 0x406:
//	infiniband rocep33s0f0: mlx5_poll_one:530:(pid 0): syndrome 0x5, vendor syndrome 0xf9
//
// Repeats of the same device, side, syndrome and vendor syndrome are
// counted in one CQEError.
type CQEError struct {
	Device string // RDMA device, e.g. "rocep33s0f0"
	Side   string // "Requester" or "Responder"
	// Syndrome is the CQE syndrome (mlx5's, e.g. 0x5 work request
	// flushed, 0x15 transport retry exceeded); Vendor the vendor syndrome.
	Syndrome, Vendor int
	Count            int
	// Evidence is the first occurrence's two lines.
	Evidence []Evidence
}

// maxCQEErrors bounds the distinct CQE errors one artifact keeps.
const maxCQEErrors = 256

// cqeHeader reads "<dev>: mlx5_poll_one:527:(pid 0): Responder error cqe
// on cqn 0x406:" (after the kernel prefix) into device and side.
func cqeHeader(msg string) (dev, side string, ok bool) {
	i := strings.Index(msg, " error cqe on cqn ")
	if i < 0 {
		return "", "", false
	}
	head := msg[:i]
	f := strings.Fields(head)
	if len(f) == 0 {
		return "", "", false
	}
	side = f[len(f)-1]
	if side != "Requester" && side != "Responder" {
		return "", "", false
	}
	return cqeDevice(head), side, true
}

// cqeDevice is the RDMA device of "infiniband rocep33s0f0: mlx5_poll_one…"
// or "mlx5_ib: mlx5_0: …", "" when the line names none.
func cqeDevice(head string) string {
	f := strings.Fields(head)
	for i, w := range f {
		if w == "infiniband" && i+1 < len(f) {
			return strings.TrimSuffix(f[i+1], ":")
		}
	}
	return ""
}

// cqeSyndrome reads "syndrome 0x5, vendor syndrome 0xf9".
func cqeSyndrome(msg string) (syn, vendor int, ok bool) {
	i := strings.Index(msg, "syndrome 0x")
	if i < 0 {
		return 0, 0, false
	}
	rest := msg[i+len("syndrome "):]
	a, b, found := strings.Cut(rest, ", vendor syndrome ")
	if !found {
		return 0, 0, false
	}
	s, err1 := strconv.ParseInt(strings.TrimSpace(a), 0, 32)
	v, err2 := strconv.ParseInt(strings.Fields(b + " ")[0], 0, 32)
	if err1 != nil || err2 != nil || s < 0 || v < 0 {
		return 0, 0, false
	}
	return int(s), int(v), true
}

// addCQE records a completed CQE error.
func (d *Dmesg) addCQE(e CQEError) {
	for i := range d.CQEErrors {
		c := &d.CQEErrors[i]
		if c.Device == e.Device && c.Side == e.Side && c.Syndrome == e.Syndrome && c.Vendor == e.Vendor {
			c.Count++
			return
		}
	}
	if len(d.CQEErrors) >= maxCQEErrors {
		d.Omitted++
		return
	}
	e.Count = 1
	d.CQEErrors = append(d.CQEErrors, e)
}

// CQESyndromeName names mlx5's CQE syndromes (include/linux/mlx5/device.h),
// "" for one it does not know.
func CQESyndromeName(s int) string {
	switch s {
	case 0x01:
		return "local length error"
	case 0x02:
		return "local QP operation error"
	case 0x04:
		return "local protection error"
	case 0x05:
		return "work request flushed"
	case 0x06:
		return "memory window bind error"
	case 0x10:
		return "bad response"
	case 0x11:
		return "local access error"
	case 0x12:
		return "remote invalid request"
	case 0x13:
		return "remote access error"
	case 0x14:
		return "remote operation error"
	case 0x15:
		return "transport retry counter exceeded"
	case 0x16:
		return "RNR retry counter exceeded"
	case 0x22:
		return "remote aborted"
	}
	return ""
}
