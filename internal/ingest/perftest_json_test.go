package ingest

import (
	"math"
	"strings"
	"testing"

	"rocelab/internal/unit"
)

// perftest's --out_json report. Real: linux-rdma/perftest#216's latency
// report as the 2023 releases wrote it (unquoted keys, trailing commas):
// the banner fields and one latency row with its percentiles.
func TestPerftestJSONUnquotedLatency(t *testing.T) {
	p := nicArtifact[*Perftest](t, nicReadCorpus(t, "perftest/perftest-json-write-lat-rxe0-unquoted-keys-percentiles-perftest216.txt"))
	if len(p.Runs) != 1 {
		t.Fatalf("%d runs", len(p.Runs))
	}
	r := p.Runs[0]
	if r.Test != "ib_write_lat" || !r.Latency || r.Device != "rxe0" || r.MTU != 1024 || r.LinkType != "Ethernet" || r.GIDIndex != 1 || r.TXDepth != 1 || r.QPs != 1 || r.Connection != "RC" {
		t.Errorf("banner %+v", r)
	}
	if r.Fields["Mtu"].Line != 15 || r.Start.Line != 5 {
		t.Errorf("fields %+v start %+v", r.Fields, r.Start)
	}
	if len(r.Rows) != 1 {
		t.Fatalf("rows %+v", r.Rows)
	}
	row := r.Rows[0]
	if row.Bytes != 128 || row.Iterations != 5000 || row.TMin != 2.37 || row.TTypical != 2.42 || row.TAvg != 2.42 || row.P99 != 2.47 || row.P999 != 4.03 || row.LatUnit != "usec" || row.Evidence.Line != 29 {
		t.Errorf("row %+v", row)
	}
}

// perftestJSON is a SYNTHETIC report in the shape perftest's
// write_test_info_to_file and REPORT_FMT_JSON print (one quoted key a line),
// with the given results.
func perftestJSON(test, results string) string {
	return "# synthetic\n{\n\"test_info\": {\n\"test\": \"" + test + "\",\n\"Dual_port\": \"OFF\",\n\"Device\": \"mlx5_0\",\n\"Number_of_qps\": 1,\n" +
		"\"Transport_type\": \"IB\",\n\"Connection_type\": \"RC\",\n\"Mtu\": 4096,\n\"Link_type\": \"Ethernet\",\n\"GID_index\": 3,\n" +
		"\"rdma_cm_QPs\": \"OFF\",\n\"Data_ex_method\": \"Ethernet\"\n},\n\"results\": {\n" + results + "\n}\n}\n"
}

