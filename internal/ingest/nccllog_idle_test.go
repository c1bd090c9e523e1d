package ingest

import (
	"strings"
	"testing"
)

// TestIdleIBDevices: NCCL 2.16.5 lists a RoCE and an InfiniBand port and
// connects over NET/IB/1 only (nccl-tests#350): the RoCE port is idle.
// From 2.24 NET/IB/i counts NCCL's virtual devices, which follow the
// listed ones: 2.26.2 lists [0]mlx5_5 alone and connects via NET/IB/1
// (the ccimoc run), so nothing is called idle; nor in the two runs
// pasted together, whose first version alone was read before. Lines of
// the two runs.
func TestIdleIBDevices(t *testing.T) {
	const early = `NCCL version 2.16.5+cuda11.8
n013:101855:101885 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_2:1/IB [RO]; OOB ibp209s0f0:10.128.3.13<0>
n013:101855:101885 [0] NCCL INFO Channel 00/0 : 1[81000] -> 0[81000] [receive] via NET/IB/1/GDRDMA
n013:101855:101885 [0] NCCL INFO Channel 00/0 : 0[81000] -> 1[81000] [send] via NET/IB/1/GDRDMA
`
	const late = `MOC-R4PCC04U37:574691:574714 [0] NCCL INFO NCCL version 2.26.2+cuda12.2
MOC-R4PCC04U37:574691:574714 [0] NCCL INFO NET/IB : Using [0]mlx5_5:1/RoCE [RO]; OOB eno7np0:169.254.103.56<0>
MOC-R4PCC04U37:574691:574719 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/1
MOC-R4PCC04U37:574691:574719 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/1
`
	for _, c := range []struct {
		text, want string
	}{{early, "mlx5_0"}, {late, ""}, {strings.Replace(early, "NCCL version 2.16.5+cuda11.8\n", "", 1), ""}, {early + late, ""}} {
		res := checkArtifact(t, []byte(c.text))
		var got []string
		for _, a := range res.Artifacts {
			if l, ok := a.(*NCCLLog); ok {
				for _, d := range l.IdleIBDevices() {
					got = append(got, d.Name)
				}
			}
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("idle %q, want %q in\n%s", got, c.want, c.text)
		}
	}
}
