package ingest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// A read error ends Read with the error and the line it stopped before,
// after the lines read ahead of it; no partial result is returned.
func TestReadErrorAfterLines(t *testing.T) {
	var b strings.Builder
	for i := range 3000 { // several batches
		fmt.Fprintf(&b, "gpu01:1:1 [0] NCCL INFO Channel %02d/0 : 0[0] -> 1[1] via P2P/IPC\n", i%32)
	}
	boom := errors.New("device gone")
	r := io.MultiReader(strings.NewReader(b.String()), iotest.ErrReader(boom))
	res, err := Read("log", r)
	if res != nil || !errors.Is(err, boom) || !strings.Contains(err.Error(), "log: line 3001:") {
		t.Fatalf("got %v, %v; want the error at line 3001 and no result", res, err)
	}
}

// Lines reach the parsers in order across batch boundaries, long lines
// included: the line numbers and the line count are those of the input.
func TestReadBatchesKeepOrder(t *testing.T) {
	var b strings.Builder
	long := strings.Repeat("x", 60<<10)
	for i := range 2000 {
		if i%100 == 0 {
			b.WriteString(long + "\n")
			continue
		}
		fmt.Fprintf(&b, "gpu01:1:1 [0] NCCL INFO Channel %02d/0 : 0[0] -> 1[1] via P2P/IPC\n", i%32)
	}
	res, err := Read("log", strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if res.LineCount != 2000 {
		t.Errorf("line count %d, want 2000", res.LineCount)
	}
	lr := NewLineReader(strings.NewReader(b.String()))
	n := 0
	for l := range lineBatches("log", lr) {
		for _, x := range l.lines {
			n++
			if x.Num != n {
				t.Fatalf("line %d arrived as %d", n, x.Num)
			}
		}
	}
	if n != 2000 {
		t.Errorf("%d lines through the batches, want 2000", n)
	}
}

// A short input given as a strings.Reader is read through buffers its own
// size, not the 64 KiB and 256 KiB a stream gets: zeroing those was most
// of the cost of reading a paste or a cut of a file.
func TestReadSmallInputBuffers(t *testing.T) {
	text := strings.Repeat("gpu01:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n", 20)
	const n = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		if _, err := Read("paste", strings.NewReader(text)); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	per := (after.TotalAlloc - before.TotalAlloc) / n
	t.Logf("a Read of %d bytes allocates %d bytes", len(text), per)
	if per > 96<<10 {
		t.Errorf("a Read of %d bytes allocates %d bytes, want at most 96 KiB", len(text), per)
	}
}

// The lines, and so the result, do not depend on the buffer under them:
// the same inputs (a corpus copy, shorter than one sniff; a synthetic log with a line past
// jsonSniffBytes and one past MaxLineBytes) read from a strings.Reader (a buffer the input's
// size), from a reader that does not tell its size (64 KiB) and from a
// bufio.Reader of 1 MiB give the same result.
func TestReadBufferSizeKeepsLines(t *testing.T) {
	corpus, err := os.ReadFile(nicCorpusPath("nccl-log/ibext-merged-nics-wrong-socket-type-nccltests373.txt"))
	if err != nil {
		t.Fatal(err)
	}
	long := "gpu01:1:1 [0] NCCL INFO NCCL_IB_HCA set to " + strings.Repeat("mlx5_0:1,", 1200) + "\n" +
		"gpu01:1:1 [0] NCCL INFO cudaDriverVersion 12020\n" + strings.Repeat("x", MaxLineBytes+100) + "\n" +
		"gpu01:1:1 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\n"
	for name, text := range map[string]string{"corpus": string(corpus), "long lines": long} {
		want, err := Read(name, strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		for how, r := range map[string]io.Reader{
			"no size": io.MultiReader(strings.NewReader(text)),
			"1 MiB":   bufio.NewReaderSize(strings.NewReader(text), 1<<20),
		} {
			got, err := Read(name, r)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s read through %s differs from a strings.Reader's", name, how)
			}
		}
	}
}

// NewLineReader reads a *bufio.Reader it is given as it is, so the lines
// must not depend on that reader's size: through bufio.Readers of 16 and
// 17 bytes (a CRLF's two bytes fall in two fragments), 4 KiB (bufio's
// default) and 64 KiB, a corpus log, the same with CRLF line ends, and
// lines about MaxLineBytes long, CRLF-ended, the last without an end,
// give the lines a reader that does not tell its size gives.
func TestLineReaderBufferSizes(t *testing.T) {
	corpus, err := os.ReadFile(nicCorpusPath("nccl-log/ibext-merged-nics-wrong-socket-type-nccltests373.txt"))
	if err != nil {
		t.Fatal(err)
	}
	long := "gpu01:1:1 [0] NCCL INFO NCCL_IB_HCA set to " + strings.Repeat("mlx5_0:1,", 1200) + "\r\n" +
		strings.Repeat("x", MaxLineBytes+100) + "\r\n" + strings.Repeat("y", MaxLineBytes-1) + "\r\n" +
		strings.Repeat("z", MaxLineBytes) + "\r\n" + "gpu01:1:1 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\r\nno line end"
	for name, text := range map[string]string{
		"corpus":      string(corpus),
		"corpus CRLF": strings.ReplaceAll(string(corpus), "\n", "\r\n"),
		"long lines":  long,
	} {
		want := readerLines(io.MultiReader(strings.NewReader(text)))
		for _, size := range []int{16, 17, 4 << 10, 64 << 10} {
			if got := readerLines(bufio.NewReaderSize(strings.NewReader(text), size)); !reflect.DeepEqual(got, want) {
				t.Errorf("%s through a %d-byte bufio.Reader: %d lines, want %d (or they differ)", name, size, len(got), len(want))
			}
		}
	}
}
