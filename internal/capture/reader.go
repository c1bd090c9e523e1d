package capture

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"rocelab/internal/unit"
)

// File formats.
const (
	FormatPcap   = "pcap"
	FormatPcapNs = "pcap (nanosecond)"
	FormatPcapNG = "pcapng"
)

// Magic numbers, as the first four bytes read little-endian.
const (
	magicPcapUs   = 0xa1b2c3d4
	magicPcapNs   = 0xa1b23c4d
	magicPcapUsBE = 0xd4c3b2a1
	magicPcapNsBE = 0x4d3cb2a1
	magicPcapNG   = 0x0a0d0d0a
)

// IsCapture reports whether head starts like a pcap or pcapng file.
func IsCapture(head []byte) bool {
	if len(head) < 4 {
		return false
	}
	switch binary.LittleEndian.Uint32(head) {
	case magicPcapUs, magicPcapNs, magicPcapUsBE, magicPcapNsBE, magicPcapNG:
		return true
	}
	return false
}

// A FormatError says an input is not a capture this package reads. What,
// Why and Fix, when set, say what the input is instead, why that is not
// read, and what to capture or read in its place.
type FormatError struct {
	Msg            string
	What, Why, Fix string
}

// Error returns the message.
func (e *FormatError) Error() string { return e.Msg }

// Remedy returns what the input is, why it is not read and the fix; empty
// when the error says no more than Msg.
func (e *FormatError) Remedy() (what, why, fix string) { return e.What, e.Why, e.Fix }

// Packet is one captured frame. Data is valid until the next call to Next.
type Packet struct {
	// Num is the 1-based packet number, as Wireshark counts.
	Num int
	// Time is the capture timestamp in nanoseconds since the Unix epoch.
	Time int64
	Data []byte
	// Length is the frame's original length on the wire as the capture
	// header states it (it may include the FCS).
	Length int
	// Iface is the pcapng interface index (0 for pcap).
	Iface int
	// RawIP is set when the frame was a raw IP packet (no link-layer
	// header): Length counts the untagged 14-byte Ethernet header Next
	// gave it.
	RawIP bool
	// LinkType is the interface's link type; only Ethernet (1) is
	// decoded: Next rewrites cooked and raw IP frames as Ethernet, and a
	// pcap of another link type is refused when opened.
	LinkType layers.LinkType
}

// Reader streams packets from a pcap or pcapng file with bounded memory.
type Reader struct {
	format string
	src    interface {
		ZeroCopyReadPacketData() ([]byte, gopacket.CaptureInfo, error)
	}
	ng       *pcapgo.NgReader
	tap      *ngTap
	count    *countingReader // pcap: bytes read from the file so far
	whole    int64           // pcap: offset of the end of the last whole record
	linkType layers.LinkType // pcap: the file's link type
	snaplen  int
	n        int
	trunc    *Truncation
	cooked   []byte // a Linux cooked frame rewritten as Ethernet
}

// A Truncation says where a capture breaks off inside a record, as a
// capture does when tcpdump is killed before it flushes or a copy is cut.
// Offsets count bytes of the capture itself (after gzip decompression).
type Truncation struct {
	// Offset is where the incomplete record starts; Size is where the data
	// ends.
	Offset int64 `json:"offset"`
	Size   int64 `json:"size"`
	// LastPacket is the number of the last whole packet.
	LastPacket int `json:"last_whole_packet"`
}

// String describes the truncation in a sentence.
func (t *Truncation) String() string {
	if t.Size == t.Offset {
		return fmt.Sprintf("the compressed stream breaks off at byte offset %d of the capture, after packet %d (the last whole one)", t.Offset, t.LastPacket)
	}
	return fmt.Sprintf("the capture ends %d bytes into a record that starts at byte offset %d, after packet %d (the last whole one)", t.Size-t.Offset, t.Offset, t.LastPacket)
}

