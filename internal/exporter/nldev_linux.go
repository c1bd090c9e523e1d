package exporter

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// NetlinkRDMA reads a port's hw_counters with one RDMA_NLDEV_CMD_STAT_GET
// request on the kernel's RDMA netlink socket (NETLINK_RDMA, the interface
// `rdma statistic show` uses) instead of one open, read and close per file
// under hw_counters/: about 60 files per mlx5 port become one message. It
// needs no privilege. The port counters of counters/ (the PMA's) are not
// on this interface and stay on sysfs.
type NetlinkRDMA struct {
	mu    sync.Mutex
	fd    int
	seq   uint32
	req   []byte
	buf   []byte
	index map[string]uint32 // RDMA device name → the kernel's index
}

// RDMA netlink constants (include/uapi/rdma/rdma_netlink.h; checked
// against Linux 6.1 by compiling the header).
const (
	rdmaNLNLDEV           = 5
	nldevCmdGet           = 1
	nldevCmdStatGet       = 17
	nldevAttrDevIndex     = 1
	nldevAttrDevName      = 2
	nldevAttrPortIndex    = 3
	nldevAttrHWCounters   = 80
	nldevAttrHWCounter    = 81
	nldevAttrHWCounterNam = 82
	nldevAttrHWCounterVal = 83
)

// nldevType is RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op).
func nldevType(op uint16) uint16 { return rdmaNLNLDEV<<10 + op }

// NewNetlinkRDMA opens the RDMA netlink socket and learns the devices'
// indexes. A kernel without it fails here, and the exporter reads sysfs.
func NewNetlinkRDMA() (*NetlinkRDMA, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_RDMA)
	if err != nil {
		return nil, fmt.Errorf("RDMA netlink socket: %w", err)
	}
	tv := unix.Timeval{Sec: 1}
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("RDMA netlink bind: %w", err)
	}
	n := &NetlinkRDMA{fd: fd, buf: make([]byte, 64<<10), index: map[string]uint32{}}
	if err := n.devices(); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return n, nil
}

// Close closes the socket.
func (n *NetlinkRDMA) Close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.fd >= 0 {
		unix.Close(n.fd)
		n.fd = -1
	}
}

