package ingest

import (
	"path/filepath"
	"strings"
	"testing"
)

// rdmaRes reads a corpus or synthetic file (relative to testdata) as an
// `rdma resource` artifact.
func rdmaRes(t *testing.T, rel string) *RDMAResource {
	t.Helper()
	return nicArtifact[*RDMAResource](t, readFile(t, filepath.Join("../../testdata", rel), rel))
}

// The QP lines of iproute2's first `rdma res show qp` (2018): kernel QPs,
// one bound to no port, every field of the line.
func TestRDMAResKernelQPs(t *testing.T) {
	r := rdmaRes(t, "corpus/rdma-res/rdma-res-show-qp-mlx5-kernel-qps-smi-gsi-ipoib-iproute2-8ecac46a.txt")
	if len(r.QPs) != 7 {
		t.Fatalf("%d QPs, want 7", len(r.QPs))
	}
	q := r.QPs[0]
	if q.Device != "mlx5_4" || q.Port != 0 || q.LQPN != 8 || q.Type != "UD" || q.State != "RESET" || q.Comm != "ib_ipoib" || !q.Kernel || q.RQPN != -1 || q.Evidence.Line != 4 {
		t.Errorf("QP[0] = %+v", q)
	}
	if q := r.QPs[3]; q.Port != 1 || q.LQPN != 0 || q.Type != "SMI" || q.State != "RTS" || q.Connected() {
		t.Errorf("QP[3] = %+v", q)
	}
}

// A user RC QP: pdn, rqpn and the PSNs between the fields, and its owner
// without brackets; pd, cq and mr lines are no QPs.
func TestRDMAResUserRCQP(t *testing.T) {
	r := rdmaRes(t, "corpus/rdma-res/rdma-res-show-pd-cq-mr-qp-rc-init-pingpong-iproute2-96f59e7f.txt")
	if len(r.QPs) != 5 {
		t.Fatalf("%d QPs, want 5", len(r.QPs))
	}
	q := r.QPs[4]
	if q.Type != "RC" || q.State != "INIT" || q.RQPN != 0 || q.PID != 548 || q.Comm != "ibv_rc_pingpong" || q.Kernel || !q.Connected() {
		t.Errorf("QP[4] = %+v", q)
	}
}

// `-dd -p` puts the driver's attributes on indented lines under the QP:
// they are not read as QPs.
func TestRDMAResDriverLines(t *testing.T) {
	r := rdmaRes(t, "corpus/rdma-res/rdma-res-show-qp-dd-p-cxgb4-nvme-rdma-driver-lines-iproute2-33115275.txt")
	if len(r.QPs) != 1 || r.QPs[0].Comm != "nvme_rdma" || r.QPs[0].LQPN != 1028 || r.QPs[0].Port != 0 || r.Lines() != 1 {
		t.Fatalf("QPs %+v, %d lines", r.QPs, r.Lines())
	}
}

// `rdma resource` summaries and `res show cm_id` lines.
func TestRDMAResSummaryAndCMIDs(t *testing.T) {
	r := rdmaRes(t, "corpus/rdma-res/rdma-resource-summary-and-cm-id-rping-cxgb4-mlx4-iproute2-9a362cc7.txt")
	if len(r.Summaries) != 2 || r.Summaries[1].Device != "mlx4_0" || r.Summaries[1].QPs != 3 || r.Summaries[1].CMIDs != 3 {
		t.Errorf("summaries %+v", r.Summaries)
	}
	if len(r.CMIDs) != 8 || len(r.QPs) != 0 {
		t.Fatalf("%d CM ids, %d QPs", len(r.CMIDs), len(r.QPs))
	}
	c := r.CMIDs[4]
	if c.Device != "mlx4_0" || c.Port != 1 || c.LQPN != 539 || c.QPType != "RC" || c.State != "CONNECT" || c.PID != 30494 || c.Src != "172.16.99.1:7174" || c.Dst != "172.16.99.1:43670" {
		t.Errorf("CM id %+v", c)
	}
	r = rdmaRes(t, "corpus/rdma-res/rdma-resource-show-qp-dd-umr-driver-qp-and-summary-iproute2-57d7a8fd.txt")
	if len(r.Summaries) != 4 || len(r.QPs) != 7 || r.QPs[4].Type != "DRIVER" || !r.QPs[4].Kernel {
		t.Errorf("%d summaries, QPs %+v", len(r.Summaries), r.QPs)
	}
}

