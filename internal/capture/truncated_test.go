package capture

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os/exec"
	"strings"
	"testing"

	"rocelab/internal/wire/tshark"
)

// recordEnds returns the byte offset where each record of a pcap (24-byte
// header, 16-byte record headers) or little-endian pcapng ends.
func recordEnds(data []byte, ng bool) []int64 {
	var ends []int64
	off := 24
	if ng {
		off = 0
	}
	for off < len(data) {
		var n int
		if ng {
			n = int(binary.LittleEndian.Uint32(data[off+4:]))
			if binary.LittleEndian.Uint32(data[off:]) != 6 { // not a packet
				off += n
				continue
			}
		} else {
			n = 16 + int(binary.LittleEndian.Uint32(data[off+8:]))
		}
		off += n
		ends = append(ends, int64(off))
	}
	return ends
}

// tsharkPackets counts the packets tshark reads from a file, which for a
// cut capture is every whole one (tshark then exits with an error).
func tsharkPackets(t *testing.T, path string) int {
	p, err := tshark.Path()
	if err != nil {
		return -1
	}
	out, _ := exec.Command(p, "-n", "-r", path, "-T", "fields", "-e", "frame.number").Output()
	return strings.Count(string(out), "\n")
}

// A capture cut anywhere inside a record is analysed up to its last whole
// packet, with the cut's place reported; cut between records it is simply
// shorter. tshark, when installed, reads the same number of packets.
func TestTruncatedCapture(t *testing.T) {
	_, err := tshark.Path()
	haveTshark := err == nil
	s := gbnScenario()
	for _, ng := range []bool{false, true} {
		full, name := s.pcap(), "cut.pcap"
		if ng {
			full, name = s.pcapng([]uint64{100e9}, false), "cut.pcapng"
		}
		ends := recordEnds(full, ng)
		whole := analyze(t, full, Options{})
		if int(whole.Packets) != len(ends) {
			t.Fatalf("%s: %d packets, %d records", name, whole.Packets, len(ends))
		}
		// Cuts: one byte into a record, inside its header, inside its data,
		// one byte short of its end, and exactly at a record boundary.
		for k := 2; k < len(ends); k += 7 {
			start, end := ends[k-1], ends[k]
			for _, cut := range []int64{start + 1, start + 10, (start + end) / 2, end - 1, start} {
				data := full[:cut]
				a, err := Analyze(name, bytes.NewReader(data), Options{})
				if err != nil {
					t.Fatalf("%s cut at %d: %v", name, cut, err)
				}
				if a.Packets != int64(k) {
					t.Errorf("%s cut at %d: %d packets, want %d", name, cut, a.Packets, k)
				}
				tr := a.Truncated
				switch {
				case cut == start && tr != nil:
					t.Errorf("%s cut at the record boundary %d: reported truncated %+v", name, cut, tr)
				case cut != start && (tr == nil || tr.Offset != start || tr.Size != cut || tr.LastPacket != k):
					t.Errorf("%s cut at %d: truncation %+v, want offset %d size %d after packet %d", name, cut, tr, start, cut, k)
				}
				if cut != start && !strings.HasPrefix(a.Notes[0], "truncated: the capture ends") {
					t.Errorf("%s cut at %d: notes %q", name, cut, a.Notes)
				}
				if haveTshark && k == 2 && (cut == start+10 || cut == end-1) {
					if n := tsharkPackets(t, writeTemp(t, name, data)); n != k {
						t.Errorf("%s cut at %d: tshark reads %d packets, we %d", name, cut, n, k)
					}
				}
			}
		}
	}
}

// A gzip-compressed capture reads like the plain one, also when cut.
func TestGzipCapture(t *testing.T) {
	full := gbnScenario().pcapng([]uint64{100e9}, false)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(full[:len(full)-3])
	zw.Close()
	a, err := Analyze("cut.pcapng.gz", &z, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ends := recordEnds(full, true)
	if a.Format != FormatPcapNG || a.Packets != int64(len(ends)-1) || a.Truncated == nil || a.Truncated.Offset != ends[len(ends)-2] {
		t.Errorf("format %s, %d packets, truncation %+v", a.Format, a.Packets, a.Truncated)
	}
}