// HWCounters implements HWCounterSource.
func (n *NetlinkRDMA) HWCounters(device, port string, fn func(name []byte, value uint64)) error {
	p, err := strconv.ParseUint(port, 10, 32)
	if err != nil {
		return fmt.Errorf("port %q: %w", port, ErrUnsupported)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.fd < 0 {
		return fmt.Errorf("RDMA netlink closed: %w", ErrUnsupported)
	}
	idx, ok := n.index[device]
	if !ok {
		// A device that appeared since: learn the indexes again.
		if err := n.devices(); err != nil {
			return err
		}
		if idx, ok = n.index[device]; !ok {
			return fmt.Errorf("%s: not an RDMA netlink device: %w", device, ErrUnsupported)
		}
	}
	n.seq++
	n.req = statRequest(n.req[:0], n.seq, idx, uint32(p))
	if err := unix.Sendto(n.fd, n.req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fmt.Errorf("%s port %s: RDMA netlink send: %w", device, port, err)
	}
	for {
		m, _, err := unix.Recvfrom(n.fd, n.buf, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("%s port %s: RDMA netlink receive: %w", device, port, err)
		}
		done, err := parseStatReply(n.buf[:m], n.seq, fn)
		if err != nil {
			if errors.Is(err, errStale) {
				n.index = map[string]uint32{} // re-learn at the next call
			}
			return fmt.Errorf("%s port %s: %w", device, port, err)
		}
		if done {
			return nil
		}
	}
}

// devices learns the index of every RDMA device (RDMA_NLDEV_CMD_GET dump).
func (n *NetlinkRDMA) devices() error {
	n.seq++
	seq := n.seq
	b := nlHeader(n.req[:0], nldevType(nldevCmdGet), unix.NLM_F_REQUEST|unix.NLM_F_DUMP, seq)
	n.req = finishMessage(b)
	if err := unix.Sendto(n.fd, n.req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fmt.Errorf("RDMA netlink device dump: %w", err)
	}
	index := map[string]uint32{}
	for {
		m, _, err := unix.Recvfrom(n.fd, n.buf, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("RDMA netlink device dump: %w", err)
		}
		done, err := parseDeviceDump(n.buf[:m], seq, index)
		if err != nil {
			return fmt.Errorf("RDMA netlink device dump: %w", err)
		}
		if done {
			n.index = index
			return nil
		}
	}
}

// nlHeader appends a netlink message header whose length finishMessage
// fills in.
func nlHeader(b []byte, typ, flags uint16, seq uint32) []byte {
	ne := binary.NativeEndian
	b = ne.AppendUint32(b, 0)
	b = ne.AppendUint16(b, typ)
	b = ne.AppendUint16(b, flags)
	b = ne.AppendUint32(b, seq)
	return ne.AppendUint32(b, 0) // port id: the kernel fills it
}

func finishMessage(b []byte) []byte {
	binary.NativeEndian.PutUint32(b, uint32(len(b)))
	return b
}

// appendU32Attr appends a u32 attribute.
func appendU32Attr(b []byte, typ uint16, v uint32) []byte {
	ne := binary.NativeEndian
	b = ne.AppendUint16(b, 8)
	b = ne.AppendUint16(b, typ)
	return ne.AppendUint32(b, v)
}

// statRequest builds RDMA_NLDEV_CMD_STAT_GET for one port: the default
// counter, every hw counter of the port.
func statRequest(b []byte, seq, dev, port uint32) []byte {
	b = nlHeader(b, nldevType(nldevCmdStatGet), unix.NLM_F_REQUEST, seq)
	b = appendU32Attr(b, nldevAttrDevIndex, dev)
	b = appendU32Attr(b, nldevAttrPortIndex, port)
	return finishMessage(b)
}

var errStale = errors.New("the device is gone (stale index)")

// messages calls f with the type, flags and body of each netlink message of
// b that answers seq, and stops at the first error f returns.
func messages(b []byte, seq uint32, f func(typ, flags uint16, body []byte) (bool, error)) (bool, error) {
	ne := binary.NativeEndian
	for len(b) >= unix.NLMSG_HDRLEN {
		l := int(ne.Uint32(b))
		if l < unix.NLMSG_HDRLEN || l > len(b) {
			return false, fmt.Errorf("bad netlink message length %d of %d bytes", l, len(b))
		}
		typ, flags, s := ne.Uint16(b[4:]), ne.Uint16(b[6:]), ne.Uint32(b[8:])
		body := b[unix.NLMSG_HDRLEN:l]
		if next := align4(l); next < len(b) {
			b = b[next:]
		} else {
			b = nil
		}
		if s != seq {
			continue // an answer to an earlier request that timed out
		}
		switch typ {
		case unix.NLMSG_DONE:
			return true, nil
		case unix.NLMSG_ERROR:
			if len(body) < 4 {
				return false, errors.New("short netlink error message")
			}
			errno := syscall.Errno(-int32(ne.Uint32(body)))
			switch errno {
			case 0:
				return true, nil
			case syscall.EOPNOTSUPP, syscall.EINVAL:
				// No stats for this port (a driver without hw_counters).
				return false, fmt.Errorf("RDMA netlink: %w: %w", ErrUnsupported, errno)
			case syscall.ENODEV, syscall.ENOENT:
				return false, fmt.Errorf("RDMA netlink: %w: %w", errStale, errno)
			}
			return false, fmt.Errorf("RDMA netlink: %w", errno)
		}
		if done, err := f(typ, flags, body); done || err != nil {
			return done, err
		}
	}
	return false, nil
}

// parseStatReply reads the answer to a STAT_GET: calls fn with each hw
// counter, and says whether the answer is complete.
func parseStatReply(b []byte, seq uint32, fn func(name []byte, value uint64)) (bool, error) {
	return messages(b, seq, func(typ, flags uint16, body []byte) (bool, error) {
		if typ != nldevType(nldevCmdStatGet) {
			return false, fmt.Errorf("RDMA netlink: unexpected message type %d", typ)
		}
		var err error
		found := false
		walkAttrs(body, func(t uint16, v []byte) {
			if t != nldevAttrHWCounters {
				return
			}
			found = true
			walkAttrs(v, func(t uint16, e []byte) {
				if t != nldevAttrHWCounter || err != nil {
					return
				}
				var name []byte
				var value uint64
				have := 0
				walkAttrs(e, func(t uint16, a []byte) {
					switch {
					case t == nldevAttrHWCounterNam:
						for len(a) > 0 && a[len(a)-1] == 0 {
							a = a[:len(a)-1]
						}
						name, have = a, have|1
					case t == nldevAttrHWCounterVal && len(a) == 8:
						value, have = binary.NativeEndian.Uint64(a), have|2
					}
				})
				if have != 3 || len(name) == 0 {
					err = errors.New("RDMA netlink: a hw counter without its name or value")
					return
				}
				fn(name, value)
			})
		})
		if err == nil && !found {
			err = fmt.Errorf("RDMA netlink: %w: no hw counters in the reply", ErrUnsupported)
		}
		// A doit answers with one message, NLM_F_MULTI unset.
		return flags&unix.NLM_F_MULTI == 0, err
	})
}

// parseDeviceDump reads the messages of a device dump into index, and says
// whether the dump is complete.
func parseDeviceDump(b []byte, seq uint32, index map[string]uint32) (bool, error) {
	return messages(b, seq, func(typ, _ uint16, body []byte) (bool, error) {
		if typ != nldevType(nldevCmdGet) {
			return false, fmt.Errorf("unexpected message type %d", typ)
		}
		var idx uint32
		var name string
		walkAttrs(body, func(t uint16, v []byte) {
			switch {
			case t == nldevAttrDevIndex && len(v) == 4:
				idx = binary.NativeEndian.Uint32(v)
			case t == nldevAttrDevName:
				for len(v) > 0 && v[len(v)-1] == 0 {
					v = v[:len(v)-1]
				}
				name = string(v)
			}
		})
		if name != "" {
			index[name] = idx
		}
		return false, nil
	})
}