// iproute2 5.1 and later print a CM id's index first, and its QP number
// and type only when it has a QP (rdma/res-cmid.c): a listener and an id
// still resolving are CM ids, not ports in state LISTEN or
// ADDR_RESOLVED. Synthetic, in res-cmid.c's order of fields.
func TestRDMAResCMIDsSince51(t *testing.T) {
	in := "$ rdma res show cm_id\n" +
		"link mlx5_0/- cm-idn 0 state LISTEN ps TCP pid 30485 comm rping src-addr 0.0.0.0:7174\n" +
		"link mlx5_0/1 cm-idn 3 state ADDR_RESOLVED ps TCP pid 30490 comm rping src-addr 172.16.99.1:0 dst-addr 172.16.99.2:7174\n" +
		"link mlx5_0/1 cm-idn 4 lqpn 539 qp-type RC state CONNECT ps TCP pid 30494 comm rping src-addr 172.16.99.1:7174 dst-addr 172.16.99.1:43670\n"
	res := nicReadText(t, "cm.txt", in)
	for _, a := range res.Artifacts {
		if d, ok := a.(*Devinfo); ok {
			t.Errorf("read as ibv-devinfo: %+v", d.Devices)
		}
	}
	r := nicArtifact[*RDMAResource](t, res)
	if len(r.CMIDs) != 3 || len(r.QPs) != 0 || len(r.Garbled) != 0 {
		t.Fatalf("CM ids %+v, QPs %+v, garbled %+v", r.CMIDs, r.QPs, r.Garbled)
	}
	if c := r.CMIDs[0]; c.Port != 0 || c.LQPN != 0 || c.QPType != "" || c.State != "LISTEN" || c.PID != 30485 || c.Src != "0.0.0.0:7174" {
		t.Errorf("CM id 0 = %+v", c)
	}
	if c := r.CMIDs[2]; c.Port != 1 || c.LQPN != 539 || c.QPType != "RC" || c.State != "CONNECT" || c.Dst != "172.16.99.1:43670" {
		t.Errorf("CM id 2 = %+v", c)
	}
}

// The QP lines are the QPs' states, not the port's: `rdma link` reads
// "link DEV/PORT ... state X" too, and took each for a port that is not
// ACTIVE.
func TestRDMAResNotRDMALink(t *testing.T) {
	res := readFile(t, "../../testdata/corpus/rdma-res/rdma-res-show-qp-mlx5-kernel-qps-smi-gsi-ipoib-iproute2-8ecac46a.txt", "qp.txt")
	for _, a := range res.Artifacts {
		if d, ok := a.(*Devinfo); ok {
			t.Errorf("read as ibv-devinfo: %+v", d.Devices)
		}
	}
}

// -j -p JSON, a key a line: the QPs' evidence is their "lqpn" line.
func TestRDMAResJSONPretty(t *testing.T) {
	r := rdmaRes(t, "synthetic/rdma-res-show-qp-json-pretty-rc-sqe-uc-err-synthetic.txt")
	if len(r.QPs) != 3 || len(r.Garbled) != 0 {
		t.Fatalf("QPs %+v garbled %+v", r.QPs, r.Garbled)
	}
	q := r.QPs[1]
	if q.Device != "rocep1s0f0" || q.Port != 1 || q.LQPN != 203 || q.RQPN != 204 || q.Type != "UC" || q.State != "SQE" || q.PID != 7311 || q.Comm != "ib_write_bw" || q.Kernel || !strings.Contains(q.Evidence.Text, `"lqpn": 203`) {
		t.Errorf("QP[1] = %+v", q)
	}
	if !r.QPs[0].Kernel || r.QPs[0].Comm != "ib_core" {
		t.Errorf("QP[0] = %+v", r.QPs[0])
	}
}

