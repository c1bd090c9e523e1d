package ingest

import (
	"fmt"
	"strings"
	"testing"
)

// settingsOf reads text with ReadNCCLSettings and formats each setting as
// "line how host NAME=value".
func settingsOf(t *testing.T, text string) []string {
	t.Helper()
	ss, err := ReadNCCLSettings("t", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range ss {
		out = append(out, fmt.Sprintf("%d %s %s %s=%s", s.Evidence.Line, s.How, s.Host, s.Name, s.Value))
	}
	return out
}

// TestNCCLSettingsForms reads every form of setting on SYNTHETIC lines
// written for this test (each a form engineers use; no real artifact).
func TestNCCLSettingsForms(t *testing.T) {
	in := strings.Join([]string{
		`export NCCL_IB_GID_INDEX=4`,                                                   // 1
		`[root@gpu01 ~]# NCCL_IB_HCA=mlx5_0,mlx5_1 NCCL_DEBUG=INFO ./run.sh`,           // 2
		`$ mpirun -np 16 -x NCCL_IB_TC=106 -x NCCL_DEBUG ./build/all_reduce_perf -b 8`, // 3
		`NCCL_SOCKET_IFNAME=eth0`,                                                      // 4 env | grep NCCL
		`        env:`,                                                                 // 5
		`        - name: NCCL_IB_GID_INDEX`,                                            // 6
		`          value: "3"`,                                                         // 7
		`        - {name: NCCL_IB_QPS_PER_CONNECTION, value: "4"}`,                     // 8
		`#SBATCH --export=ALL,NCCL_ALGO=Ring`,                                          // 9
		`srun --export=NCCL_MIN_NCHANNELS=8 python train.py`,                           // 10
		`docker run --gpus all -e NCCL_IB_DISABLE=0 --env=NCCL_NET_GDR_LEVEL=PHB img`,  // 11
		`ENV NCCL_IB_TIMEOUT=22`,                                                       // 12
		`os.environ["NCCL_IB_RETRY_CNT"] = "7"`,                                        // 13
		`mpiexec -genv NCCL_IB_SL 3 -n 2 ./a.out`,                                      // 14
		`I also tried NCCL_IB_DISABLE=1 but it was slower`,                             // 15 prose
		`# export NCCL_P2P_DISABLE=1`,                                                  // 16 commented out
		`declare -x NCCL_IB_ADDR_FAMILY="AF_INET"`,                                     // 17 export -p
		`node1:1:2 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 3.`,           // 18 NCCL's echo
		`NCCL_DEBUG=INFO torchrun --nproc_per_node 8 train.py`,                         // 19
		`export NCCL_IB_HCA="mlx5_0, mlx5_1"`,                                          // 20 a blank NCCL keeps
		`NCCL_IB_HCA='=mlx5_2, mlx5_3' NCCL_IB_GID_INDEX=3 ./run.sh`,                   // 21
		`export NCCL_SOCKET_IFNAME="eth0`,                                              // 22 not closed
	}, "\n")
	want := []string{
		"1 export  NCCL_IB_GID_INDEX=4",
		"2 command-prefix gpu01 NCCL_IB_HCA=mlx5_0,mlx5_1",
		"2 command-prefix gpu01 NCCL_DEBUG=INFO",
		"3 mpi gpu01 NCCL_IB_TC=106",
		"4 env-list gpu01 NCCL_SOCKET_IFNAME=eth0",
		"7 kubernetes gpu01 NCCL_IB_GID_INDEX=3",
		"8 kubernetes gpu01 NCCL_IB_QPS_PER_CONNECTION=4",
		"9 slurm gpu01 NCCL_ALGO=Ring",
		"10 slurm gpu01 NCCL_MIN_NCHANNELS=8",
		"11 docker gpu01 NCCL_IB_DISABLE=0",
		"11 docker gpu01 NCCL_NET_GDR_LEVEL=PHB",
		"12 docker gpu01 NCCL_IB_TIMEOUT=22",
		"13 python gpu01 NCCL_IB_RETRY_CNT=7",
		"14 mpi gpu01 NCCL_IB_SL=3",
		"17 export gpu01 NCCL_IB_ADDR_FAMILY=AF_INET",
		"18 nccl-echo node1 NCCL_IB_GID_INDEX=3",
		"19 command-prefix gpu01 NCCL_DEBUG=INFO",
		"20 export gpu01 NCCL_IB_HCA=mlx5_0, mlx5_1",
		"21 command-prefix gpu01 NCCL_IB_HCA==mlx5_2, mlx5_3",
		"21 command-prefix gpu01 NCCL_IB_GID_INDEX=3",
		"22 export gpu01 NCCL_SOCKET_IFNAME=eth0",
	}
	got := settingsOf(t, in)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("settings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A command line printed with its shell escapes (`printf %q`, as a test
// script logs the mpirun it runs): the shell drops the backslashes of an
// unquoted word, so NCCL gets NCCL_IB_HCA=mlx5_2,mlx5_3; inside quotes, and
// in a listing or manifest, a backslash is the value's own.
func TestNCCLSettingsShellEscapes(t *testing.T) {
	in := strings.Join([]string{
		`mpirun -np 16 -x NCCL_IB_HCA=mlx5_2\,mlx5_3 -x NCCL_DEBUG_SUBSYS=GRAPH\,NET ./alltoall_perf`, // 1
		`export NCCL_SOCKET_IFNAME=\^docker\,lo`,                                                      // 2
		`NCCL_IB_HCA="mlx5_0\,mlx5_1" ./run.sh`,                                                       // 3 quoted
		`NCCL_TOPO_FILE=C:\topo.xml`,                                                                  // 4 env | grep NCCL
	}, "\n")
	want := []string{
		"1 mpi  NCCL_IB_HCA=mlx5_2,mlx5_3",
		"1 mpi  NCCL_DEBUG_SUBSYS=GRAPH,NET",
		"2 export  NCCL_SOCKET_IFNAME=^docker,lo",
		`3 command-prefix  NCCL_IB_HCA=mlx5_0\,mlx5_1`,
		`4 env-list  NCCL_TOPO_FILE=C:\topo.xml`,
	}
	got := settingsOf(t, in)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("settings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestNCCLSettingsTwoPods reads the real multus-cni#1100 thread: the two
// export lines are settings, and the GID index they set is a GID use.
func TestNCCLSettingsTwoPods(t *testing.T) {
	arts := readCorpus(t, "threads/show-gids-two-pods-export-gid5-7-multus1100.txt")
	set, ok := arts[KindNCCLSettings].(*NCCLSettings)
	if !ok {
		t.Fatal("no settings read")
	}
	uses := set.GIDUses()
	if len(uses) != 2 || uses[0].Index != 5 || uses[1].Index != 7 || uses[0].Evidence.Line != 11 {
		t.Errorf("GID uses %+v", uses)
	}
}
