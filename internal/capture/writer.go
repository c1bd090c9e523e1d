package capture

import (
	"io"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"rocelab/internal/unit"
)

// A Writer writes Ethernet frames into a pcapng file with nanosecond
// timestamps and the direction of each frame (inbound or outbound), as a
// capture on one port would hold them. Times are offsets from the Unix
// epoch, so simulated time 0 shows as 1970-01-01 00:00:00.
type Writer struct {
	ng      *pcapgo.NgWriter
	snaplen int
	in, out pcapgo.NgPacketOptions
}

// NewWriter starts a pcapng file for one interface named ifName.
// description is free text shown by Wireshark; snaplen 0 keeps frames whole.
func NewWriter(w io.Writer, ifName, description string, snaplen int) (*Writer, error) {
	intf := pcapgo.NgInterface{
		Name:                ifName,
		Description:         description,
		LinkType:            layers.LinkTypeEthernet,
		SnapLength:          uint32(snaplen),
		TimestampResolution: 9,
	}
	ng, err := pcapgo.NewNgWriterInterface(w, intf, pcapgo.NgWriterOptions{
		SectionInfo: pcapgo.NgSectionInfo{Application: "rocelab"},
	})
	if err != nil {
		return nil, err
	}
	wr := &Writer{ng: ng, snaplen: snaplen}
	wr.in.Flags = &pcapgo.NgEpbFlags{Direction: pcapgo.NgEpbFlagDirectionInbound}
	wr.out.Flags = &pcapgo.NgEpbFlags{Direction: pcapgo.NgEpbFlagDirectionOutbound}
	return wr, nil
}

// WriteFrame records frame (already cut to the snaplen) whose full length
// on the wire is wireLen, at time t.
func (w *Writer) WriteFrame(t unit.Time, frame []byte, wireLen int, outbound bool) error {
	ci := gopacket.CaptureInfo{
		Timestamp:     time.Unix(0, int64(t/unit.Nanosecond)).UTC(),
		CaptureLength: len(frame),
		Length:        wireLen,
	}
	opts := w.in
	if outbound {
		opts = w.out
	}
	return w.ng.WritePacketWithOptions(ci, frame, opts)
}

// Flush writes out what is buffered.
func (w *Writer) Flush() error { return w.ng.Flush() }
