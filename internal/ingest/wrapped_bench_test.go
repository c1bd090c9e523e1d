package ingest

import (
	"io"
	"strings"
	"testing"
)

// BenchmarkLineReader reads plain, colourised and Docker json-file lines
// (SYNTHETIC, shaped as NCCL prints them): MB/s and allocations per
// line of the unwrap and render paths.
func BenchmarkLineReader(b *testing.B) {
	const line = "gpu01:12345:12399 [3] NCCL INFO Channel 02/0 : 3[3] -> 4[4] via P2P/IPC/read"
	for _, c := range []struct{ name, line string }{
		{"plain", line},
		{"ansi", "\x1b[32m2024-05-01 10:00:00\x1b[0m \x1b[1m" + line + "\x1b(B\x1b[m"},
		{"json-file", `{"log":"` + line + `\n","stream":"stdout","time":"2024-05-01T10:00:00.123456789Z"}`},
	} {
		in := strings.Repeat(c.line+"\n", 1000)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				lr := NewLineReader(strings.NewReader(in))
				for {
					if _, err := lr.Next(); err == io.EOF {
						break
					}
				}
			}
		})
	}
}
