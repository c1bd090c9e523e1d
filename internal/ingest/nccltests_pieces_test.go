package ingest

import (
	"strings"
	"testing"
)

// A row printed in pieces around NCCL INFO lines whose later piece holds
// a figure no row can carry (synthetic, nccl#1453's form): the garble
// names the line and column of the piece that holds it, also when a
// record prefix and colour codes came off the lines. The row was read
// at its first piece's line with the joined text, and the column was
// figured from that line's length, left of its start: a negative column,
// and an index out of range (a panic) on lines whose text had changed.
func TestNCCLTestsRowPiecesGarbleAtPiece(t *testing.T) {
	const info = "h100clust-worker-1:497888:497888 [0] NCCL INFO 512 Bytes -> Algo 0 proto 0 time 25.259054"
	lines := []string{
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
		"512 128 float sum -1" + info,
		"    62.05    -1    0.01      0     62.05    1    0.01      0" + info,
	}
	for _, c := range []struct {
		name, prefix string
		col          int
	}{
		{"plain", "", 14},
		{"stamped and coloured", "2024-05-01T12:00:00.123456Z \x1b[32m", 28 + 5 + 14},
	} {
		x := parseTests(t, c.prefix+strings.Join(lines, "\n"+c.prefix)+"\n")
		if x == nil || len(x.Garbled) != 1 {
			t.Fatalf("%s: %+v; want one garbled row", c.name, x)
		}
		if g := x.Garbled[0]; g.Line != 3 || g.Col != c.col || !strings.Contains(g.Expected, "out-of-place algbw") {
			t.Errorf("%s: garble %s; want line 3, column %d, the out-of-place algbw", c.name, g.Error("f"), c.col)
		}
	}
}

// A piece completes a row only where nccl-tests ends one: after the root
// or after a whole half. A row cut inside its in-place half, followed by
// a line of four figures (synthetic), stays cut: joined, the figures
// went one column left (in-place busbw 26.35, the algbw). A row wrapped
// after its out-of-place half is whole again.
func TestNCCLTestsRowCutInsideHalfTakesNoPiece(t *testing.T) {
	const header = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
	x := parseTests(t, header+"     1048576        262144     float     sum      -1    40.12   26.14   45.74      0    39.80\n    39.80   26.35   46.11      0\n")
	if r := x.Runs[0]; len(r.Rows) != 0 || len(r.Truncated) != 1 || r.Truncated[0].Line != 2 {
		t.Errorf("cut inside a half: rows %+v, cut %v; want none read, line 2 cut", r.Rows, r.Truncated)
	}
	x = parseTests(t, header+"     1048576        262144     float     sum      -1    40.12   26.14   45.74      0\n    39.80   26.35   46.11      0\n")
	if r := x.Runs[0]; len(r.Rows) != 1 || len(r.Truncated) != 0 || r.Rows[0].In.BusBW != 46.11 || r.Rows[0].In.AlgBW != 26.35 {
		t.Errorf("cut after a half: rows %+v, cut %v; want one row, in-place busbw 46.11", r.Rows, r.Truncated)
	}
}
