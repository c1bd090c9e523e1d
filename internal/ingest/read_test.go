package ingest

import (
	"errors"
	"fmt"
	"io"
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
