package scenario

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"rocelab/internal/background"
	"rocelab/internal/collective"
	"rocelab/internal/gpu"
	"rocelab/internal/nccltests"
	"rocelab/internal/topo"
	"rocelab/internal/training"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// The workload section: an NCCL job on the GPU servers of the topology,
// with NCCL configured by the top-level nccl section (real variable
// names) and background flows beside it.
//
//	workload:
//	  nccl_version: 2.30.7
//	  servers: 4                   # the first N GPU servers (default: all)
//	  nccl_tests: all_reduce_perf -b 128M -e 1G -f 2 -g 8
//	  training: {params: 175e9, layers: 96, hidden: 12288, ...}
//	  background:
//	    - {kind: storage, src: h0, dst: h3, dscp: 10, bytes: 1GiB}
type rawWorkload struct {
	NCCLVersion ast.Node         `yaml:"nccl_version"`
	Servers     ast.Node         `yaml:"servers"`
	NCCLTests   ast.Node         `yaml:"nccl_tests"`
	Training    *rawTraining     `yaml:"training"`
	Background  []*rawBackground `yaml:"background"`
}

type rawTraining struct {
	Params       ast.Node `yaml:"params"`
	Layers       ast.Node `yaml:"layers"`
	Hidden       ast.Node `yaml:"hidden"`
	SeqLen       ast.Node `yaml:"seq_len"`
	MicroBatch   ast.Node `yaml:"micro_batch"`
	MicroBatches ast.Node `yaml:"micro_batches"`
	DType        ast.Node `yaml:"dtype"`
	GradDType    ast.Node `yaml:"grad_dtype"`
	TP           ast.Node `yaml:"tp"`
	PP           ast.Node `yaml:"pp"`
	DP           ast.Node `yaml:"dp"`
	MFU          ast.Node `yaml:"mfu"`
	PeakTFLOPS   ast.Node `yaml:"peak_tflops"`
	Iterations   ast.Node `yaml:"iterations"`
}

type rawBackground struct {
	Kind    ast.Node `yaml:"kind"`
	Name    ast.Node `yaml:"name"`
	Src     ast.Node `yaml:"src"`
	Dst     ast.Node `yaml:"dst"`
	DSCP    ast.Node `yaml:"dscp"`
	Bytes   ast.Node `yaml:"bytes"`
	Message ast.Node `yaml:"message"`
	Depth   ast.Node `yaml:"depth"`
	Rate    ast.Node `yaml:"rate"`
	Start   ast.Node `yaml:"start"`
}

// WorkloadSpec is the validated workload section.
type WorkloadSpec struct {
	NCCL *collective.Config
	// System is the GPU server model and the host of every NIC; Servers
	// the servers that take part.
	System  collective.System
	Servers []int
	// Tests or Training is the job.
	Tests    *nccltests.Options
	Training *training.Config
	// Background flows run beside it, ending with it.
	Background []background.Flow
}

