package collective

import (
	"errors"
	"strings"
	"testing"

	"rocelab/internal/gpu"
)

// enabled lists the elements a table enables for function f.
func enabled(t Enable, f Func, names []string) string {
	var on []string
	for i, v := range t[f] {
		if v != 0 {
			on = append(on, names[i])
		}
	}
	return strings.Join(on, ",")
}

func TestParseListSemantics(t *testing.T) {
	cases := []struct {
		env, proto string
		f          Func
		want       string
	}{
		// A mixed list: every function gets Ring and Tree,
		// then AllReduce everything but LL.
		{"NCCL_ALGO", "ring,tree;allreduce:^LL", AllReduce, ""}, // ^LL is not an algorithm: error below
		{"NCCL_PROTO", "LL,Simple;allreduce:^LL", AllReduce, "LL128,Simple"},
		{"NCCL_PROTO", "LL,Simple;allreduce:^LL", Broadcast, "LL,Simple"},
		{"NCCL_PROTO", "^LL128;allreduce:LL128", AllGather, "LL,Simple"},
		{"NCCL_PROTO", "^LL128;allreduce:LL128", AllReduce, "LL128"},
		{"NCCL_ALGO", "ring,tree", AllReduce, "Tree,Ring"},
		{"NCCL_ALGO", "RING", ReduceScatter, "Ring"},
		{"NCCL_ALGO", "^tree", AllReduce, "Ring,CollNetDirect,CollNetChain,NVLS,NVLSTree,PAT"},
		{"NCCL_ALGO", "allreduce:tree", AllReduce, "Tree"},
		{"NCCL_ALGO", "allreduce:tree", Broadcast, "Tree,Ring,CollNetDirect,CollNetChain,NVLS,NVLSTree,PAT"},
		{"NCCL_ALGO", "ring,,tree;;", AllReduce, "Tree,Ring"}, // strtok skips empty tokens
	}
	for _, c := range cases {
		cfg, err := NewConfig(map[string]string{c.env: c.proto}, DefaultVersion)
		if c.want == "" {
			if err == nil {
				t.Errorf("%s=%q: want an error", c.env, c.proto)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s=%q: %v", c.env, c.proto, err)
			continue
		}
		tab, names := cfg.Protos, protoNames[:]
		if c.env == "NCCL_ALGO" {
			tab, names = cfg.Algos, algoNames[:]
		}
		if got := enabled(tab, c.f, names); got != c.want {
			t.Errorf("%s=%q for %s: enabled %q, want %q", c.env, c.proto, c.f, got, c.want)
		}
	}
	// "^LL" fills the table with 1 before clearing LL: LL128 becomes
	// forced on (1), not topology-dependent (2), as in NCCL.
	cfg, _ := NewConfig(map[string]string{"NCCL_PROTO": "^LL"}, DefaultVersion)
	if cfg.Protos[AllReduce][LL128] != 1 {
		t.Errorf("^LL: LL128 = %d, want 1 (forced)", cfg.Protos[AllReduce][LL128])
	}
	def, _ := NewConfig(nil, DefaultVersion)
	if def.Protos[AllReduce][LL128] != 2 {
		t.Errorf("default LL128 = %d, want 2 (topology decides)", def.Protos[AllReduce][LL128])
	}
}

func TestParseListErrors(t *testing.T) {
	for _, s := range []string{
		"ring;tree",              // the second entry lacks a function
		";ring",                  // so does the first, which is not at the start
		"allreduce:ring;bogus",   // unknown algorithm... lacking prefix too
		"allredux:ring",          // unknown function
		"ring,treee",             // unknown algorithm
		"allreduce:ring;tree:ll", // "tree" is not a function
	} {
		var tab = newEnable(int(nAlgos), func(int) uint8 { return 1 })
		if err := ParseList(s, algoNames[:], &tab); err == nil {
			t.Errorf("ParseList(%q): want an error", s)
		}
	}
}

func TestConfigDefaultsByVersion(t *testing.T) {
	cases := []struct {
		v                string
		timeout, gid     int
		split            bool
		fifoTCHonoured   bool
		wantFifoFollowTC int
	}{
		{"2.12.12", 14, 0, true, false, 96},
		{"2.18.3", 18, 0, true, false, 96},
		{"2.20.5", 18, 0, false, false, 96},
		{"2.21.5", 18, -1, false, false, 96},
		{"2.23.4", 20, -1, false, true, 184},
		{"2.30.7", 20, -1, false, true, 184},
	}
	for _, c := range cases {
		v, err := ParseVersion(c.v)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := NewConfig(map[string]string{"NCCL_IB_TC": "96", "NCCL_IB_FIFO_TC": "184"}, v)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Timeout != c.timeout || cfg.GIDIndex != c.gid || cfg.SplitData != c.split {
			t.Errorf("%s: timeout %d gid %d split %v, want %d %d %v", c.v, cfg.Timeout, cfg.GIDIndex, cfg.SplitData, c.timeout, c.gid, c.split)
		}
		fifo := cfg.FifoTC
		if fifo < 0 {
			fifo = cfg.TC
		}
		if fifo != c.wantFifoFollowTC {
			t.Errorf("%s: CTS traffic class %d, want %d", c.v, fifo, c.wantFifoFollowTC)
		}
	}
}

func TestConfigErrorsAndNotes(t *testing.T) {
	bad := map[string]string{
		"NCCL_IB_TIMEOUT":             "32",
		"NCCL_IB_RETRY_CNT":           "8",
		"NCCL_IB_QPS_PER_CONNECTION":  "0",
		"NCCL_IB_TC":                  "0x60",
		"NCCL_NET_GDR_LEVEL":          "NEAR",
		"NCCL_IB_DISABLE":             "yes",
		"NCCL_PROTO":                  "LL256",
		"NCCL_NVLS_CHUNKSIZE":         "0",
		"NCCL_NVLSTREE_MAX_CHUNKSIZE": "64K",
		"FOO":                         "1",
	}
	for k, v := range bad {
		_, err := NewConfig(map[string]string{k: v}, DefaultVersion)
		var ee *EnvError
		if !errors.As(err, &ee) || ee.Var != k {
			t.Errorf("%s=%s: got %v, want an EnvError naming %s", k, v, err, k)
		}
	}
	cfg, err := NewConfig(map[string]string{"NCCL_NCHANNELS": "8", "NCCL_DEBUG": "INFO", "NCCL_IB_GDR_LEVEL": "1"}, DefaultVersion)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(cfg.Notes, "\n")
	if !strings.Contains(notes, "NCCL_NCHANNELS does not exist") || !strings.Contains(notes, "NCCL_IB_GDR_LEVEL is not modelled") || strings.Contains(notes, "NCCL_DEBUG") {
		t.Errorf("notes:\n%s", notes)
	}
	cfg, _ = NewConfig(map[string]string{"NCCL_NET_GDR_LEVEL": "3", "NCCL_MIN_NRINGS": "4", "NCCL_MIN_NCHANNELS": "8"}, DefaultVersion)
	if cfg.GDRLevel != gpu.PHB || cfg.MinChannels != 8 {
		t.Errorf("GDR level %s min channels %d, want PHB (legacy 3) and 8 (new name wins)", cfg.GDRLevel, cfg.MinChannels)
	}
}

func TestHCAFilter(t *testing.T) {
	cases := []struct {
		env  string
		dev  string
		port int
		want bool
	}{
		{"mlx5_0,mlx5_1", "mlx5_1", 1, true},
		{"mlx5_0,mlx5_1", "mlx5_2", 1, false},
		{"mlx5_1", "mlx5_10", 1, true}, // prefix match, as NCCL does
		{"=mlx5_1", "mlx5_10", 1, false},
		{"=mlx5_1", "mlx5_1", 1, true},
		{"^mlx5_0", "mlx5_0", 1, false},
		{"^mlx5_0", "mlx5_3", 1, true},
		{"^=mlx5_1", "mlx5_10", 1, true},
		{"mlx5_0:1", "mlx5_0", 1, true},
		{"mlx5_0:2", "mlx5_0", 1, false},
		{"mlx5", "mlx5_7", 1, true},
		{"^", "mlx5_0", 1, false}, // an empty exclude list matches everything, so excludes all
	}
	for _, c := range cases {
		if got := ParseHCA(c.env).Match(c.dev, c.port); got != c.want {
			t.Errorf("NCCL_IB_HCA=%q on %s:%d = %v, want %v", c.env, c.dev, c.port, got, c.want)
		}
	}
}

func TestVersionParse(t *testing.T) {
	for _, s := range []string{"2", "3.1.0", "2.x.1", "2.1.2.3", "", "2.-1", "2.26.2+", "2.28.9-", "2.28.9-rc1", "2.26.2+cuda 12", "2.26.2cuda12.8", "vv2.28.9"} {
		if _, err := ParseVersion(s); err == nil {
			t.Errorf("ParseVersion(%q): want an error", s)
		}
	}
	// As NCCL prints it (the "NCCL version" banner), as a release tag and
	// as a package version.
	for s, want := range map[string]Version{"2.26.2+cuda12.8": {2, 26, 2}, "2.28.9-1": {2, 28, 9}, "v2.28.9-1": {2, 28, 9}, "2.26.2-1+cuda12.8": {2, 26, 2}} {
		if v, err := ParseVersion(s); err != nil || v != want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v", s, v, err, want)
		}
	}
	v, err := ParseVersion("2.18")
	if err != nil || v != (Version{2, 18, 0}) || !v.AtLeast(2, 18, 0) || v.AtLeast(2, 18, 1) {
		t.Errorf("2.18 -> %v %v", v, err)
	}
}
