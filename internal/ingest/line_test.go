package ingest

import (
	"io"
	"strings"
	"testing"
)

func TestIsNCCLLine(t *testing.T) {
	for s, want := range map[string]bool{
		"host:1:2 [0] NCCL INFO Using network IB":                                true,
		"host:1:2 [4] transport/net_ib.cc:2244 NCCL WARN NET/IB: Got completion": true,
		" [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE":                         true,
		"NCCL version 2.13.4+cuda11.3":                                           false,
		"     rx_prio3_pause: 12":                                                false,
		"use NCCL to test NCCL INFO lines":                                       true,
		"NCCL NCCL NCCL":                                                         false,
	} {
		if got := IsNCCLLine(s); got != want {
			t.Errorf("IsNCCLLine(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestLineReaderCleansAndClassifies(t *testing.T) {
	in := "\x1b[32mhost:1:2 [0] NCCL INFO ok\x1b[0m\r\n> > [1,0]<stdout>:     rx_discards_phy: 7\n```\n" + strings.Repeat("x", MaxLineBytes+10) + "\nlast"
	got := readAllLines(in)
	if len(got) != 5 {
		t.Fatalf("%d lines", len(got))
	}
	if got[0].Text != "host:1:2 [0] NCCL INFO ok" || !got[0].NCCL {
		t.Errorf("line 1: %+v", got[0])
	}
	if got[1].Text != "    rx_discards_phy: 7" && got[1].Text != "rx_discards_phy: 7" && !strings.HasSuffix(got[1].Text, "rx_discards_phy: 7") || got[1].NCCL {
		t.Errorf("line 2: %q", got[1].Text)
	}
	if got[2].Text != "" {
		t.Errorf("code fence kept: %q", got[2].Text)
	}
	if !got[3].Truncated || len(got[3].Text) != MaxLineBytes || got[4].Text != "last" || got[4].Num != 5 {
		t.Errorf("long line: truncated %v len %d; next %+v", got[3].Truncated, len(got[3].Text), got[4])
	}
}

// readAllLines returns every line a LineReader yields from text.
func readAllLines(text string) []Line { return readerLines(strings.NewReader(text)) }

// readerLines returns every line a LineReader yields from r.
func readerLines(r io.Reader) []Line {
	lr := NewLineReader(r)
	var out []Line
	for {
		l, err := lr.Next()
		if err != nil {
			return out
		}
		out = append(out, l)
	}
}