// workload reads the workload section; it needs the topology's GPU
// servers.
func (c *conv) workload(s *Scenario, raw *rawScenario) {
	r := raw.Workload
	if r == nil {
		return
	}
	t := s.Topo
	var rs *rawServers
	if raw.Topology != nil {
		rs = raw.Topology.Servers
	}
	if rs == nil {
		// Without topology.servers every host is a server of one GPU
		// (an A100) with one NIC.
		rs = &rawServers{}
	}
	srv, models := c.gpuServer(s, rs)
	vs := c.text(r.NCCLVersion, "workload.nccl_version", collective.DefaultVersion.String())
	ver, err := collective.ParseVersion(vs)
	if err != nil {
		c.fail(r.NCCLVersion, "workload.nccl_version", "%v", err)
		return
	}
	env := map[string]string{}
	for _, st := range s.NCCL {
		env[st.Name] = st.Value
	}
	cfg, err := collective.NewConfig(env, ver)
	if err != nil {
		c.ncclError(s, err)
		return
	}
	w := &WorkloadSpec{NCCL: cfg, System: collective.System{Server: srv, Hosts: serverHosts(t), Models: models}}
	n := int(c.integer(r.Servers, "workload.servers", int64(len(w.System.Hosts)), 1, int64(len(w.System.Hosts))))
	for i := 0; i < n; i++ {
		w.Servers = append(w.Servers, i)
	}
	jobs := 0
	if cmd, ok := c.scalar(r.NCCLTests, "workload.nccl_tests"); ok {
		jobs++
		o, err := nccltests.Parse(strings.Fields(cmd))
		if err != nil {
			c.fail(r.NCCLTests, "workload.nccl_tests", "%v", err)
		} else if o.NGpus*o.NThreads > srv.GPUs {
			c.fail(r.NCCLTests, "workload.nccl_tests", "-g %d -t %d asks for %d GPUs per server, the servers have %d", o.NGpus, o.NThreads, o.NGpus*o.NThreads, srv.GPUs)
		} else {
			w.Tests = &o
		}
	}
	if r.Training != nil {
		jobs++
		w.Training = c.training(r.Training, srv)
	}
	if jobs != 1 {
		// Point at the job given, else at the first background flow.
		n := r.NCCLTests
		if n == nil && len(r.Background) > 0 && r.Background[0] != nil {
			n = r.Background[0].Kind
		}
		c.fail(n, "workload", "expected one job: nccl_tests or training (background traffic runs beside one)")
	}
	for i, b := range r.Background {
		if b != nil {
			w.Background = append(w.Background, c.backgroundFlow(s, b, fmt.Sprintf("workload.background[%d]", i)))
		}
	}
	if len(c.errs) > 0 {
		return
	}
	// Build the communicator once now, so that a setting NCCL would
	// refuse (a GID index that cannot route) is reported at load.
	if _, err := w.comm(w.gpus()); err != nil {
		c.ncclError(s, err)
		return
	}
	s.Workload = w
}

// ncclError reports an NCCL configuration error at the variable's line.
func (c *conv) ncclError(s *Scenario, err error) {
	var ee *collective.EnvError
	name := ""
	if errors.As(err, &ee) {
		name = ee.Var
	} else if i := strings.Index(err.Error(), "NCCL_"); i >= 0 {
		name, _, _ = strings.Cut(err.Error()[i:], "=")
	}
	for _, st := range s.NCCL {
		if st.Name == name {
			c.errs = append(c.errs, &Error{File: c.file, Line: st.Line, Col: st.Col, Path: "nccl." + name, Msg: err.Error()})
			return
		}
	}
	c.errs = append(c.errs, &Error{File: c.file, Path: "nccl", Msg: err.Error()})
}

// topoNICMin and topoNICMax bound nccl_topo_nic_speed: NCCL reads a
// topology file's net speed as whole Mb/s, and no NCCL net device, a
// merged card of four 800G ports included, is faster than 3.2 Tb/s.
const (
	topoNICMin = unit.Gbps
	topoNICMax = 3200 * unit.Gbps
)

