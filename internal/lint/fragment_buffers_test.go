package lint

import (
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

// TestLintQoSWithoutBuffers: SONiC's rendered qos.json for an Arista
// 7260 T0 (real, stock corpus) sets pfc_enable 3,4 on its ports and holds
// no buffer table: alone it says, as config.not_judged, that the headroom
// and buffers were not judged, instead of no finding at all; beside its
// buffers.json render it does not.
func TestLintQoSWithoutBuffers(t *testing.T) {
	qos := filepath.Join(stockDir, "qos-arista7260-t0.json")
	buffers := filepath.Join(stockDir, "buffer-arista7260-t0.json")
	for _, c := range []struct {
		files []string
		want  bool
	}{{[]string{qos}, true}, {[]string{qos, buffers}, false}} {
		var got []string
		for _, fd := range lintFiles(t, c.files...).Findings {
			if buffersNotJudged(fd) {
				got = append(got, fd.Title)
				if len(fd.Evidence) == 0 {
					t.Errorf("%v: no evidence", c.files)
				}
			}
		}
		if c.want != (len(got) == 1) || len(got) > 1 {
			t.Errorf("%v: got %q, want a finding: %v", c.files, got, c.want)
		}
	}
}

// buffersNotJudged reports whether fd is the config.not_judged a SONiC
// fragment that sets PFC without buffer tables (a qos.json) gets.
func buffersNotJudged(fd doctor.Finding) bool {
	return fd.ID == "config.not_judged" && strings.Contains(fd.Title, "without BUFFER_PG or BUFFER_PROFILE: not judged: the PFC headroom")
}
