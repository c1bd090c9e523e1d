package spell

import "testing"

func TestClosest(t *testing.T) {
	keys := []string{"at", "by_rate", "enabled", "kmax", "kmin", "pmax", "priorities", "rtt"}
	aliases := map[string]string{"max_th": "kmax", "min_th": "kmin"}
	for _, c := range []struct {
		got, want string
		ok        bool
	}{
		{"priority", "priorities", true}, // the singular of a list's key
		{"PRIORITIES", "priorities", true},
		{"max_th", "kmax", true},
		{"Max_Th", "kmax", true},
		{"kmim", "kmin", true},
		{"kmxa", "kmax", true},   // a transposition is one edit
		{"km", "", false},        // kmin and kmax tie
		{"threshold", "", false}, // nothing near
		{"", "", false},
	} {
		got, ok := Closest(c.got, keys, aliases)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("Closest(%q) = %q, %v; want %q, %v", c.got, got, ok, c.want, c.ok)
		}
	}
}

func TestHint(t *testing.T) {
	names := []string{"nccl_tests", "nccl_version", "servers"}
	if h := Hint("nccl_test", names, nil); h != `; did you mean "nccl_tests"?` {
		t.Errorf("Hint = %q", h)
	}
	if h := Hint("nccl_tests", names, nil); h != "" {
		t.Errorf("Hint of a known name = %q, want nothing", h)
	}
	if h := Hint("rpg_time_rest", []string{"rpg_time_reset", "rpg_byte_reset"}, nil); h != `; did you mean "rpg_time_reset"?` {
		t.Errorf("Hint = %q", h)
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"ab", "ba", 1}, {"priority", "priorities", 3}} {
		if d := distance(c.a, c.b); d != c.d {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, d, c.d)
		}
	}
}
