package doctor

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// ncclLogFindingsS49 is what the doctor finds in each of the real logs
// taken from public threads in session 49 (testdata/corpus/nccl-log; each
// file names its source): every finding's id and severity, sorted.
var ncclLogFindingsS49 = []struct{ file, want string }{
	// NVIDIA/nccl#1769: four GB200 GPUs registered (state 3) with
	// healthMask 0xaa, every health field false: nothing to report.
	{"nccl-2.2x-gb200-mnnvl-fabric-state-3-healthmask-0xaa-four-gpus-nccl1769.txt", ""},
	// deepseek-ai/DeepEP#143: an H200 node's NVSwitch fabric, state 3,
	// health not supported (0x0), zero cluster UUID: nothing to report.
	{"nccl-2.2x-h200-mnnvl-fabric-uuid-zero-state-3-healthmask-0-deepep143.txt", ""},
}

func TestNCCLLogCorpusFindingsS49(t *testing.T) { checkLogFindings(t, ncclLogFindingsS49) }

// NVML's health mask as NCCL prints it: two-bit fields, 1 true and 2
// false, at shifts 0 (degraded bandwidth), 2 (route recovery), 4 (route
// unhealthy), 6 (access timeout recovery); a four-bit configuration code
// from bit 8 (1 none, 2-5 faults). 0xaa is healthy, 0x0 not supported.
func TestFabricFaults(t *testing.T) {
	for _, c := range []struct {
		state  int
		health uint64
		want   []string
	}{
		{3, 0xaa, nil},
		{3, 0x0, nil},
		{3, 0x1aa, nil},
		{3, 0xa9, []string{"degraded bandwidth"}},
		{3, 0x9a, []string{"route unhealthy"}},
		{3, 0x6a, []string{"access timeout recovery"}},
		{3, 0xa6, []string{"route recovery in progress"}},
		{3, 0x5aa, []string{"insufficient NVLinks"}},
		{3, 0x6aa, []string{"incompatible GPU firmware"}},
		{3, 0x8aa, []string{"GPU state invalid"}},
		{2, 0xaa, []string{"registration in progress (state 2)"}},
		{1, 0x0, []string{"registration not started (state 1)"}},
		{0, 0x0, []string{"registration not completed (state 0)"}},
		{3, 0xf99, []string{"degraded bandwidth", "route unhealthy", "incorrect configuration 15"}},
	} {
		if got := fabricFaults(c.state, c.health); !slices.Equal(got, c.want) {
			t.Errorf("state %d mask %#x: %q, want %q", c.state, c.health, got, c.want)
		}
	}
}

// The lines of NVIDIA/nccl#1769 with two GPUs' state and mask changed
// (synthetic: registration in progress on one, degraded bandwidth on
// another), as two hosts: a finding for the host with faults naming its
// two GPUs and what NVML says, evidence its two lines, none for the
// other host; the mechanism tells 0xaa is healthy.
func TestFabricFaultsPerHost(t *testing.T) {
	data, err := os.ReadFile(nicTestdata("corpus/nccl-log/nccl-2.2x-gb200-mnnvl-fabric-state-3-healthmask-0xaa-four-gpus-nccl1769.txt"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), "0x901000 fabric UUID 3143b15bc2cd192b.28cc9b5473fb5b93 cliqueId 0x7ffe state 3", "0x901000 fabric UUID 3143b15bc2cd192b.28cc9b5473fb5b93 cliqueId 0x7ffe state 2", 1)
	text = strings.Replace(text, "0x1801000 fabric UUID 3143b15bc2cd192b.28cc9b5473fb5b93 cliqueId 0x7ffe state 3 healthMask 0xaa", "0x1801000 fabric UUID 3143b15bc2cd192b.28cc9b5473fb5b93 cliqueId 0x7ffe state 3 healthMask 0xa9", 1)
	text += "gb200a-05:7:7 [0] NCCL INFO MNNVL busId 0x801000 fabric UUID 3143b15bc2cd192b.28cc9b5473fb5b93 cliqueId 0x7ffe state 3 healthMask 0xaa\n"
	fs := nicFind(diagnoseText(t, text).Findings, "nccl.mnnvl.fabric")
	if len(fs) != 1 {
		t.Fatalf("%d fabric findings, want 1:\n%s", len(fs), nicTitles(fs))
	}
	f := nicMustFind(t, fs, "nccl.mnnvl.fabric", Warn, "2 GPUs (busId 0x901000, 0x1801000) on gb200a-04: registration in progress (state 2), degraded bandwidth")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 6 || f.Evidence[1].Line != 7 || f.Subject != "gb200a-04" {
		t.Errorf("evidence %+v subject %q", f.Evidence, f.Subject)
	}
	if !strings.Contains(f.Mechanism, "0xaa reads every field false") || !strings.Contains(f.Fix, "nvidia-smi -q") {
		t.Errorf("mechanism %q\nfix %q", f.Mechanism, f.Fix)
	}
	if !strings.HasSuffix(f.Title, "NCCL uses multi-node NVLink only when every rank's GPU has completed it") {
		t.Errorf("title %q, want the registration NCCL waits for", f.Title)
	}
}