// One-line JSON: each QP's evidence is its object, with its column.
// Synthetic.
func TestRDMAResJSONOneLine(t *testing.T) {
	in := `[{"ifindex":0,"ifname":"mlx5_0","port":1,"lqpn":1,"type":"GSI","state":"RTS","sq-psn":0,"comm":"ib_core"},{"ifindex":0,"ifname":"mlx5_0","port":1,"lqpn":77,"rqpn":78,"type":"RC","state":"ERR","sq-psn":5,"pid":12,"comm":"python"}]` + "\n"
	r := nicArtifact[*RDMAResource](t, nicReadText(t, "j.txt", in))
	if len(r.QPs) != 2 {
		t.Fatalf("QPs %+v", r.QPs)
	}
	q := r.QPs[1]
	want := `{"ifindex":0,"ifname":"mlx5_0","port":1,"lqpn":77,"rqpn":78,"type":"RC","state":"ERR","sq-psn":5,"pid":12,"comm":"python"}`
	if q.State != "ERR" || q.Evidence.Text != want || q.Evidence.Col != strings.Index(in, want)+1 {
		t.Errorf("QP[1] = %+v", q)
	}
}

// Bad input: a QP line whose number or state does not read, and a JSON
// array cut short, are reported with line and column.
// Synthetic.
func TestRDMAResGarbled(t *testing.T) {
	in := "link mlx5_0/1 lqpn x9 type RC state ERR sq-psn 0 pid 4 comm a\n" +
		"link mlx5_0/1 lqpn 9 type RC state BROKEN sq-psn 0 pid 4 comm a\n" +
		"$ rdma res show qp -j\n" +
		`[{"ifindex":0,"ifname":"mlx5_0","port":1,"lqpn":1,` + "\n"
	r := nicArtifact[*RDMAResource](t, nicReadText(t, "g.txt", in))
	if len(r.Garbled) != 3 || len(r.QPs) != 0 {
		t.Fatalf("garbled %+v, QPs %+v", r.Garbled, r.QPs)
	}
	for i, want := range [][2]int{{1, 20}, {2, 36}, {4, 1}} {
		if g := r.Garbled[i]; g.Line != want[0] || g.Col != want[1] {
			t.Errorf("garble %d at %d:%d, want %d:%d (%s)", i, g.Line, g.Col, want[0], want[1], g.Error("g.txt"))
		}
	}
}

func FuzzRDMAResource(f *testing.F) {
	nicFuzz(f, NewRDMAResourceParser, nicSeeds("corpus/rdma-res/*.txt", "synthetic/rdma-res-*.txt"), func(t *testing.T, a Artifact, n int) {
		r := a.(*RDMAResource)
		if len(r.QPs) > MaxRDMAObjects || len(r.CMIDs) > MaxRDMAObjects || len(r.Garbled) > maxEthtoolGarbled {
			t.Fatalf("%d QPs", len(r.QPs))
		}
		for _, q := range r.QPs {
			nicCheckEvidence(t, q.Evidence, n)
			if q.Device == "" || q.Type == "" || !qpState(q.State) {
				t.Fatalf("QP %+v", q)
			}
		}
		for _, c := range r.CMIDs {
			nicCheckEvidence(t, c.Evidence, n)
		}
		for _, g := range r.Garbled {
			if g.Line < 1 || g.Line > n || g.Col < 1 {
				t.Fatalf("garble %+v", g)
			}
		}
	})
}

// `rdma -j -p res show qp` opens as `rdma -j -p statistic show` does
// ("[ {"): its QPs' numbers and PSNs are no hw counters.
func TestRDMAResJSONNotCounters(t *testing.T) {
	res := readFile(t, "../../testdata/synthetic/rdma-res-show-qp-json-pretty-rc-sqe-uc-err-synthetic.txt", "j.txt")
	for _, a := range res.Artifacts {
		if h, ok := a.(*HWCounters); ok {
			t.Errorf("read as hw-counters: %d samples", len(h.Samples))
		}
	}
}

