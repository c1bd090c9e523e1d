package collective

import (
	"reflect"
	"testing"

	"rocelab/internal/testnet"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// groupNet is a transport that groups hosts (workload.Grouper) and
// checks each of the engine's wakes against the rank whose step it is.
type groupNet struct {
	*testnet.Net
	t      *testing.T
	e      *engine
	group  map[int]int // host → group
	groups int
	plain  int // wakes made with After
	on     int // wakes made with AfterOn
}

func (g *groupNet) Group(_ workload.Owner, hosts []int) {
	for _, h := range hosts {
		g.group[h] = g.groups
	}
	g.groups++
}

func (g *groupNet) After(d unit.Time, w workload.Waker, tg uint64) {
	g.plain++
	g.Net.After(d, w, tg)
}

func (g *groupNet) AfterOn(host int, d unit.Time, w workload.Waker, tg uint64) {
	g.on++
	e, idx := g.e, int32(uint32(tg))
	r := int32(-1)
	switch tg >> 32 {
	case evRankStart:
		r = idx
	case evOpDone:
		r = e.kernels[idx].rank
	case evSendFreed:
		r = e.conns[idx].proxySrc
	case evVisible:
		if c := &e.conns[idx]; c.net {
			r = c.dst
		}
	}
	if gh, ok := g.group[host]; !ok {
		g.t.Errorf("wake %#x on host %d, in no group", tg, host)
	} else if r >= 0 {
		if want := g.group[e.c.host(int(r), 0)]; gh != want {
			g.t.Errorf("wake %#x of rank %d on host %d's group %d, want its server's %d", tg, r, host, gh, want)
		}
	}
	g.Net.After(d, w, tg)
}

// groupedWorkload starts its collective workload on a groupNet.
type groupedWorkload struct {
	*Workload
	g *groupNet
}

func (w groupedWorkload) Start(workload.Transport) { w.Workload.Start(w.g) }

// NCCL's engine groups each server's NICs and makes every wake as a step
// of the rank it belongs to, on that rank's server (AfterOn): so a
// transport can order equal-time steps by server, as a run that holds
// each server's steps in its own domain would. The results are the same
// as on a transport that does not group.
func TestEngineGroupsByServer(t *testing.T) {
	calls := []Call{{Func: AllReduce, Bytes: 4 << 20}, {Func: AllGather, Bytes: 1 << 20}}
	run := func(grouped bool) ([]Result, *groupNet) {
		c := mustComm(t, preset(t, "a100-1nic"), 4, 8, nil)
		srv := c.Sys.Server
		n := testnet.New(testnet.Config{Hosts: len(c.Sys.Hosts) * srv.NICs, Rate: srv.NICRate, Latency: testLatency})
		w := NewWorkload(c, 2, calls...)
		g := &groupNet{Net: n, t: t, e: &c.eng, group: map[int]int{}}
		var ww workload.Workload = w
		if grouped {
			ww = groupedWorkload{w, g}
		}
		if err := n.Run(100*unit.Second, ww); err != nil {
			t.Fatal(err)
		}
		if w.Err != nil {
			t.Fatal(w.Err)
		}
		return w.Results, g
	}
	want, _ := run(false)
	got, g := run(true)
	if g.groups != 4 || g.plain != 0 || g.on == 0 {
		t.Errorf("%d groups, %d wakes with After and %d with AfterOn; want 4 groups, every wake with AfterOn", g.groups, g.plain, g.on)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("results grouped %+v, want those ungrouped %+v", got, want)
	}
}