// The bandwidth's unit is the one MsgRate × MsgSize gives: MB/sec
// (2^20 bytes/s) by default, Gb/sec with --report_gbits; neither is a
// garbled row, with file:line:col. jq -c's one line reads the same
// (synthetic).
func TestPerftestJSONBandwidthUnit(t *testing.T) {
	mb := nicArtifact[*Perftest](t, nicReadText(t, "mb.json", perftestJSON("RDMA_Write_BW_Test",
		"\"MsgSize\": 65536,\n\"n_iterations\": 5000,\n\"BW_peak\": 11700.52,\n\"BW_average\": 11691.27,\n\"MsgRate\": 0.187060")))
	r := mb.Runs[0]
	if r.Test != "ib_write_bw" || r.Latency || r.GIDIndex != 3 || len(r.Rows) != 1 || r.Rows[0].Bytes != 65536 ||
		!nicNear(r.Rows[0].BWAvg, unit.BitRate(math.Round(11691.27*8*1048576))) || r.Rows[0].Evidence.Line != 20 {
		t.Errorf("MB/sec run %+v", r)
	}
	gb := nicArtifact[*Perftest](t, nicReadText(t, "gb.json", perftestJSON("RDMA_Write_Bidirectional_BW_Test",
		"\"MsgSize\": 65536,\n\"n_iterations\": 5000,\n\"BW_peak\": 0.00,\n\"BW_average\": 196.13,\n\"MsgRate\": 0.374088")))
	if r := gb.Runs[0]; !r.Bidirectional || len(r.Rows) != 1 || !nicNear(r.Rows[0].BWAvg, 196130000000) {
		t.Errorf("Gb/sec run %+v", r)
	}
	// 2 GiB messages: MsgRate prints as 0.000001 (x MsgSize is no bandwidth), the unit is the
	// command line's (synthetic).
	big := nicArtifact[*Perftest](t, nicReadText(t, "big.json", "[root@gpu01 ~]# ib_write_bw --report_gbits --out_json -s 2147483648 gpu02\n"+strings.TrimPrefix(perftestJSON("RDMA_Write_BW_Test",
		"\"MsgSize\": 2147483648,\n\"n_iterations\": 5000,\n\"BW_peak\": 97.50,\n\"BW_average\": 97.41,\n\"MsgRate\": 0.000001"), "# synthetic\n")))
	if r := big.Runs[0]; len(r.Rows) != 1 || !nicNear(r.Rows[0].BWAvg, 97410000000) || len(big.Garbled) != 0 {
		t.Errorf("2 GiB run %+v garbled %+v", r, big.Garbled)
	}
	// jq -c's one line (synthetic).
	one := `{"test_info":{"test":"Send_BW_Test","Device":"mlx5_2","Mtu":4096,"Link_type":"Ethernet"},"results":{"MsgSize":1048576,"n_iterations":1000,"BW_peak":97.5,"BW_average":97.41,"MsgRate":0.011612}}`
	if r := nicArtifact[*Perftest](t, nicReadText(t, "c.json", one)).Runs[0]; r.Test != "ib_send_bw" || r.Device != "mlx5_2" || len(r.Rows) != 1 || !nicNear(r.Rows[0].BWAvg, 97410000000) {
		t.Errorf("one-line run %+v", r)
	}
	// An object nested in results and test_info does not end them (synthetic).
	nested := `{"test_info":{"test":"Send_BW_Test","extra":{"a":1},"Device":"mlx5_2"},"results":{"MsgSize":1048576,"extra":{"n_iterations":7},"n_iterations":1000,"BW_peak":97.5,"BW_average":97.41,"MsgRate":0.011612}}`
	if p := nicArtifact[*Perftest](t, nicReadText(t, "n.json", nested)); len(p.Runs) != 1 || p.Runs[0].Device != "mlx5_2" || len(p.Runs[0].Rows) != 1 || p.Runs[0].Rows[0].Iterations != 1000 || len(p.Garbled) != 0 {
		t.Errorf("nested run %+v garbled %+v", p.Runs, p.Garbled)
	}
	// jq -S's order: results before test_info, on one line and on many (synthetic).
	sorted := `{"results":{"BW_average":97.41,"BW_peak":97.5,"MsgRate":0.011612,"MsgSize":1048576,"n_iterations":1000},"test_info":{"Device":"mlx5_2","test":"Send_BW_Test"}}`
	for _, doc := range []string{sorted, strings.NewReplacer("{", "{\n", ",", ",\n", "}", "\n}").Replace(sorted)} {
		if p := nicArtifact[*Perftest](t, nicReadText(t, "s.json", doc)); len(p.Runs) != 1 || p.Runs[0].Test != "ib_send_bw" || len(p.Runs[0].Rows) != 1 || !nicNear(p.Runs[0].Rows[0].BWAvg, 97410000000) || len(p.Garbled) != 0 {
			t.Errorf("sorted run %+v garbled %+v", p.Runs, p.Garbled)
		}
	}
	// Numbers out of range are garbled at their line, no row (synthetic).
	for _, c := range []struct{ results, want string }{
		{`"MsgSize":1e30,"n_iterations":1000,"BW_average":97.41,"MsgRate":0.011612`, "r.json:1:50: expected a MsgSize in bytes"},
		{`"MsgSize":1.5,"n_iterations":1000,"BW_average":97.41,"MsgRate":0.011612`, "r.json:1:50: expected a MsgSize in bytes"},
		{`"MsgSize":1048576,"n_iterations":-1,"BW_average":97.41,"MsgRate":0.011612`, "r.json:1:68: expected an n_iterations"},
		{`"MsgSize":1048576,"n_iterations":1e20,"BW_average":97.41,"MsgRate":0.011612`, "r.json:1:68: expected an n_iterations"},
		{`"MsgSize":1048576,"n_iterations":1000,"BW_average":1e400,"MsgRate":0.011612`, "r.json:1:87: expected a finite number for BW_average"},
		{`"MsgSize":1048576,"n_iterations":1000,"BW_average":97.41,"BW_peak":-Inf,"MsgRate":0.011612`, "r.json:1:106: expected a finite number for BW_peak"},
	} {
		p := nicArtifact[*Perftest](t, nicReadText(t, "r.json", `{"test_info":{"test":"Send_BW_Test"},"results":{`+c.results+`}}`))
		if len(p.Runs) != 1 || len(p.Runs[0].Rows) != 0 || len(p.Garbled) != 1 || !strings.HasPrefix(p.Garbled[0].Error("r.json"), c.want) {
			t.Errorf("%s: rows %+v garbled %+v", c.results, p.Runs[0].Rows, p.Garbled)
		}
	}
	// The same line after a UTF-8 byte order mark (synthetic).
	if rs := nicArtifact[*Perftest](t, nicReadText(t, "bom.json", "\ufeff"+one)).Runs; len(rs) != 1 || len(rs[0].Rows) != 1 || !nicNear(rs[0].Rows[0].BWAvg, 97410000000) {
		t.Errorf("BOM run %+v", rs)
	}
	bad := nicArtifact[*Perftest](t, nicReadText(t, "bad.json", perftestJSON("RDMA_Write_BW_Test",
		"\"MsgSize\": 65536,\n\"n_iterations\": 5000,\n\"BW_peak\": 500,\n\"BW_average\": 500,\n\"MsgRate\": 0.187060")))
	if len(bad.Runs[0].Rows) != 0 || len(bad.Garbled) != 1 || !strings.HasPrefix(bad.Garbled[0].Error("bad.json"), "bad.json:20:2: expected a BW_average that MsgRate") {
		t.Errorf("rows %+v garbled %+v", bad.Runs[0].Rows, bad.Garbled)
	}
}

