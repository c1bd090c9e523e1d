// Package training is a data/tensor/pipeline-parallel training iteration
// as a workload: a transformer's size and its TP × PP × DP layout give the
// traffic of one iteration (tensor-parallel AllReduces inside a server,
// pipeline activations and gradients between stages, the data-parallel
// gradient AllReduce), which runs on NCCL communicators over the network
// under a 1F1B pipeline schedule, with compute as local steps.
//
// The decomposition follows Megatron-LM: two AllReduces of the
// activations per layer forward and two backward inside a tensor-parallel
// group; between pipeline stages each tensor-parallel rank sends its
// 1/TP share of a micro-batch's activations (scatter-gather); after the
// last backward, each GPU all-reduces the gradients of its parameter
// shard (P/(TP·PP)) with its data-parallel peers. Compute is 2 flops per
// parameter and token forward, twice that backward, at a fraction (MFU)
// of the GPU's peak.
package training

import (
	"fmt"
	"strings"

	"rocelab/internal/gpu"
	"rocelab/internal/unit"
)

// Model is a transformer's size and batch.
type Model struct {
	// Params is the number of parameters.
	Params float64
	Layers int
	Hidden int
	SeqLen int
	// MicroBatch is sequences per micro-batch; MicroBatches per iteration
	// (the pipeline's micro-batches, or gradient accumulation steps).
	MicroBatch, MicroBatches int
	// DType is the activation type; GradDType the gradients' (DType when
	// empty): "bf16", "fp16" or "fp32".
	DType, GradDType string
}

// Parallel is the layout: tensor, pipeline and data parallelism.
type Parallel struct{ TP, PP, DP int }

// Config is a training job.
type Config struct {
	Model
	Parallel
	// PeakTFLOPS is the GPU's dense 16-bit peak (the model's default when
	// zero) and MFU the fraction achieved (0.4 when zero).
	PeakTFLOPS, MFU float64
	// Iterations to run (1 when zero).
	Iterations int
}

// peak dense BF16 TFLOPS from NVIDIA's data sheets (without sparsity).
var peakTFLOPS = map[string]float64{"V100": 125, "A100": 312, "H100": 989, "B200": 2250}

func typeBytes(t string) (int64, error) {
	switch strings.ToLower(t) {
	case "bf16", "fp16", "half", "bfloat16":
		return 2, nil
	case "fp32", "float":
		return 4, nil
	}
	return 0, fmt.Errorf("data type %q: want bf16, fp16 or fp32", t)
}

// Traffic is one iteration's work per GPU, the decomposition a reader can
// check by hand.
type Traffic struct {
	GPUs        int
	StageLayers int
	// ActBytes is one micro-batch's activations at a stage boundary:
	// MicroBatch × SeqLen × Hidden × type size.
	ActBytes int64
	// TPCalls is the tensor-parallel AllReduces per micro-batch and
	// stage (4 per layer: 2 forward, 2 backward), each of ActBytes.
	TPCalls int
	// PPBytes is what one tensor-parallel rank sends a neighbour stage
	// per micro-batch and direction: ActBytes/TP.
	PPBytes int64
	// DPBytes is the gradient bytes each GPU all-reduces per iteration.
	DPBytes int64
	// Fwd and Bwd are a stage's compute per micro-batch.
	Fwd, Bwd unit.Time
}

// Decompose checks the layout against the servers and returns the
// iteration's traffic.
func Decompose(c Config, srv gpu.Server) (Traffic, error) {
	m, p := c.Model, c.Parallel
	switch {
	case m.Params <= 0 || m.Layers < 1 || m.Hidden < 1 || m.SeqLen < 1 || m.MicroBatch < 1 || m.MicroBatches < 1:
		return Traffic{}, fmt.Errorf("model: parameters, layers, hidden, seq_len, micro_batch and micro_batches must be positive")
	case p.TP < 1 || p.PP < 1 || p.DP < 1:
		return Traffic{}, fmt.Errorf("parallel: tp, pp and dp must be positive")
	case m.Layers%p.PP != 0:
		return Traffic{}, fmt.Errorf("parallel: %d layers do not split into %d pipeline stages", m.Layers, p.PP)
	case srv.GPUs%p.TP != 0:
		return Traffic{}, fmt.Errorf("parallel: tp %d must divide the %d GPUs of a server (tensor parallelism stays inside a server)", p.TP, srv.GPUs)
	case (p.TP*p.DP)%srv.GPUs != 0 && srv.GPUs%(p.TP*p.DP) != 0:
		return Traffic{}, fmt.Errorf("parallel: tp × dp = %d must be a multiple or a divisor of the %d GPUs of a server", p.TP*p.DP, srv.GPUs)
	}
	act, err := typeBytes(m.DType)
	if err != nil {
		return Traffic{}, err
	}
	gt := m.GradDType
	if gt == "" {
		gt = m.DType
	}
	grad, err := typeBytes(gt)
	if err != nil {
		return Traffic{}, err
	}
	peak, mfu := c.PeakTFLOPS, c.MFU
	if peak == 0 {
		peak = peakTFLOPS[srv.GPU.Name]
	}
	if mfu == 0 {
		mfu = 0.4
	}
	if peak <= 0 || mfu <= 0 || mfu > 1 {
		return Traffic{}, fmt.Errorf("compute: peak %.0f TFLOPS and MFU %.2f must be positive (MFU at most 1)", peak, mfu)
	}
	t := Traffic{GPUs: p.TP * p.PP * p.DP, StageLayers: m.Layers / p.PP}
	t.ActBytes = int64(m.MicroBatch) * int64(m.SeqLen) * int64(m.Hidden) * act
	if p.TP > 1 {
		t.TPCalls = 4 * t.StageLayers
	}
	t.PPBytes = t.ActBytes / int64(p.TP)
	t.DPBytes = int64(m.Params/float64(p.TP*p.PP)) * grad
	flops := 2 * m.Params * float64(m.MicroBatch*m.SeqLen) / float64(p.TP*p.PP)
	t.Fwd = unit.Time(flops / (peak * 1e12 * mfu) * float64(unit.Second))
	t.Bwd = 2 * t.Fwd
	return t, nil
}

// place returns the server and GPU of global rank (tp, dp, pp), Megatron's
// order: tensor innermost, then data, then pipeline.
func place(p Parallel, gpus, tp, dp, pp int) (server, g int) {
	r := pp*p.DP*p.TP + dp*p.TP + tp
	return r / gpus, r % gpus
}