// `rdma -j -p res show cm_id` of listeners only: since iproute2 5.1 a CM
// id without a QP prints "cm-idn" and no "lqpn" (rdma/res-cmid.c), and
// the array is still read, each id's evidence its "cm-idn" line; in one
// line, a listener beside a connected id. Synthetic, in res-cmid.c's
// order of keys.
func TestRDMAResJSONListeners(t *testing.T) {
	in := "[ {\n" +
		"        \"ifindex\": 0,\n" +
		"        \"ifname\": \"mlx5_0\",\n" +
		"        \"cm-idn\": 0,\n" +
		"        \"state\": \"LISTEN\",\n" +
		"        \"ps\": \"TCP\",\n" +
		"        \"pid\": 30485,\n" +
		"        \"comm\": \"rping\",\n" +
		"        \"src-addr\": \"0.0.0.0:7174\"\n" +
		"    },{\n" +
		"        \"ifindex\": 1,\n" +
		"        \"ifname\": \"mlx5_1\",\n" +
		"        \"port\": 1,\n" +
		"        \"cm-idn\": 2,\n" +
		"        \"state\": \"LISTEN\",\n" +
		"        \"ps\": \"UDP\",\n" +
		"        \"comm\": \"rdma_cm\"\n" +
		"    } ]\n" +
		`[{"ifindex":0,"ifname":"mlx5_0","cm-idn":0,"state":"LISTEN","ps":"TCP","pid":7,"comm":"rping","src-addr":"0.0.0.0:7174"},{"ifindex":0,"ifname":"mlx5_0","port":1,"cm-idn":4,"lqpn":539,"qp-type":"RC","state":"CONNECT","ps":"TCP","pid":7,"comm":"rping","src-addr":"172.16.99.1:7174","dst-addr":"172.16.99.1:43670"}]` + "\n"
	r := nicArtifact[*RDMAResource](t, nicReadText(t, "cm.json", in))
	if len(r.CMIDs) != 4 || len(r.QPs) != 0 || len(r.Garbled) != 0 {
		t.Fatalf("CM ids %+v, QPs %+v, garbled %+v", r.CMIDs, r.QPs, r.Garbled)
	}
	if c := r.CMIDs[1]; c.Device != "mlx5_1" || c.Port != 1 || c.LQPN != 0 || c.QPType != "" || c.State != "LISTEN" || c.Comm != "rdma_cm" || c.Evidence.Line != 14 {
		t.Errorf("CM id 1 = %+v", c)
	}
	if c := r.CMIDs[2]; c.State != "LISTEN" || c.Src != "0.0.0.0:7174" || c.Evidence.Line != 19 || c.Evidence.Col != 2 {
		t.Errorf("CM id 2 = %+v", c)
	}
	if c := r.CMIDs[3]; c.LQPN != 539 || c.QPType != "RC" || c.Dst != "172.16.99.1:43670" {
		t.Errorf("CM id 3 = %+v", c)
	}
}

// An object with an "lqpn" that is not read (no "ifname", or no "state")
// does not lend its text or line to the next QP: each QP's evidence is
// its own object. Synthetic.
func TestRDMAResJSONEvidenceOwnObject(t *testing.T) {
	second := `{"ifname":"mlx5_0","port":1,"lqpn":77,"type":"RC","state":"ERR","pid":12,"comm":"python"}`
	in := `[{"port":1,"lqpn":5,"type":"RC","state":"RTS"},` + second + "]\n" +
		"[ {\n" +
		"        \"ifname\": \"mlx5_0\",\n" +
		"        \"lqpn\": 6,\n" +
		"        \"type\": \"RC\"\n" +
		"    },{\n" +
		"        \"ifname\": \"mlx5_0\",\n" +
		"        \"lqpn\": 78,\n" +
		"        \"type\": \"RC\",\n" +
		"        \"state\": \"ERR\"\n" +
		"    } ]\n"
	r := nicArtifact[*RDMAResource](t, nicReadText(t, "j.txt", in))
	if len(r.QPs) != 2 || len(r.Garbled) != 0 {
		t.Fatalf("QPs %+v, garbled %+v", r.QPs, r.Garbled)
	}
	if q := r.QPs[0]; q.LQPN != 77 || q.Evidence.Text != second || q.Evidence.Col != strings.Index(in, second)+1 {
		t.Errorf("QP[0] = %+v", q)
	}
	if q := r.QPs[1]; q.LQPN != 78 || q.Evidence.Line != 8 || !strings.Contains(q.Evidence.Text, `"lqpn": 78`) {
		t.Errorf("QP[1] = %+v", q)
	}
}