// perftest's CUDA setup lines (--use_cuda) are read as its own, the GPU
// buffer line marking the run whose banner follows them. Real:
// linux-rdma/perftest#21's server on mlx5_2 with a V100.
func TestPerftestCUDALines(t *testing.T) {
	res := nicReadCorpus(t, "perftest/perftest-write-bw-use-cuda-v100-roce-mtu1024-server-cut-perftest21.txt")
	p := nicArtifact[*Perftest](t, res)
	if len(p.Runs) != 1 {
		t.Fatalf("%d runs", len(p.Runs))
	}
	r := p.Runs[0]
	if r.GPUBuffer.Line != 13 || r.Device != "mlx5_2" || r.MTU != 1024 || r.GIDIndex != 3 || r.Local == nil || r.Local.IPv4 != "10.0.21.3" {
		t.Errorf("run %+v", r)
	}
	if len(res.Artifacts) != 1 {
		t.Errorf("artifacts %d: the CUDA lines read as another format", len(res.Artifacts))
	}
}

// -c takes the connection type and -Q the CQ moderation: the peer is the
// argument after them (synthetic).
func TestPerftestPeerAfterValueFlags(t *testing.T) {
	p := nicArtifact[*Perftest](t, nicReadText(t, "c.txt", "# synthetic\n[root@gpu01 ~]# ib_send_bw -d mlx5_0 -c UD -Q 8 gpu02\nFailed to create AH\n"))
	if r := p.Runs[0]; r.Peer != "gpu02" || r.Host != "gpu01" {
		t.Errorf("peer %q host %q", r.Peer, r.Host)
	}
}

