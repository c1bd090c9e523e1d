package exporter

import (
	"encoding/binary"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// DCBNetlink reads QoS state from the kernel's DCB netlink interface
// (dcbnl, the one `dcb` and lldpad use): DCB_CMD_IEEE_GET returns the PFC
// configuration and the APP table. It only reads; the kernel requires no
// privilege for a get. Trust mode is derived as mlx5 does: a netdev trusts
// DSCP exactly when its APP table holds DSCP entries (mlnx_qos --trust dscp
// installs them), else PCP.
type DCBNetlink struct{}

// dcbnl constants from include/uapi/linux/dcbnl.h.
const (
	rtmGetDCB          = 78
	dcbCmdIEEEGet      = 21
	dcbAttrIfname      = 1
	dcbAttrIEEE        = 13
	dcbAttrIEEEPFC     = 2
	dcbAttrIEEEAppTbl  = 3
	dcbAttrIEEEApp     = 1
	appSelDSCP         = 5
	nlaTypeMask        = 0x3fff
	ieeePFCEnabledByte = 1 // struct ieee_pfc: pfc_cap, pfc_en, ...
)

// QoS implements QoSSource.
func (DCBNetlink) QoS(netdev string) (QoS, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return QoS{}, fmt.Errorf("dcbnl socket: %w", err)
	}
	defer unix.Close(fd)
	tv := unix.Timeval{Sec: 2}
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return QoS{}, fmt.Errorf("dcbnl bind: %w", err)
	}
	if err := unix.Sendto(fd, dcbRequest(netdev), 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return QoS{}, fmt.Errorf("dcbnl get %s: %w", netdev, err)
	}
	buf := make([]byte, 64<<10)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return QoS{}, fmt.Errorf("dcbnl get %s: %w", netdev, err)
	}
	return parseDCBReply(netdev, buf[:n])
}

// dcbRequest builds an RTM_GETDCB / DCB_CMD_IEEE_GET request for netdev.
func dcbRequest(netdev string) []byte {
	name := append([]byte(netdev), 0)
	attrLen := 4 + len(name)
	msgLen := unix.NLMSG_HDRLEN + 4 + align4(attrLen)
	b := make([]byte, msgLen)
	ne := binary.NativeEndian
	ne.PutUint32(b[0:], uint32(msgLen))
	ne.PutUint16(b[4:], rtmGetDCB)
	ne.PutUint16(b[6:], unix.NLM_F_REQUEST)
	ne.PutUint32(b[8:], 1) // sequence
	o := unix.NLMSG_HDRLEN
	b[o] = unix.AF_UNSPEC
	b[o+1] = dcbCmdIEEEGet
	o += 4
	ne.PutUint16(b[o:], uint16(attrLen))
	ne.PutUint16(b[o+2:], dcbAttrIfname)
	copy(b[o+4:], name)
	return b
}

// parseDCBReply reads the kernel's answer.
func parseDCBReply(netdev string, b []byte) (QoS, error) {
	ne := binary.NativeEndian
	if len(b) < unix.NLMSG_HDRLEN {
		return QoS{}, fmt.Errorf("dcbnl %s: short reply (%d bytes)", netdev, len(b))
	}
	msgLen := int(ne.Uint32(b[0:]))
	typ := ne.Uint16(b[4:])
	if msgLen > len(b) || msgLen < unix.NLMSG_HDRLEN {
		return QoS{}, fmt.Errorf("dcbnl %s: bad message length %d", netdev, msgLen)
	}
	body := b[unix.NLMSG_HDRLEN:msgLen]
	if typ == unix.NLMSG_ERROR {
		if len(body) < 4 {
			return QoS{}, fmt.Errorf("dcbnl %s: short error message", netdev)
		}
		errno := syscall.Errno(-int32(ne.Uint32(body)))
		if errno == 0 {
			return QoS{}, fmt.Errorf("dcbnl %s: acknowledged without data", netdev)
		}
		if errno == syscall.EOPNOTSUPP || errno == syscall.ENODEV {
			return QoS{}, fmt.Errorf("dcbnl %s: %w: %w", netdev, ErrUnsupported, errno)
		}
		return QoS{}, fmt.Errorf("dcbnl %s: %w", netdev, errno)
	}
	if typ != rtmGetDCB || len(body) < 4 {
		return QoS{}, fmt.Errorf("dcbnl %s: unexpected message type %d", netdev, typ)
	}
	q := QoS{}
	for i := range q.DSCP {
		q.DSCP[i] = -1
	}
	var ieee []byte
	walkAttrs(body[4:], func(t uint16, v []byte) {
		if t == dcbAttrIEEE {
			ieee = v
		}
	})
	if ieee == nil {
		return QoS{}, fmt.Errorf("dcbnl %s: %w: no IEEE attributes in the reply", netdev, ErrUnsupported)
	}
	dscp := false
	walkAttrs(ieee, func(t uint16, v []byte) {
		switch t {
		case dcbAttrIEEEPFC:
			if len(v) > ieeePFCEnabledByte {
				q.PFCKnown = true
				for p := range q.PFC {
					q.PFC[p] = v[ieeePFCEnabledByte]&(1<<p) != 0
				}
			}
		case dcbAttrIEEEAppTbl:
			walkAttrs(v, func(t uint16, app []byte) {
				// struct dcb_app: selector u8, priority u8, protocol u16.
				if t != dcbAttrIEEEApp || len(app) < 4 || app[0] != appSelDSCP {
					return
				}
				if d := ne.Uint16(app[2:]); d < 64 && app[1] < 8 {
					q.DSCP[d] = int8(app[1])
					dscp = true
				}
			})
		}
	})
	q.Trust = "pcp"
	if dscp {
		q.Trust = "dscp"
	}
	return q, nil
}

// walkAttrs calls f for each netlink attribute in b.
func walkAttrs(b []byte, f func(typ uint16, val []byte)) {
	ne := binary.NativeEndian
	for len(b) >= 4 {
		l := int(ne.Uint16(b))
		if l < 4 || l > len(b) {
			return
		}
		f(ne.Uint16(b[2:])&nlaTypeMask, b[4:l])
		l = align4(l)
		if l > len(b) {
			return
		}
		b = b[l:]
	}
}

func align4(n int) int { return (n + 3) &^ 3 }
