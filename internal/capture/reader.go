package capture

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

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

// A FormatError says an input is not a capture this package reads.
type FormatError struct {
	Msg string
}

// Error returns the message.
func (e *FormatError) Error() string { return e.Msg }

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
	// LinkType is the interface's link type; only Ethernet (1) is
	// decoded (a pcap of another link type is refused when opened).
	LinkType layers.LinkType
}

// Reader streams packets from a pcap or pcapng file with bounded memory.
type Reader struct {
	format string
	src    interface {
		ZeroCopyReadPacketData() ([]byte, gopacket.CaptureInfo, error)
	}
	ng      *pcapgo.NgReader
	tap     *ngTap
	snaplen int
	n       int
}

// NewReader recognises the format by its magic number and reads the file
// header. Gzip-compressed pcap is read as pcap.
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(4)
	if err != nil {
		return nil, &FormatError{Msg: fmt.Sprintf("not a pcap or pcapng file: %d bytes, expected at least a 24-byte pcap or 28-byte pcapng header", len(head))}
	}
	rd := &Reader{}
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
		pr, err := pcapgo.NewReader(br)
		if err != nil {
			return nil, &FormatError{Msg: "pcap: bad file header: " + err.Error()}
		}
		rd.src, rd.snaplen = pr, int(pr.Snaplen())
		if lt := pr.LinkType(); lt != layers.LinkTypeEthernet {
			return nil, &FormatError{Msg: fmt.Sprintf("pcap link type %d (%s) is not supported: expected Ethernet (1)", lt, lt)}
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
func (r *Reader) Next(p *Packet) error {
	data, ci, err := r.src.ZeroCopyReadPacketData()
	if err == io.EOF {
		return io.EOF
	}
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("packet %d: file ends inside a packet record (truncated capture)", r.n+1)
		}
		return fmt.Errorf("packet %d: %w", r.n+1, err)
	}
	lt := layers.LinkTypeEthernet
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
	return nil
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
}

const maxIDB = 64 << 10

// Read implements io.Reader, watching the bytes for interface blocks.
func (t *ngTap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.feed(p[:n])
	return n, err
}

func (t *ngTap) feed(p []byte) {
	for len(p) > 0 && !t.stopped {
		if t.left == 0 {
			shb := t.hdrN >= 4 && binary.LittleEndian.Uint32(t.hdr[:4]) == magicPcapNG
			need := 8
			if shb {
				need = 12
			}
			k := copy(t.hdr[t.hdrN:need], p)
			t.hdrN += k
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
