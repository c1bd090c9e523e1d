package capture

import (
	"bufio"
	"encoding/binary"
	"io"
	"net/netip"

	"rocelab/internal/unit"
)

// pcapng block types and option codes written here (IETF draft
// draft-ietf-opsawg-pcapng, sections 4.1-4.3, 4.5 and 4.6).
const (
	blockSHB = 0x0a0d0d0a
	blockIDB = 0x00000001
	blockNRB = 0x00000004
	blockEPB = 0x00000006

	optEnd         = 0
	optComment     = 1
	optSHBUserAppl = 4
	optIfName      = 2
	optIfDesc      = 3
	optIfSpeed     = 8
	optIfTsresol   = 9
	optEPBFlags    = 2

	nrbEnd  = 0
	nrbIPv4 = 1
	nrbIPv6 = 2

	linkTypeEthernet = 1
)

// An Interface describes the one interface a Writer's capture is taken on.
type Interface struct {
	// Name and Description are shown by Wireshark (if_name,
	// if_description).
	Name, Description string
	// Speed is the link rate, written as if_speed so that pause quanta
	// convert to time without being told the rate.
	Speed unit.BitRate
	// Snaplen is the most bytes kept of a frame; 0 keeps frames whole.
	Snaplen int
}

// A HostName names an IP address, written in a Name Resolution Block so that
// readers (Wireshark, rocelab capture) show the name.
type HostName struct {
	Addr netip.Addr
	Name string
}

// A Writer writes Ethernet frames into a pcapng file with nanosecond
// timestamps and the direction of each frame (inbound or outbound), as a
// capture on one port would hold them. Times are offsets from the Unix
// epoch, so simulated time 0 shows as 1970-01-01 00:00:00. After the
// first frames have grown its buffer, writing a frame allocates nothing.
type Writer struct {
	w   *bufio.Writer
	buf []byte
	err error
}

// NewWriter starts a pcapng file: a section header carrying comment, the
// interface, and the host names (none: no Name Resolution Block).
func NewWriter(w io.Writer, comment string, intf Interface, names []HostName) (*Writer, error) {
	wr := &Writer{w: bufio.NewWriterSize(w, 64<<10)}
	// Section Header Block: byte-order magic, version 1.0, length unknown.
	body := le32(nil, 0x1a2b3c4d)
	body = le16(body, 1)
	body = le16(body, 0)
	body = le64(body, ^uint64(0))
	body = option(body, optComment, []byte(comment))
	body = option(body, optSHBUserAppl, []byte("rocelab"))
	body = le32(body, optEnd)
	wr.block(blockSHB, body)

	body = le16(nil, linkTypeEthernet)
	body = le16(body, 0)
	body = le32(body, uint32(intf.Snaplen))
	body = option(body, optIfName, []byte(intf.Name))
	body = option(body, optIfDesc, []byte(intf.Description))
	if intf.Speed > 0 {
		body = option(body, optIfSpeed, le64(nil, uint64(intf.Speed)))
	}
	body = option(body, optIfTsresol, []byte{9})
	body = le32(body, optEnd)
	wr.block(blockIDB, body)

	if len(names) > 0 {
		body = nil
		for _, n := range names {
			typ, addr := uint16(nrbIPv4), n.Addr.AsSlice()
			if n.Addr.Is6() {
				typ = nrbIPv6
			}
			rec := append(append(addr, n.Name...), 0)
			body = le16(body, typ)
			body = le16(body, uint16(len(rec)))
			body = pad(append(body, rec...))
		}
		body = le32(body, nrbEnd)
		wr.block(blockNRB, body)
	}
	return wr, wr.err
}

// block writes one block: type, total length, body (padded), total length.
func (w *Writer) block(typ uint32, body []byte) {
	if w.err != nil {
		return
	}
	n := uint32(12 + len(body))
	w.buf = le32(le32(w.buf[:0], typ), n)
	w.buf = append(w.buf, body...)
	w.buf = le32(w.buf, n)
	_, w.err = w.w.Write(w.buf)
}

// WriteFrame records frame (already cut to the snaplen) whose full length
// on the wire is wireLen, at time t, sent (outbound) or received.
func (w *Writer) WriteFrame(t unit.Time, frame []byte, wireLen int, outbound bool) error {
	if w.err != nil {
		return w.err
	}
	ns := uint64(t / unit.Nanosecond)
	padded := (len(frame) + 3) &^ 3
	n := uint32(8 + 20 + padded + 12 + 4) // header, fields, data, flags and end options, length
	b := le32(le32(w.buf[:0], blockEPB), n)
	b = le32(b, 0) // interface 0
	b = le32(b, uint32(ns>>32))
	b = le32(b, uint32(ns))
	b = le32(b, uint32(len(frame)))
	b = le32(b, uint32(wireLen))
	b = append(b, frame...)
	b = append(b, make([]byte, padded-len(frame))...)
	dir := uint32(1) // inbound
	if outbound {
		dir = 2
	}
	b = le16(le16(b, optEPBFlags), 4)
	b = le32(b, dir)
	b = le32(b, optEnd)
	w.buf = le32(b, n)
	_, w.err = w.w.Write(w.buf)
	return w.err
}

// Flush writes out what is buffered.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	return w.w.Flush()
}

func le16(b []byte, v uint16) []byte { return binary.LittleEndian.AppendUint16(b, v) }
func le32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
func le64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

// option appends an option: code, length, value padded to 32 bits. An empty
// value writes nothing.
func option(b []byte, code uint16, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = le16(le16(b, code), uint16(len(v)))
	return pad(append(b, v...))
}

// pad appends zeros up to a multiple of 4 bytes.
func pad(b []byte) []byte {
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}