// A report whose test name is empty is a garbled line, not a panic
// (synthetic).
func TestPerftestJSONEmptyTestName(t *testing.T) {
	p := nicArtifact[*Perftest](t, nicReadText(t, "e.json", `{"test_info":{"test":"","Device":"mlx5_0"}}`))
	if len(p.Garbled) != 1 || !strings.HasPrefix(p.Garbled[0].Error("e.json"), "e.json:1:15: expected a perftest test name") {
		t.Errorf("garbled %+v", p.Garbled)
	}
}

// Flags without a value (perftest's getopt string and its has_arg = 0
// long options) do not swallow the peer; an attached value ("-dmlx5_0")
// is no separate argument (synthetic command lines).
func TestPerftestPeerAfterFlagsWithoutValue(t *testing.T) {
	for _, cmd := range []string{
		"ib_write_bw -d mlx5_0 --out_json gpu02",
		"ib_write_bw -d mlx5_0 -x 3 -O gpu02",
		"ib_write_bw -g gpu02",
		"ib_write_bw --use_cuda=0 --use_cuda_dmabuf gpu02",
		"ib_write_bw --use_cuda 0 --use-srq --odp --ipv6 gpu02",
		"ib_write_bw -dmlx5_0 -aF gpu02",
		"ib_write_bw -aFd mlx5_0 gpu02",
	} {
		p := nicArtifact[*Perftest](t, nicReadText(t, "c.txt", "# synthetic\n[root@gpu01 ~]# "+cmd+"\nFailed to create AH\n"))
		if r := p.Runs[0]; r.Peer != "gpu02" {
			t.Errorf("%s: peer %q", cmd, r.Peer)
		}
	}
}

// A JSON report cut before its closing brace ends at the first line that
// is neither a brace nor a "key: value" pair: the results object is
// garbled at its line, and the ib_write_bw run after it is read
// (synthetic).
func TestPerftestJSONCutReport(t *testing.T) {
	cut := strings.TrimSuffix(perftestJSON("RDMA_Write_BW_Test", "\"MsgSize\": 65536,\n\"n_iterations\": 5000"), "\n}\n}\n")
	p := nicArtifact[*Perftest](t, nicReadText(t, "cut.txt", cut+"\n"+syntheticPerftestRuns))
	if len(p.Garbled) != 1 || !strings.HasPrefix(p.Garbled[0].Error("cut.txt"), `cut.txt:16:1: expected a "results" object closed`) {
		t.Errorf("garbled %+v", p.Garbled)
	}
	if len(p.Runs) < 2 || len(p.Runs[1].Rows) == 0 {
		t.Errorf("runs after the cut report: %+v", p.Runs)
	}
}

// A results object read as neither a bandwidth nor a latency row (with
// --output=bandwidth perftest writes bw_avg alone, no unit, no size) is
// a garbled line, not a silently dropped row; duration mode's t_avg and
// tps_average are a latency row (synthetic, from perftest_parameters.c).
func TestPerftestJSONOtherResults(t *testing.T) {
	bw := nicArtifact[*Perftest](t, nicReadText(t, "bw.json", perftestJSON("RDMA_Write_BW_Test", "\"bw_avg\": 11691.270000,")))
	if len(bw.Runs[0].Rows) != 0 || len(bw.Garbled) != 1 || !strings.HasPrefix(bw.Garbled[0].Error("bw.json"), "bw.json:17:1: expected a results object with BW_average") {
		t.Errorf("rows %+v garbled %+v", bw.Runs[0].Rows, bw.Garbled)
	}
	dur := nicArtifact[*Perftest](t, nicReadText(t, "d.json", perftestJSON("Send_Latency_Test", "\"MsgSize\": 2,\n\"n_iterations\": 1000,\n\"t_avg\": 2.10,\n\"tps_average\": 470000.0")))
	if r := dur.Runs[0]; len(r.Rows) != 1 || r.Rows[0].TAvg != 2.10 || len(dur.Garbled) != 0 {
		t.Errorf("duration run %+v garbled %+v", r, dur.Garbled)
	}
}
