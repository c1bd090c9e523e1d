package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadNICCorpus streams every ethtool and perftest corpus copy,
// concatenated 50 times, through all parsers (go test -bench ReadNIC ./internal/ingest).
func BenchmarkReadNICCorpus(b *testing.B) {
	files, _ := filepath.Glob(nicCorpusPath("*/*.txt"))
	var in []byte
	for _, f := range files {
		d, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		in = append(append(in, d...), '\n')
	}
	in = bytes.Repeat(in, 50)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read("bench", bytes.NewReader(in)); err != nil {
			b.Fatal(err)
		}
	}
}
