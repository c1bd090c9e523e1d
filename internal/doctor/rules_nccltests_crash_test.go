package doctor

import "testing"

// NCCL_VERSION_CODE is read in both encodings: X*1000+Y*100+Z before 2.9,
// X*10000+Y*100+Z after, so 2.7.8 is before RAS's 2.24 and 2.24.3 is not.
func TestCodeAtLeast(t *testing.T) {
	for _, c := range []struct {
		code int
		want bool
	}{{2708, false}, {22312, false}, {22400, true}, {22707, true}, {30001, true}} {
		if got := codeAtLeast(c.code, 2, 24); got != c.want {
			t.Errorf("codeAtLeast(%d, 2, 24) = %v, want %v", c.code, got, c.want)
		}
	}
}