// NewReader recognises the format by its magic number and reads the file
// header. A gzip-compressed capture is read through gzip.
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &FormatError{Msg: "gzip: " + err.Error()}
		}
		br = bufio.NewReaderSize(zr, 64<<10)
	}
	head, err := br.Peek(4)
	if err != nil {
		return nil, &FormatError{Msg: fmt.Sprintf("not a pcap or pcapng file: %d bytes, expected at least a 24-byte pcap or 28-byte pcapng header", len(head))}
	}
	rd := &Reader{linkType: layers.LinkTypeEthernet}
	switch m := binary.LittleEndian.Uint32(head); m {
	case magicPcapNG:
		rd.format = FormatPcapNG
		rd.tap = &ngTap{r: br}
		ng, err := pcapgo.NewNgReader(rd.tap, pcapgo.NgReaderOptions{WantMixedLinkType: true})
		if err != nil {
			return nil, &FormatError{Msg: "pcapng: bad section header: " + err.Error()}
		}
		rd.ng, rd.src = ng, ng
	case magicPcapUs, magicPcapNs, magicPcapUsBE, magicPcapNsBE:
		rd.format = FormatPcap
		if m == magicPcapNs || m == magicPcapNsBE {
			rd.format = FormatPcapNs
		}
		rd.count = &countingReader{r: br}
		pr, err := pcapgo.NewReader(rd.count)
		if err != nil {
			return nil, &FormatError{Msg: "pcap: bad file header: " + err.Error()}
		}
		rd.src, rd.snaplen, rd.whole = pr, int(pr.Snaplen()), pcapHeaderLen
		rd.linkType = pr.LinkType()
		if lt := rd.linkType; !readable(lt) {
			e := infiniBandCapture(lt)
			e.Msg = fmt.Sprintf("pcap %s is not supported: expected Ethernet (1), Linux cooked capture (113, 276: tcpdump -i any) or raw IP (101, 228, 229; DLT_RAW 12, 14)", linkTypeName(lt))
			return nil, e
		}
	default:
		return nil, &FormatError{Msg: fmt.Sprintf("not a pcap or pcapng file: bad magic 0x%08x (expected a1b2c3d4, a1b23c4d, their byte swaps, or 0a0d0d0a)", m)}
	}
	return rd, nil
}

// Format returns FormatPcap, FormatPcapNs or FormatPcapNG.
func (r *Reader) Format() string { return r.format }

// Snaplen returns the largest snapshot length the file header states (0
// when it states none).
//
// A pcapng file declares its interfaces as it goes, so the answer is final
// only once every packet has been read.
func (r *Reader) Snaplen() int {
	if r.ng == nil {
		return r.snaplen
	}
	n := 0
	for i := 0; i < r.ng.NInterfaces(); i++ {
		if intf, err := r.ng.Interface(i); err == nil && int(intf.SnapLength) > n {
			n = int(intf.SnapLength)
		}
	}
	return n
}

// LinkSpeed returns interface i's speed from the pcapng if_speed option, or
// 0 when not stated.
func (r *Reader) LinkSpeed(i int) unit.BitRate {
	if r.tap == nil || i < 0 || i >= len(r.tap.speeds) {
		return 0
	}
	return unit.BitRate(r.tap.speeds[i])
}

// Next returns the next packet, or io.EOF after the last one. An error
// names the packet number where reading failed.
//
// A capture that breaks off inside a record ends with io.EOF after its last
// whole packet; Truncated then says where.
func (r *Reader) Next(p *Packet) error {
	data, ci, err := r.src.ZeroCopyReadPacketData()
	if err != nil {
		if r.trunc = r.truncation(err); r.trunc != nil || err == io.EOF {
			return io.EOF
		}
		return fmt.Errorf("packet %d: %w", r.n+1, err)
	}
	if r.count != nil {
		r.whole += pcapRecordHeaderLen + int64(len(data))
	}
	lt := r.linkType
	if r.ng != nil {
		if intf, e := r.ng.Interface(ci.InterfaceIndex); e == nil {
			lt = intf.LinkType
		}
	}
	r.n++
	*p = Packet{Num: r.n, Time: ci.Timestamp.UnixNano(), Data: data, Length: ci.Length, Iface: ci.InterfaceIndex, LinkType: lt}
	if p.Length < len(data) {
		p.Length = len(data)
	}
	r.uncook(p)
	return nil
}

// Truncated says where the capture broke off inside a record, or nil when
// it ended cleanly (or has not been read to its end).
func (r *Reader) Truncated() *Truncation { return r.trunc }

// truncation returns where the capture breaks off when err is the end of
// the data inside a record, or nil.
func (r *Reader) truncation(err error) *Truncation {
	if r.count != nil {
		// pcap: at the end of the data every byte has been read, so any
		// byte past the last whole record belongs to one that is cut.
		if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF && r.count.n > r.whole {
			return &Truncation{Offset: r.whole, Size: r.count.n, LastPacket: r.n}
		}
		return nil
	}
	// pcapng: the reader reports a cut block as an unexpected EOF, at times
	// only in its message; the tap knows where that block starts.
	t := r.tap
	if t == nil || !t.eof || t.stopped || !(t.left > 0 || t.hdrN > 0) {
		return nil
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) && !strings.Contains(err.Error(), io.ErrUnexpectedEOF.Error()) {
		return nil
	}
	return &Truncation{Offset: t.blockStart, Size: t.pos, LastPacket: r.n}
}

