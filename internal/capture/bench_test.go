package capture

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"rocelab/internal/roce"
	"rocelab/internal/unit"
	"rocelab/internal/wire"
	"rocelab/internal/wire/tshark"
)

var (
	mixOnce sync.Once
	mixData []byte
)

// benchMix is a 200k-packet synthetic capture of the realistic mix.
func benchMix() []byte {
	mixOnce.Do(func() { mixData = mixScenario(200_000, 42).pcap() })
	return mixData
}

// BenchmarkAnalyze measures decode and analysis on one core.
func BenchmarkAnalyze(b *testing.B) {
	data := benchMix()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var n int64
	cpu0 := cpuTime()
	for b.Loop() {
		a, err := Analyze("mix.pcap", bytes.NewReader(data), Options{LinkSpeed: 100 * unit.Gbps})
		if err != nil {
			b.Fatal(err)
		}
		n += a.Packets
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "packets/s")
	b.ReportMetric(float64(n)/(cpuTime()-cpu0).Seconds(), "packets/cpu-s")
}

// cpuTime is the process's user and system CPU time so far: on a shared
// machine, packets per CPU second is steadier than per wall second.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTshark runs tshark over the same capture, for comparison (it
// decodes every field, so this is its cheapest useful run: one field).
func BenchmarkTshark(b *testing.B) {
	path, err := tshark.Path()
	if err != nil {
		b.Skip("SKIP: tshark is not installed")
	}
	file := writeTemp(b, "mix.pcap", benchMix())
	var n int64
	var cpu time.Duration
	for b.Loop() {
		cmd := exec.Command(path, "-n", "-r", file, "-T", "fields", "-e", "infiniband.bth.psn")
		out, err := cmd.Output()
		if err != nil {
			b.Fatal(err)
		}
		n += int64(bytes.Count(out, []byte("\n")))
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "packets/s")
	b.ReportMetric(float64(n)/cpu.Seconds(), "packets/cpu-s")
}

// hugeCapture streams a synthetic pcap of size bytes of 4 KiB RoCE writes
// (8 QPs, a NAK-triggered go-back-N every 10000 packets) without holding
// it: frames are built once and only their PSN and timestamp change.
func hugeCapture(w *io.PipeWriter, size int64) {
	var b wire.Builder
	b.NoICRC = true
	ab, _ := endpoints(true)
	tr := write(0x100, 0, roce.OpWriteMiddle, 4096)
	frame, wireLen, _ := b.RoCE(&ab, &tr, 0)
	var buf bytes.Buffer
	writePcapHeader(&buf, 65535)
	written := int64(buf.Len())
	psnOff := len(frame) - 4 - 4096 - 3
	qpnOff := psnOff - 4
	var psn [8]uint32
	ns := epoch
	for i := 0; written < size; i++ {
		q := i % 8
		p := psn[q]
		if i%10000 == 9999 {
			p = roce.PSNAdd(p, -4) // resend the last 4: go-back-N
		} else {
			psn[q] = roce.PSNAdd(psn[q], 1)
		}
		frame[qpnOff+2] = byte(q)
		frame[psnOff], frame[psnOff+1], frame[psnOff+2] = byte(p>>16), byte(p>>8), byte(p)
		ns += 330
		writePcapRecord(&buf, ns, frame, wireLen)
		if buf.Len() > 1<<20 {
			written += int64(buf.Len())
			if _, err := w.Write(buf.Bytes()); err != nil {
				return
			}
			buf.Reset()
		}
	}
	written += int64(buf.Len())
	w.Write(buf.Bytes())
	w.Close()
}

// TestHugeCaptureBoundedMemory streams a 5 GB synthetic capture through
// Analyze and logs the peak RSS. It runs when ROCELAB_BIG_CAPTURE is set
// (it takes tens of seconds); the size in GB may be given as its value.
func TestHugeCaptureBoundedMemory(t *testing.T) {
	v := os.Getenv("ROCELAB_BIG_CAPTURE")
	if v == "" {
		t.Skip("SKIP: set ROCELAB_BIG_CAPTURE=1 to stream a 5 GB synthetic capture")
	}
	size := int64(5e9)
	pr, pw := io.Pipe()
	go hugeCapture(pw, size)
	start := time.Now()
	a, err := Analyze("synthetic-5GB.pcap", pr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	el := time.Since(start)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var epis int64
	for _, f := range a.Flows {
		epis += f.Requester.EpisodeCount
	}
	t.Logf("streamed %.2f GB synthetic pcap: %d packets, %d flows, %d episodes in %v (%.0f packets/s incl. generation); peak RSS %s, Go heap sys %d MiB",
		float64(size)/1e9, a.Packets, len(a.Flows), epis, el.Round(time.Millisecond), float64(a.Packets)/el.Seconds(), peakRSS(), ms.HeapSys>>20)
	if a.Packets < size/4200 || epis == 0 {
		t.Errorf("packets %d episodes %d", a.Packets, epis)
	}
}

// peakRSS reads VmHWM from /proc/self/status.
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:"))
		}
	}
	return "unknown"
}
