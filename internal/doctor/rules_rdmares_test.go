package doctor

import (
	"fmt"
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// iproute2's own `rdma res show qp` examples hold kernel QPs in RTS and
// RESET, an RC QP in INIT, CM ids and summaries: read, no finding (and,
// before, the QP lines were taken for `rdma link` ports not ACTIVE).
func TestRDMAResCorpusReadClean(t *testing.T) {
	wantReadNoFinding(t, "",
		"corpus/rdma-res/rdma-res-show-qp-mlx5-kernel-qps-smi-gsi-ipoib-iproute2-8ecac46a.txt",
		"corpus/rdma-res/rdma-res-show-pd-cq-mr-qp-rc-init-pingpong-iproute2-96f59e7f.txt",
		"corpus/rdma-res/rdma-resource-show-qp-dd-umr-driver-qp-and-summary-iproute2-57d7a8fd.txt",
		"corpus/rdma-res/rdma-resource-summary-and-cm-id-rping-cxgb4-mlx4-iproute2-9a362cc7.txt",
		"corpus/rdma-res/rdma-res-show-qp-dd-p-cxgb4-nvme-rdma-driver-lines-iproute2-33115275.txt")
}

// An NCCL process's RC QPs in ERR are an error per owner and port, each
// ERR line quoted; its QPs in RTS and the kernel's are counted, not
// quoted. Synthetic.
func TestRDMAResQPErrors(t *testing.T) {
	f := nicMustFind(t, diagnoseFiles(t, Options{}, "synthetic/rdma-res-show-qp-nccl-rc-err-after-retry-exceeded-synthetic.txt"),
		"rdma.qp.error", Error, "gpu07 mlx5_3/1: 4 of the 6 QPs of python (pid 41977) in ERR (RC)")
	if len(f.Evidence) != 4 || f.Evidence[0].Line != 7 || f.Evidence[3].Line != 12 || !strings.Contains(f.Fix, "rdma res show qp link mlx5_3/1 pid 41977") || strings.Contains(f.Mechanism, "device itself faulted") {
		t.Errorf("finding %+v", f)
	}
	nicMustFind(t, diagnoseFiles(t, Options{}, "synthetic/rdma-res-show-qp-json-pretty-rc-sqe-uc-err-synthetic.txt"),
		"rdma.qp.error", Error, "rocep1s0f0/1: the UC QP of ib_write_bw (pid 7311) in SQE")
}

// A QP listed twice is judged by its last line: ERR then RTS is no
// finding, RTS then ERR is. The device's GSI QP in ERR names a device
// fault. Synthetic.
func TestRDMAResQPLastReading(t *testing.T) {
	err := "link mlx5_0/1 lqpn 77 rqpn 78 type RC state ERR rq-psn 1 sq-psn 2 pid 12 comm python"
	rts := "link mlx5_0/1 lqpn 77 rqpn 78 type RC state RTS rq-psn 1 sq-psn 2 pid 12 comm python"
	if fs := nicFind(synthFindings(t, Options{}, err, rts), "rdma.qp.error"); len(fs) != 0 {
		t.Errorf("findings %s", nicTitles(fs))
	}
	f := nicMustFind(t, synthFindings(t, Options{}, rts, err), "rdma.qp.error", Error, "mlx5_0/1: the RC QP of python (pid 12) in ERR")
	if f.Evidence[0].Line != 2 {
		t.Errorf("finding %+v", f)
	}
	gsi := "link mlx5_0/1 lqpn 1 type GSI state ERR sq-psn 0 comm [ib_core]"
	fs := nicFind(synthFindings(t, Options{}, gsi, err), "rdma.qp.error")
	if len(fs) != 2 || !strings.Contains(fs[1].Mechanism, "device itself faulted") || fs[0].Title != "mlx5_0/1: the GSI QP of the kernel's ib_core in ERR" {
		t.Errorf("findings %s", nicTitles(fs))
	}
}

// A QP bound to no port ("mlx5_4/-") is named so, and the commands its
// fix gives take the device alone: rdma reads no "mlx5_4/-" link.
// Synthetic.
func TestRDMAResQPErrorNoPort(t *testing.T) {
	f := nicMustFind(t, synthFindings(t, Options{}, "link mlx5_4/- lqpn 80 type RC state ERR sq-psn 0 pid 9 comm python"),
		"rdma.qp.error", Error, "mlx5_4/-: the RC QP of python (pid 9) in ERR")
	if strings.Contains(f.Fix, "link mlx5_4/-") || !strings.Contains(f.Fix, "`rdma statistic show link mlx5_4`") || !strings.Contains(f.Fix, "`rdma res show qp link mlx5_4 pid 9`") {
		t.Errorf("fix %q", f.Fix)
	}
}

// A QP line whose state does not read is reported with its column.
// Synthetic.
func TestRDMAResGarbledFinding(t *testing.T) {
	f := nicMustFind(t, synthFindings(t, Options{}, "link mlx5_0/1 lqpn 9 type RC state BROKEN sq-psn 0 pid 4 comm a"), "input.garbled", Warn, "rdma resource output")
	if !strings.Contains(f.Evidence[0].String(), ":1:36:") && !strings.Contains(f.Title+f.Mechanism, "1:36") {
		t.Errorf("finding %+v", f)
	}
}

// QPs past the reader's bound are told as input.partial, not dropped
// unsaid; the kept ones are judged. Synthetic.
func TestRDMAResCapPartial(t *testing.T) {
	lines := make([]string, ingest.MaxRDMAObjects+3)
	for i := range lines {
		lines[i] = fmt.Sprintf("link mlx5_0/1 lqpn %d type RC state RTS sq-psn 0 pid 12 comm python", i+1)
	}
	fs := synthFindings(t, Options{}, lines...)
	f := nicMustFind(t, fs, "input.partial", Warn, "rdma resource")
	if len(f.Evidence) != 1 || !strings.HasPrefix(f.Evidence[0].Text, "3 QPs, CM ids or device lines beyond the limit of 65536") {
		t.Errorf("finding %+v", f)
	}
}