// gpuServer reads the GPU server model from topology.servers: the GPU
// model (one, or one per server: a job mixing GPU generations), each
// GPU's path to its NIC (one, or one per GPU), the CPU, GPUDirect RDMA's
// module, and the host-side details NCCL's speed depends on (docs/nccl.md,
// "Host-side causes").
func (c *conv) gpuServer(s *Scenario, r *rawServers) (gpu.Server, []gpu.Model) {
	t := s.Topo
	gpus, nics := t.GPUsPerServer, t.NICsPerServer
	if t.Servers == 0 {
		gpus, nics = 1, 1
	}
	models := []string{"A100"}
	if items, ok := c.list(r.GPU, "topology.servers.gpu"); ok {
		models = models[:0]
		for i, it := range items {
			models = append(models, c.choice(it, fmt.Sprintf("topology.servers.gpu[%d]", i), "A100", "V100", "A100", "H100", "B200", "GB10"))
		}
		if n := max(t.Servers, 1); len(models) != 1 && len(models) != n {
			c.fail(r.GPU, "topology.servers.gpu", "%d models for %d servers: give one model, or one per server", len(models), n)
		}
	}
	m, _ := gpu.LookupModel(models[0])
	var perServer []gpu.Model
	if len(models) > 1 {
		for _, name := range models {
			x, _ := gpu.LookupModel(name)
			perServer = append(perServer, x)
		}
	}
	srv := gpu.Server{
		GPU: m, GPUs: gpus, NICs: nics, NICRate: hostRate(t),
		NICPCIe: int(c.integer(r.NICPCIe, "topology.servers.nic_pcie", int64(m.PCIe), 3, 6)),
		Intra:   gpu.NVSwitch, GPUNIC: gpu.PXB, CPU: gpu.AMD,
		PeerMem: c.boolean(r.PeerMem, "topology.servers.peermem", true),
		GIDs:    gpu.StandardGIDs,
	}
	if m.NVLinks == 0 {
		srv.Intra = gpu.PCIeOnly
	}
	srv.CPU, srv.CPUGen, _ = gpu.ParseCPU(c.choice(r.CPU, "topology.servers.cpu", "amd", gpu.CPUNames()...))
	if items, ok := c.list(r.GPUNIC, "topology.servers.gpu_nic"); ok {
		var paths []gpu.Path
		for i, it := range items {
			p, _ := gpu.ParsePath(c.choice(it, fmt.Sprintf("topology.servers.gpu_nic[%d]", i), "PXB", "PIX", "PXB", "PHB", "SYS"))
			paths = append(paths, p)
		}
		switch {
		case len(paths) == 1:
			srv.GPUNIC = paths[0]
		case len(paths) == gpus:
			srv.GPUNIC, srv.GPUNICPaths = paths[0], paths
		default:
			c.fail(r.GPUNIC, "topology.servers.gpu_nic", "%d paths for %d GPUs: give one path, or one per GPU", len(paths), gpus)
		}
	}
	srv.NICPCIeWidth = int(c.integer(r.NICPCIeWidth, "topology.servers.nic_pcie_width", 16, 1, 16))
	if srv.NICPCIeWidth&(srv.NICPCIeWidth-1) != 0 {
		c.fail(r.NICPCIeWidth, "topology.servers.nic_pcie_width", "want 1, 2, 4, 8 or 16 lanes, got %d", srv.NICPCIeWidth)
	}
	srv.GPUPCIe = int(c.integer(r.GPUPCIe, "topology.servers.gpu_pcie", int64(m.PCIe), 3, 6))
	srv.SocketLink = gpu.GBps(c.rate(r.SocketLink, "topology.servers.socket_link", 0))
	srv.ACS = c.boolean(r.ACS, "topology.servers.acs", false)
	srv.Bond = int(c.integer(r.NICBond, "topology.servers.nic_bond", 1, 1, 8))
	if srv.Bond > 1 && nics%srv.Bond != 0 {
		c.fail(r.NICBond, "topology.servers.nic_bond", "%d ports per bond do not divide the %d NIC ports of a server", srv.Bond, nics)
	}
	srv.CardPorts = int(c.integer(r.NICPorts, "topology.servers.nic_ports", 1, 1, 8))
	switch {
	case srv.CardPorts > 1 && nics%srv.CardPorts != 0:
		c.fail(r.NICPorts, "topology.servers.nic_ports", "%d ports per card do not divide the %d NIC ports of a server", srv.CardPorts, nics)
	case srv.CardPorts > 1 && srv.Bond > 1:
		c.fail(r.NICPorts, "topology.servers.nic_ports", "a bond of a card's ports is one port to NCCL: give nic_ports or nic_bond, not both")
	}
	srv.StepOverhead = c.duration(r.StepOverhead, "topology.servers.step_overhead", 0)
	srv.TopoNICRate = c.rate(r.NCCLTopoNICSpeed, "topology.servers.nccl_topo_nic_speed", 0)
	if srv.TopoNICRate != 0 && (srv.TopoNICRate < topoNICMin || srv.TopoNICRate > topoNICMax) {
		c.fail(r.NCCLTopoNICSpeed, "topology.servers.nccl_topo_nic_speed", "want %v to %v per NCCL net device (a topology file's speed in Mb/s ÷ 1000: its speed=\"180000\" is 180G), got %v", topoNICMin, topoNICMax, srv.TopoNICRate)
	}
	return srv, perServer
}

// serverHosts returns the host of every NIC of every server (every host
// its own server when the topology has no GPU servers).
func serverHosts(t *topo.Topology) [][]int {
	if t.Servers == 0 {
		h := make([][]int, len(t.Hosts))
		for i := range h {
			h[i] = []int{i}
		}
		return h
	}
	h := make([][]int, t.Servers)
	for s := range h {
		h[s] = make([]int, t.NICsPerServer)
	}
	for i, n := range t.Hosts {
		nd := t.Nodes[n]
		if nd.Server >= 0 && nd.Server < t.Servers && nd.NIC >= 0 && nd.NIC < t.NICsPerServer {
			h[nd.Server][nd.NIC] = i
		}
	}
	return h
}