// NCCL reads only the state (mnnvl.cc), not the health mask: a GPU
// registered (state 3) whose mask turns to degraded bandwidth at a later
// communicator's init (synthetic: the line of NVIDIA/nccl#1769 printed
// again with 0xa9) is one GPU on a fabric NCCL goes on using at reduced
// capacity, not one NCCL leaves.
func TestFabricDegradedAtLaterInit(t *testing.T) {
	const line = "gb200a-04:2101743:2101803 [1] NCCL INFO MNNVL busId 0x901000 fabric UUID 3143b15bc2cd192b.28cc9b5473fb5b93 cliqueId 0x7ffe state 3 healthMask %s\n"
	fs := nicFind(diagnoseText(t, fmt.Sprintf(line, "0xaa")+fmt.Sprintf(line, "0xa9")+fmt.Sprintf(line, "0x9a")).Findings, "nccl.mnnvl.fabric")
	f := nicMustFind(t, fs, "nccl.mnnvl.fabric", Warn, "1 GPU (busId 0x901000) on gb200a-04: degraded bandwidth, route unhealthy; the fabric serves it at reduced capacity")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 2 || f.Evidence[1].Line != 3 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// transport.cc's "No transport found for rank A[bus] -> rank B[bus]"
// (NVIDIA/nccl v2.24-v2.30; SYNTHETIC log in its form: two ranks of one
// host with NCCL_P2P_DISABLE=1 and NCCL_SHM_DISABLE=1 echoed) is one error
// for both ranks naming the two settings that left the pair no transport,
// with the echo lines as evidence, not two generic "failed after a WARN".
func TestNoTransportNamesTheSettings(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "synthetic/nccl-2.27.3-one-host-p2p-shm-disabled-no-transport-found-synthetic.txt")
	var warns []Finding
	for _, f := range fs {
		if f.ID == "nccl.warn.error" {
			warns = append(warns, f)
		}
	}
	if len(warns) != 1 {
		t.Fatalf("%d nccl.warn.error findings, want 1:\n%s", len(warns), nicTitles(fs))
	}
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "No NCCL transport connects two ranks", "(NCCL_P2P_DISABLE=1, NCCL_SHM_DISABLE=1): NCCL returned 2", "on gpu7; 4 lines")
	if !strings.Contains(f.Fix, "unset NCCL_SHM_DISABLE") || !strings.Contains(f.Mechanism, "ncclTopoCheckNet") {
		t.Errorf("mechanism %q\nfix %q", f.Mechanism, f.Fix)
	}
	// Without echoed settings the finding still names the missing path.
	fs = diagnoseText(t, "h:1:2 [0] transport.cc:39 NCCL WARN No transport found for rank 0[1000] -> rank 1[2000]\nh:1:2 [0] NCCL INFO transport.cc:150 -> 2\n").Findings
	f = nicMustFind(t, fs, "nccl.warn.error", Error, "No NCCL transport connects two ranks NCCL takes for one host: NCCL returned 2")
	if !strings.Contains(f.Fix, "NCCL_HOSTID") {
		t.Errorf("fix %q", f.Fix)
	}
}

// bootstrap.cc's netGetDevice refusing NCCL_OOB_NET_IFNAME (NVIDIA/nccl
// v2.24-v2.30, v2.30.7-1 bootstrap.cc:577 and :579; SYNTHETIC lines in that
// form, NCCL_OOB_NET_ENABLE=1 with an IP interface's name where the list
// takes NET/IB's device names) is told as the setting naming no device of
// the bootstrap's network, both wordings, not a generic failed WARN.
func TestOOBNetIfnameMatchesNoDevice(t *testing.T) {
	for _, warn := range []string{"no device found matching eth0, verify NCCL_OOB_NET_IFNAME", "no device found after excluding exactly mlx5_0,mlx5_1, verify NCCL_OOB_NET_IFNAME"} {
		fs := diagnoseText(t, "h1:7:7 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>\n"+
			"h1:7:7 [0] NCCL INFO NCCL_OOB_NET_IFNAME set to eth0\n"+
			"h1:7:7 [0] bootstrap.cc:577 NCCL WARN "+warn+"\n"+
			"h1:7:7 [0] NCCL INFO bootstrap.cc:620 -> 4\n").Findings
		f := nicMustFind(t, fs, "nccl.warn.error", Error, "NCCL_OOB_NET_IFNAME names no device of the network NCCL bootstraps over ("+strings.TrimSuffix(warn, ", verify NCCL_OOB_NET_IFNAME")+"): NCCL returned 4")
		if !strings.Contains(f.Fix, "mlx5_0") || !strings.Contains(f.Mechanism, "NCCL_SOCKET_IFNAME takes") {
			t.Errorf("%s: mechanism %q\nfix %q", warn, f.Mechanism, f.Fix)
		}
	}
}
