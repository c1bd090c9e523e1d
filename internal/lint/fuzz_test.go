package lint

import (
	"strings"
	"testing"
)

func FuzzNCCLEnv(f *testing.F) {
	f.Add([]byte("export NCCL_IB_TC=106\nNCCL_IB_GID_INDEX=3 # routable v2\nexport NCCL_IB_TIMEOUT='22'\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e := readNCCLEnv("f.env", data)
		if e == nil {
			return
		}
		lines := strings.Count(string(data), "\n") + 1
		for _, s := range e.settings {
			if !strings.HasPrefix(s.Name, "NCCL_") || s.Evidence.Line < 1 || s.Evidence.Line > lines {
				t.Fatalf("setting %+v", s)
			}
		}
		e.GIDUses()
	})
}