// hostRate is the hosts' link rate.
func hostRate(t *topo.Topology) unit.BitRate {
	for _, l := range t.Links {
		if t.Nodes[l.A].Kind == topo.Host || t.Nodes[l.B].Kind == topo.Host {
			return l.Rate
		}
	}
	return DefaultHostRate
}

func (c *conv) training(r *rawTraining, srv gpu.Server) *training.Config {
	p := "workload.training."
	i := func(n ast.Node, key string, def, hi int64) int { return int(c.integer(n, p+key, def, 1, hi)) }
	cfg := &training.Config{
		Model: training.Model{
			Params: c.float(r.Params, p+"params", 0, 1, 1e15), Layers: i(r.Layers, "layers", 1, 1<<16),
			Hidden: i(r.Hidden, "hidden", 1, 1<<20), SeqLen: i(r.SeqLen, "seq_len", 2048, 1<<24),
			MicroBatch: i(r.MicroBatch, "micro_batch", 1, 1<<16), MicroBatches: i(r.MicroBatches, "micro_batches", 1, 1<<16),
			DType:     c.choice(r.DType, p+"dtype", "bf16", "bf16", "fp16", "fp32"),
			GradDType: c.choice(r.GradDType, p+"grad_dtype", "", "bf16", "fp16", "fp32"),
		},
		Parallel:   training.Parallel{TP: i(r.TP, "tp", 1, 64), PP: i(r.PP, "pp", 1, 1<<10), DP: i(r.DP, "dp", 1, 1<<16)},
		MFU:        c.float(r.MFU, p+"mfu", 0.4, 0.01, 1),
		PeakTFLOPS: c.float(r.PeakTFLOPS, p+"peak_tflops", 0, 0, 1e6),
		Iterations: i(r.Iterations, "iterations", 1, 1000),
	}
	if _, ok := c.scalar(r.Params, p+"params"); !ok {
		c.fail(r.Params, p+"params", "missing: the model's parameter count, e.g. 175e9")
	}
	if _, err := training.Decompose(*cfg, srv); err != nil && len(c.errs) == 0 {
		c.fail(r.TP, "workload.training", "%v", err)
	}
	return cfg
}

func (c *conv) backgroundFlow(s *Scenario, r *rawBackground, path string) background.Flow {
	hosts := len(s.Topo.Hosts)
	kind := c.choice(r.Kind, path+".kind", "", "storage", "tcp")
	src, dst := c.hostRef(r.Src, path+".src", hosts), c.hostRef(r.Dst, path+".dst", hosts)
	var f background.Flow
	switch kind {
	case "storage":
		f = background.Storage("", src, dst, 0)
	case "tcp":
		f = background.TCP("", src, dst)
	default:
		c.fail(r.Kind, path+".kind", "missing: expected storage or tcp")
		return f
	}
	f.Name = c.text(r.Name, path+".name", kind+strconv.Itoa(src))
	f.TC = -1
	if _, ok := c.scalar(r.DSCP, path+".dscp"); ok {
		f.TC = int(c.integer(r.DSCP, path+".dscp", 0, 0, 63)) << 2
	}
	f.Bytes = int64(c.bytes(r.Bytes, path+".bytes", 0))
	f.Message = int64(c.bytes(r.Message, path+".message", unit.Bytes(f.Message)))
	f.Depth = int(c.integer(r.Depth, path+".depth", int64(f.Depth), 1, 1024))
	f.Rate = c.rate(r.Rate, path+".rate", 0)
	f.Start = c.duration(r.Start, path+".start", 0)
	if src >= 0 && src == dst {
		c.fail(r.Dst, path+".dst", "a flow needs two different hosts")
	}
	return f
}

// gpus returns the GPUs per server the job uses.
func (w *WorkloadSpec) gpus() []int {
	if w.Tests != nil {
		return collective.AllGPUs(w.Tests.NGpus * w.Tests.NThreads)
	}
	return collective.AllGPUs(w.System.Server.GPUs)
}

