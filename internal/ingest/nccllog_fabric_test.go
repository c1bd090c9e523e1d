package ingest

import (
	"fmt"
	"testing"
)

// init.cc's fabric line (NCCL 2.30.7 init.cc:775) is read once per host
// and GPU, the mask as hex; a line cut before its mask or with a state
// that is no number is left out.
func TestFabricLines(t *testing.T) {
	l := parseLog(t, "g:1:2 [1] NCCL INFO MNNVL busId 0x901000 fabric UUID 3143b15bc2cd192b.28cc9b5473fb5b93 cliqueId 0x7ffe state 3 healthMask 0xaa\n"+
		"g:1:2 [1] NCCL INFO MNNVL busId 0x901000 fabric UUID 3143b15bc2cd192b.28cc9b5473fb5b93 cliqueId 0x7ffe state 3 healthMask 0xaa\n"+
		"g:3:4 [2] NCCL INFO MNNVL busId 0x1801000 fabric UUID 0.0 cliqueId 0x0 state 2 healthMask 0x5a9\n"+
		"g:3:4 [2] NCCL INFO MNNVL busId 0x1901000 fabric UUID 0.0 cliqueId 0x0 state 3 healthMask\n"+
		"g:3:4 [2] NCCL INFO MNNVL busId 0x801000 fabric UUID 0.0 cliqueId 0x0 state x healthMask 0x0\n")
	f := l.Fabric
	if len(f) != 2 || f[0].Host != "g" || f[0].BusID != "0x901000" || f[0].State != 3 || f[0].Health != 0xaa || f[0].Clique != "0x7ffe" ||
		f[0].UUID != "3143b15bc2cd192b.28cc9b5473fb5b93" || f[1].State != 2 || f[1].Health != 0x5a9 || f[1].Evidence.Line != 3 {
		t.Errorf("Fabric %+v", f)
	}
}

// Every communicator's init prints the line again: a GPU whose mask
// changed between two inits (synthetic lines in init.cc's form: healthy,
// then degraded bandwidth) is read both times, an unchanged repeat once.
func TestFabricLineChangedBetweenInits(t *testing.T) {
	const line = "g:1:2 [1] NCCL INFO MNNVL busId 0x901000 fabric UUID 3143b15bc2cd192b.28cc9b5473fb5b93 cliqueId 0x7ffe state 3 healthMask %s\n"
	l := parseLog(t, fmt.Sprintf(line, "0xaa")+fmt.Sprintf(line, "0xaa")+fmt.Sprintf(line, "0xa9")+fmt.Sprintf(line, "0xa9"))
	if f := l.Fabric; len(f) != 2 || f[0].Health != 0xaa || f[1].Health != 0xa9 || f[1].Evidence.Line != 3 {
		t.Errorf("Fabric %+v", f)
	}
}
