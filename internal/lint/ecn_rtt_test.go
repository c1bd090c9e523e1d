package lint

import (
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

// ECN thresholds are judged against the fabric's RTT, which a CONFIG_DB
// does not state: on Arista's stock 7060X6 (Tomahawk 5, 400G) SKU, Kmax
// 256 KiB is below one BDP only at the assumed 20 µs RTT, a warning that
// names the 5.2 µs it drains in; a description beside it that states the
// RTT makes it an error. SONiC's AZURE_LOSSLESS (Kmin 1 MiB) on a CONFIG_DB
// whose priority group sends XOFF well above 1 MiB marks late but before
// PFC pauses: info.
func TestECNJudgedAtFabricRTT(t *testing.T) {
	th5 := "../../testdata/corpus/sonic/buildimage-render-arista-7060x6-16pe-384c-o128s2-t0-qos-buffers-synthetic-ports.json"
	one := func(fs []doctor.Finding) []doctor.Finding {
		var out []doctor.Finding
		for _, f := range fs {
			if f.ID == "switch.ecn.thresholds" {
				out = append(out, f)
			}
		}
		return out
	}
	fs := one(lintFiles(t, th5).Findings)
	if len(fs) != 2 {
		t.Fatalf("%d switch.ecn.thresholds findings on the 7060X6 render, want 2 (queues 3 and 4)", len(fs))
	}
	for _, f := range fs {
		if f.Severity != doctor.Warn || !strings.Contains(f.Title, "an assumed RTT of 20us") || !strings.Contains(f.Title, "Kmax drains in 5.2us, one BDP only where the fabric's RTT is 5.2us or less") {
			t.Errorf("7060X6 stock: %v %q", f.Severity, f.Title)
		}
	}
	stated := lintWritten(t, map[string]string{"fabric-rtt-synthetic.yaml": "topology: {kind: single-switch, hosts: 2, host_link: {rate: 400G}}\nswitch:\n  ecn: {rtt: 12us}\n"}, th5)
	fs = one(stated)
	if len(fs) != 2 {
		t.Fatalf("%d findings with the RTT stated, want the 2 profiles: %v", len(fs), fs)
	}
	for _, f := range fs {
		if f.Severity != doctor.Error || !strings.Contains(f.Title, "RTT 12us") {
			t.Errorf("RTT stated: %v %q", f.Severity, f.Title)
		}
		if !strings.Contains(evidenceText(f), "fabric-rtt-synthetic.yaml:3") {
			t.Errorf("RTT stated: evidence %v lacks switch.ecn.rtt's line", f.Evidence)
		}
	}
	// The same numbers from `ecnconfig -l` (the doctor's rule, lint's
	// front end) beside the same config and description: the same verdict
	// at the stated RTT, with its line.
	ecnconfig := "# synthetic: ecnconfig -l with the 7060X6 render's WRED_LOSSLESS_Q3 thresholds\nProfile: WRED_LOSSLESS_Q3\n-----------------------  -------\nwred_green_enable        true\necn                      ecn_all\ngreen_min_threshold      131072\ngreen_max_threshold      262144\ngreen_drop_probability   5\n-----------------------  -------\n"
	fs = one(lintWritten(t, map[string]string{"fabric-rtt-synthetic.yaml": "topology: {kind: single-switch, hosts: 2, host_link: {rate: 400G}}\nswitch:\n  ecn: {rtt: 12us}\n", "ecnconfig-l-synthetic.txt": ecnconfig}, th5))
	if len(fs) != 3 {
		t.Fatalf("%d findings with ecnconfig -l beside them, want 3: %v", len(fs), fs)
	}
	for _, f := range fs {
		if f.Severity != doctor.Error || !strings.Contains(f.Title, "(600KB at 400Gbps, RTT 12us)") || !strings.Contains(evidenceText(f), "fabric-rtt-synthetic.yaml:3") {
			t.Errorf("ecnconfig -l beside a stated RTT: %v %q %v", f.Severity, f.Title, f.Evidence)
		}
	}
	fs = one(lintFiles(t, "../../testdata/corpus/sonic-stock/utilities-db_migrator_input-config_db-qos_tables_db_field_value_reference_format_3_0_3.json").Findings)
	if len(fs) != 1 || fs[0].Severity != doctor.Info || !strings.Contains(fs[0].Title, "Kmin 1MiB is 4.2 BDPs") || !strings.Contains(fs[0].Mechanism, "marks before its priority group sends XOFF") {
		t.Errorf("AZURE_LOSSLESS below the XOFF point: %v", fs)
	}
	// `ecnconfig -l` of the same profile beside that config_db is judged
	// against the config's XOFF point, as it is at its PORT speed: the
	// same verdict as the config's own row.
	fs = one(lintFiles(t, "../../testdata/corpus/sonic-stock/utilities-db_migrator_input-config_db-qos_tables_db_field_value_reference_format_3_0_3.json", "testdata/util-ecnconfig-l.txt").Findings)
	if len(fs) != 2 {
		t.Fatalf("%d findings with ecnconfig -l beside the config, want 2: %v", len(fs), fs)
	}
	for _, f := range fs {
		if f.Severity != doctor.Info || !strings.Contains(f.Title, "Kmin 1MiB is 4.2 BDPs") || !strings.Contains(f.Mechanism, "marks before its priority group sends XOFF") {
			t.Errorf("ecnconfig -l beside the config's buffers: %v %q", f.Severity, f.Title)
		}
	}
}

func evidenceText(f doctor.Finding) string {
	var b strings.Builder
	for _, e := range f.Evidence {
		b.WriteString(e.String() + "\n")
	}
	return b.String()
}