func (w *WorkloadSpec) comm(gpus []int) (*collective.Comm, error) {
	return collective.NewComm(w.NCCL, w.System, w.Servers, gpus)
}

// Jobs is the NCCL job of a twin: a sweep or a training run, and the
// background flows.
type Jobs struct {
	Sweep      *nccltests.Sweep
	Training   *training.Workload
	Background *background.Workload
}

// jobs builds the workloads of spec afresh (a twin's own).
func (w *WorkloadSpec) jobs() (*Jobs, error) {
	j := &Jobs{}
	var err error
	switch {
	case w.Tests != nil:
		var cm *collective.Comm
		if cm, err = w.comm(w.gpus()); err != nil {
			return nil, err
		}
		j.Sweep, err = nccltests.NewSweep(*w.Tests, cm)
	case w.Training != nil:
		sys := w.System
		sys.Hosts = sys.Hosts[:len(w.Servers)]
		j.Training, err = training.New(*w.Training, w.NCCL, sys)
	}
	if err != nil {
		return nil, err
	}
	if len(w.Background) > 0 {
		if j.Background, err = background.New(false, w.Background...); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// Workloads returns the jobs' workloads to start.
func (j *Jobs) Workloads() []workload.Workload {
	var ws []workload.Workload
	if j.Sweep != nil {
		ws = append(ws, j.Sweep)
	}
	if j.Training != nil {
		ws = append(ws, j.Training)
	}
	if j.Background != nil {
		ws = append(ws, j.Background)
	}
	return ws
}

// netTraffic is what the job puts on the network, for the estimate.
func (j *Jobs) netTraffic(mtu int64) ([]collective.Transfer, error) {
	switch {
	case j.Sweep != nil:
		return j.Sweep.NetTraffic(mtu)
	case j.Training != nil:
		return j.Training.NetTraffic(mtu)
	}
	return nil, nil
}

// traffic is what the job puts on the network, per host pair, for the
// estimates (nil without a job, or when it cannot be laid out: building
// it then says why).
func (w *WorkloadSpec) traffic(mtu int64) []collective.Transfer {
	if w == nil {
		return nil
	}
	j, err := w.jobs()
	if err != nil {
		return nil
	}
	tr, err := j.netTraffic(mtu)
	if err != nil {
		return nil
	}
	return tr
}

// packetCost returns the packet engine's share of the job's traffic, data
// and CTS: packets, packet-hops and wire bytes.
func packetCost(tr []collective.Transfer, hops func(a, b int) int, overhead float64) (packets, packetHops, wire float64) {
	for _, x := range tr {
		pk := float64(x.Packets + x.CTS)
		packets += pk
		packetHops += pk * float64(hops(x.Src, x.Dst))
		wire += float64(x.Bytes) + float64(x.CTS)*64 + pk*overhead
	}
	return packets, packetHops, wire
}

// OverrideNCCLTests replaces the nccl-tests command line of s and of its
// variants (the command-line flag that runs the full sweep).
func (s *Scenario) OverrideNCCLTests(cmd string) error {
	for _, sc := range append([]*Scenario{s}, s.Variants...) {
		w := sc.Workload
		if w == nil || w.Tests == nil {
			return fmt.Errorf("the scenario has no nccl_tests workload to override")
		}
		o, err := nccltests.Parse(strings.Fields(cmd))
		if err != nil {
			return err
		}
		if o.NGpus*o.NThreads > w.System.Server.GPUs {
			return fmt.Errorf("-g %d -t %d asks for more GPUs per server than the %d the servers have", o.NGpus, o.NThreads, w.System.Server.GPUs)
		}
		w.Tests = &o
		sc.Digest = digest(sc.Digest, "nccl-tests", cmd)
	}
	return nil
}

// WorkProgress returns how much of the workload section's job is done,
// in its own units (nccl-tests batches, training iterations), when there
// is one.
func (tw *Twin) WorkProgress() (done, total int, ok bool) {
	j := tw.Jobs
	switch {
	case j == nil:
		return 0, 0, false
	case j.Sweep != nil:
		d, t := j.Sweep.Steps()
		return d, t, true
	case j.Training != nil:
		return j.Training.Report.Iterations, j.Training.Cfg.Iterations, true
	}
	return 0, 0, false
}
