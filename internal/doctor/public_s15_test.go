package doctor

import (
	"strings"
	"testing"
)

// Artifacts of the fifteenth sweep. Each test failed before the change it
// covers.

// NCCL lists a 25G RoCE port and a 200G InfiniBand port, and every
// connection goes over NET/IB/1, the InfiniBand one (nccl-tests#350): the
// RoCE port's default GID index 0 is no index in use, so no GID finding;
// the gather's large-size drop is judged against the 200G port.
func TestListedRoCEPortNoConnection(t *testing.T) {
	fs := Diagnose([]string{nicTestdata("corpus/nccl-tests/gather-2.16.5-a100-roce25g-ib200g-mixed-list-channels-ib1-drop-6g-nccltests350.txt")}, nil, Options{}).Findings
	for _, f := range fs {
		if strings.HasPrefix(f.ID, "gid.") {
			t.Errorf("%s: %s", f.ID, f.Title)
		}
	}
	nicMustFind(t, fs, "nccltests.busbw.low", Error, "gather busbw plateau 11.69 GB/s", "200Gbps")
}