// Names returns the host names a pcapng Name Resolution Block gives, by
// address (nil when there are none).
func (r *Reader) Names() map[netip.Addr]string {
	if r.ng == nil || r.ng.NNames() == 0 {
		return nil
	}
	m := map[netip.Addr]string{}
	for i := 0; i < r.ng.NNames(); i++ {
		rec, err := r.ng.Name(i)
		ip, ok := rec.Addr.(*pcapgo.NgIPAddress)
		if err != nil || !ok || !ip.Addr.IsValid() || len(rec.Names) == 0 || rec.Names[0] == "" {
			continue
		}
		if _, dup := m[ip.Addr]; !dup {
			m[ip.Addr] = rec.Names[0]
		}
	}
	return m
}

// Sizes of the pcap file header and record header.
const (
	pcapHeaderLen       = 24
	pcapRecordHeaderLen = 16
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

// Read implements io.Reader.
func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// ngTap watches the pcapng block stream as NgReader consumes it, to learn
// the if_speed option (code 8) of each Interface Description Block, which
// NgReader does not keep. It holds at most one IDB at a time.
type ngTap struct {
	r     io.Reader
	bo    binary.ByteOrder
	hdr   [12]byte
	hdrN  int
	left  int    // bytes of the current block body still to pass
	idb   []byte // body of the current IDB, when one is passing
	inIDB bool
	// stopped is set on a malformed block; NgReader reports the fault.
	stopped bool
	speeds  []uint64 // per interface of the current section
	// pos counts the bytes passed; blockStart is where the current block
	// starts; eof is set once the input has ended.
	pos, blockStart int64
	eof             bool
}

const maxIDB = 64 << 10

// Read implements io.Reader, watching the bytes for interface blocks.
func (t *ngTap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.feed(p[:n])
	t.eof = t.eof || err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF)
	return n, err
}

func (t *ngTap) feed(p []byte) {
	for len(p) > 0 && !t.stopped {
		if t.left == 0 {
			if t.hdrN == 0 {
				t.blockStart = t.pos
			}
			shb := t.hdrN >= 4 && binary.LittleEndian.Uint32(t.hdr[:4]) == magicPcapNG
			need := 8
			if shb {
				need = 12
			}
			k := copy(t.hdr[t.hdrN:need], p)
			t.hdrN += k
			t.pos += int64(k)
			p = p[k:]
			if t.hdrN < need || (need == 8 && binary.LittleEndian.Uint32(t.hdr[:4]) == magicPcapNG) {
				continue
			}
			t.startBlock()
			continue
		}
		k := min(len(p), t.left)
		if t.inIDB && len(t.idb)+k <= maxIDB {
			t.idb = append(t.idb, p[:k]...)
		}
		t.left -= k
		t.pos += int64(k)
		p = p[k:]
		if t.left == 0 && t.inIDB {
			t.endIDB()
		}
	}
}

// startBlock reads a block header from t.hdr.
func (t *ngTap) startBlock() {
	typ := binary.LittleEndian.Uint32(t.hdr[:4])
	used := t.hdrN
	t.hdrN = 0
	if typ == magicPcapNG {
		if binary.LittleEndian.Uint32(t.hdr[8:12]) == 0x1a2b3c4d {
			t.bo = binary.LittleEndian
		} else {
			t.bo = binary.BigEndian
		}
		t.speeds = t.speeds[:0]
	}
	if t.bo == nil {
		t.stopped = true // not pcapng after all: stop watching
		return
	}
	typ = t.bo.Uint32(t.hdr[:4])
	length := int(t.bo.Uint32(t.hdr[4:8]))
	t.left = length - used
	if t.left <= 0 {
		t.stopped = true // malformed; NgReader reports it
		return
	}
	t.inIDB = typ == 1
	t.idb = t.idb[:0]
}

// endIDB records the if_speed of the IDB just passed (0 if absent).
func (t *ngTap) endIDB() {
	t.inIDB = false
	var speed uint64
	b := t.idb
	if len(b) >= 8 {
		b = b[8:] // link type, reserved, snaplen
		for len(b) >= 4 {
			code, n := t.bo.Uint16(b), int(t.bo.Uint16(b[2:]))
			b = b[4:]
			if code == 0 || n > len(b) {
				break
			}
			if code == 8 && n == 8 {
				speed = t.bo.Uint64(b)
			}
			b = b[min((n+3)&^3, len(b)):]
		}
	}
	t.speeds = append(t.speeds, speed)
}
