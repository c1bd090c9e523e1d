package collective

import (
	"fmt"
	"testing"
)

func TestZZProbe(t *testing.T) {
	for _, i := range []int{2, 3, 4} {
		r := &publicRuns[i]
		v, _ := ParseVersion(r.version)
		env := map[string]string{"NCCL_IB_GID_INDEX": "3"}
		for k, x := range r.env {
			env[k] = x
		}
		cfg, _ := NewConfig(env, v)
		cm, err := NewComm(cfg, System{Server: r.srv, Hosts: DenseHosts(r.servers, r.srv.NICs)}, []int{0, 1}, AllGPUs(r.ppn))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(r.label, cm.Describe())
		fmt.Println(cm.Explain(AllReduce, []int64{1 << 30, 8 << 30}))
	}
}
