package exporter

import (
	"encoding/binary"
	"errors"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// attr encodes one netlink attribute, padded to 4 bytes.
func attr(typ uint16, val []byte) []byte {
	b := make([]byte, align4(4+len(val)))
	binary.NativeEndian.PutUint16(b, uint16(4+len(val)))
	binary.NativeEndian.PutUint16(b[2:], typ)
	copy(b[4:], val)
	return b
}

// message wraps a body in a netlink header of type typ.
func message(typ uint16, body []byte) []byte {
	b := make([]byte, unix.NLMSG_HDRLEN+len(body))
	binary.NativeEndian.PutUint32(b, uint32(len(b)))
	binary.NativeEndian.PutUint16(b[4:], typ)
	copy(b[unix.NLMSG_HDRLEN:], body)
	return b
}

// TestParseDCBReply reads a reply laid out as the kernel's dcbnl_ieee_fill
// writes it (synthetic bytes): PFC on priority 3, DSCP 26 and 48 mapped.
func TestParseDCBReply(t *testing.T) {
	pfc := make([]byte, 136) // struct ieee_pfc: pfc_cap, pfc_en, mbc, delay, requests[8], indications[8]
	pfc[0], pfc[1] = 8, 1<<3
	app := func(sel, prio byte, proto uint16) []byte {
		b := []byte{sel, prio, 0, 0}
		binary.NativeEndian.PutUint16(b[2:], proto)
		return attr(dcbAttrIEEEApp, b)
	}
	table := append(append(app(appSelDSCP, 3, 26), app(appSelDSCP, 6, 48)...), app(1, 4, 0x8906)...) // the last: an EtherType entry
	ieee := append(attr(dcbAttrIEEEPFC, pfc), attr(dcbAttrIEEEAppTbl|unix.NLA_F_NESTED, table)...)
	body := append([]byte{unix.AF_UNSPEC, dcbCmdIEEEGet, 0, 0}, attr(dcbAttrIEEE|unix.NLA_F_NESTED, ieee)...)
	q, err := parseDCBReply("eth0", message(rtmGetDCB, body))
	if err != nil {
		t.Fatal(err)
	}
	if !q.PFCKnown || q.PFC != [8]bool{3: true} {
		t.Errorf("PFC = %v (known %v), want priority 3 only", q.PFC, q.PFCKnown)
	}
	if q.Trust != "dscp" || q.DSCP[26] != 3 || q.DSCP[48] != 6 || q.DSCP[0] != -1 {
		t.Errorf("trust %q, DSCP 26→%d 48→%d 0→%d", q.Trust, q.DSCP[26], q.DSCP[48], q.DSCP[0])
	}
	// Without DSCP entries the netdev trusts PCP.
	body = append([]byte{unix.AF_UNSPEC, dcbCmdIEEEGet, 0, 0}, attr(dcbAttrIEEE, attr(dcbAttrIEEEPFC, pfc))...)
	if q, err := parseDCBReply("eth0", message(rtmGetDCB, body)); err != nil || q.Trust != "pcp" {
		t.Errorf("no APP table: trust %q, %v", q.Trust, err)
	}
}

func TestParseDCBErrors(t *testing.T) {
	errMsg := func(errno syscall.Errno) []byte {
		b := make([]byte, 4+unix.NLMSG_HDRLEN)
		binary.NativeEndian.PutUint32(b, uint32(-int32(errno)))
		return message(unix.NLMSG_ERROR, b)
	}
	if _, err := parseDCBReply("virbr0", errMsg(syscall.EOPNOTSUPP)); !errors.Is(err, ErrUnsupported) {
		t.Errorf("EOPNOTSUPP: %v, want ErrUnsupported", err)
	}
	if _, err := parseDCBReply("eth0", errMsg(syscall.EPERM)); reasonOf(err) != ReasonPermission {
		t.Errorf("EPERM: %v gives reason %q", err, reasonOf(err))
	}
	for _, b := range [][]byte{nil, {1, 2, 3}, message(rtmGetDCB, nil), message(rtmGetDCB, []byte{0, 21, 0, 0, 255, 255})} {
		if _, err := parseDCBReply("eth0", b); err == nil {
			t.Errorf("reply %x accepted", b)
		}
	}
}
