package scenario

import (
	"os"
	"testing"
)

func TestZZMem(t *testing.T) {
	y, _ := os.ReadFile("../../tools/htsimconv/scenarios/perm1024.yaml")
	s := mustLoad(t, "perm1024.yaml", string(y))
	tw, err := BuildWith(s, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	tw.Run()
}
