package collective

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParseList checks NCCL_ALGO/NCCL_PROTO parsing never panics, leaves
// only 0, 1 or 2 in the table, and is idempotent: a value applied twice
// gives the table applied once.
func FuzzParseList(f *testing.F) {
	for _, s := range []string{"ring,tree;allreduce:^LL", "LL,Simple;allreduce:^LL", "^LL128;allreduce:LL128", "^", ":", ";;", "a:b:c", "allreduce:", "RING", "tree;broadcast:ring", "^tree,ring"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, names := range [][]string{algoNames[:], protoNames[:]} {
			tab := newEnable(len(names), func(int) uint8 { return 2 })
			err := ParseList(s, names, &tab)
			if err != nil {
				return
			}
			for fn := range tab {
				for _, v := range tab[fn] {
					if v > 2 {
						t.Fatalf("%q: value %d", s, v)
					}
				}
			}
			again := newEnable(len(names), func(int) uint8 { return 2 })
			_ = ParseList(s, names, &again)
			_ = ParseList(s, names, &again)
			for fn := range tab {
				if string(tab[fn]) != string(again[fn]) {
					t.Fatalf("%q: not idempotent", s)
				}
			}
		}
	})
}

// FuzzParseHCA checks NCCL_IB_HCA parsing never panics and that '^'
// inverts the match.
func FuzzParseHCA(f *testing.F) {
	for _, s := range []string{"mlx5_0,mlx5_1", "^mlx5_0", "=mlx5_1:1", "^=mlx5_1", ":1", "mlx5_0:x", ",,", "^", "="} {
		f.Add(s, "mlx5_1", 1)
	}
	f.Fuzz(func(t *testing.T, s, dev string, port int) {
		if strings.HasPrefix(s, "^") {
			return
		}
		in := ParseHCA(s).Match(dev, port)
		out := ParseHCA("^"+s).Match(dev, port)
		if in == out {
			t.Fatalf("%q on %s:%d: include %v, exclude %v", s, dev, port, in, out)
		}
	})
}

// FuzzNewConfig feeds any value to every variable the twin reads: the
// result is a config or an *EnvError naming the variable, never a panic.
func FuzzNewConfig(f *testing.F) {
	for i, v := range []string{"1", "-1", "0", "22", "PHB", "^LL", "mlx5_0:1", "999999999999", " 3 ", ""} {
		f.Add(uint8(i), v)
	}
	f.Fuzz(func(t *testing.T, which uint8, val string) {
		k := knownVars[int(which)%len(knownVars)]
		cfg, err := NewConfig(map[string]string{k: val}, DefaultVersion)
		if err != nil {
			var ee *EnvError
			if !errors.As(err, &ee) || ee.Var != k {
				t.Fatalf("%s=%q: %v is not an EnvError for the variable", k, val, err)
			}
			return
		}
		if cfg.QPsPerConn < 1 || cfg.MaxChannels < 1 || cfg.Sockets() < 1 || cfg.BuffSize < 1<<14 ||
			cfg.MinCTAs < 0 || cfg.MinCTAs > 64 || cfg.MaxCTAs < 0 || cfg.MaxCTAs > 64 {
			t.Fatalf("%s=%q: out of range config %+v", k, val, cfg)
		}
	})
}

// FuzzDebugSubsys checks NCCL_DEBUG_SUBSYS parsing never panics and is
// consistent: "^" followed by a list enables exactly what the list alone
// disables, among NCCL's subsystems.
func FuzzDebugSubsys(f *testing.F) {
	for _, s := range []string{"", "INIT,TUNING", "ALL", "^INIT", "^ALL", "tuning", "INIT,,NET", "^", ",", "ALL,^INIT"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		on := debugSubsys(s)
		if strings.TrimSpace(s) == "" || strings.HasPrefix(s, "^") {
			return
		}
		off := debugSubsys("^" + s)
		for _, sub := range []string{"INIT", "NET", "TUNING", "ENV", "GRAPH", "COLL"} {
			if on[sub] == off[sub] {
				t.Fatalf("%q: %s is %v both ways", s, sub, on[sub])
			}
		}
	})
}
