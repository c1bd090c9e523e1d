package hugepage

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// childEnv names, in the environment of a test binary this package runs
// again, the one test the child is to run.
const childEnv = "HUGEPAGE_TEST_CHILD"

// inChild reports whether t runs in a fresh process of its own. If not,
// it runs the test binary again for t alone, with env added to its
// environment (and GOMAXPROCS removed from it), and reports the child's
// failure as t's. Prepare's state and the advice it leaves last for the
// process, so a test that checks a first preparation runs where none was
// made, whatever ran before it and however often it runs.
func inChild(t *testing.T, env ...string) bool {
	if os.Getenv(childEnv) == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOMAXPROCS=") && !strings.HasPrefix(kv, childEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(append(cmd.Env, childEnv+"="+t.Name()), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s in a process of its own: %v\n%s", t.Name(), err, out)
	}
	if strings.Contains(string(out), "--- SKIP") {
		t.Skipf("%s", out)
	}
	return false
}

// hugeKB returns the kilobytes of huge pages backing the mapping that
// holds addr (smaps' AnonHugePages).
func hugeKB(t *testing.T, addr uintptr) int {
	var kb int
	line := smapsLine(t, addr, "AnonHugePages:")
	if _, err := fmt.Sscanf(line, "AnonHugePages: %d kB", &kb); err != nil {
		t.Fatalf("smaps: %q: %v", line, err)
	}
	return kb
}

// smapsLine returns the line of /proc/self/smaps that starts with key in
// the block of the mapping that holds addr.
func smapsLine(t *testing.T, addr uintptr, key string) string {
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	in := false
	for line := range strings.Lines(string(b)) {
		var lo, hi uintptr
		if f := strings.Fields(line); !strings.HasSuffix(f[0], ":") {
			if _, err := fmt.Sscanf(f[0], "%x-%x", &lo, &hi); err != nil {
				t.Fatalf("smaps: %q: %v", line, err)
			}
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, key) {
			return strings.TrimRight(line, "\n")
		}
	}
	t.Fatalf("no mapping holds %#x with %s", addr, key)
	return ""
}

// touched allocates n bytes and writes every page, as a run's build
// does.
func touched(n int) []byte {
	b := make([]byte, n)
	for i := 0; i < n; i += 4096 {
		b[i] = 1
	}
	return b
}

// TestPrepare checks that memory allocated after Prepare is backed by
// huge pages, where the same allocation before it is not, and that a
// preparation acts only when it is larger than every earlier one. It
// runs in a process of its own (inChild).
func TestPrepare(t *testing.T) {
	if !inChild(t) {
		return
	}
	if Mode() != "madvise" || pageSize() != 2<<20 || strings.Contains(os.Getenv("GODEBUG"), "disablethp=1") {
		t.Skipf("transparent huge pages are %q here with pages of %d bytes, not madvise with 2 MiB pages, or GODEBUG disables them", Mode(), pageSize())
	}
	const n = 32 << 20
	before := touched(n)
	if kb := hugeKB(t, uintptr(unsafe.Pointer(&before[n/2]))); kb != 0 {
		t.Fatalf("without Prepare the heap has %d kB of huge pages: the test cannot tell", kb)
	}
	if Prepare(MinBytes - 1) {
		t.Fatal("Prepare acted below MinBytes")
	}
	if !Prepare(4 * n) {
		t.Fatal("Prepare did not advise the heap")
	}
	if Prepare(4 * n) {
		t.Fatal("Prepare acted again for no more than it prepared")
	}
	after := touched(n)
	if kb := hugeKB(t, uintptr(unsafe.Pointer(&after[n/2]))); kb < n/2>>10 {
		t.Fatalf("after Prepare, %d kB of the %d kB allocated are huge pages", kb, n>>10)
	}
	if !Prepare(8 * n) {
		t.Fatal("Prepare did not act for more than it had prepared")
	}
	more := touched(6 * n) // past the first range
	at := uintptr(unsafe.Pointer(&more[len(more)-n/2]))
	if kb := hugeKB(t, at); kb < n/2>>10 {
		// The advice is Prepare's; whether the kernel backs each fault
		// with a huge page at that moment is the kernel's (the check
		// above showed that it can). A range left unadvised is the fault.
		if line := smapsLine(t, at, "THPeligible:"); !strings.HasSuffix(line, " 1") {
			t.Fatalf("after the larger Prepare, %d kB of the mapping past the first range are huge pages and it is not advised (%s)", kb, line)
		}
		t.Logf("after the larger Prepare, the mapping past the first range is advised but %d kB of it are huge pages", kb)
	}
	runtime.KeepAlive(before) // else after may reuse its pages
	runtime.KeepAlive(after)
}

// TestPrepareCollectsNothing checks that preparing runs no collection
// and leaves no stack behind: the goroutines' stacks are back in the heap
// when Prepare returns, for the allocations that follow.
func TestPrepareCollectsNothing(t *testing.T) {
	if Mode() != "madvise" || pageSize() != 2<<20 || strings.Contains(os.Getenv("GODEBUG"), "disablethp=1") {
		t.Skipf("transparent huge pages are %q here with pages of %d bytes, not madvise with 2 MiB pages, or GODEBUG disables them", Mode(), pageSize())
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if !advise(3*stackBytes, pageSize()) {
		t.Fatal("advise did not advise the stacks")
	}
	runtime.ReadMemStats(&after)
	if after.NumGC != before.NumGC {
		t.Errorf("advise ran %d collections", after.NumGC-before.NumGC)
	}
	if after.StackInuse >= before.StackInuse+stackBytes {
		t.Errorf("stacks in use %d bytes after advise, %d before: a goroutine's stack was not freed", after.StackInuse, before.StackInuse)
	}
	if runtime.GOMAXPROCS(0) != 2 {
		t.Errorf("GOMAXPROCS %d after advise, 2 before", runtime.GOMAXPROCS(0))
	}
}

// TestGrowFrame checks that growFrame makes a goroutine's stack
// stackBytes: a smaller stack would leave part of the range Prepare
// advises to other memory, a larger one the rest of the stack unadvised.
func TestGrowFrame(t *testing.T) {
	var before, during runtime.MemStats
	runtime.ReadMemStats(&before)
	release := make(chan struct{})
	tops := make(chan uintptr)
	go hold(tops, release)
	top := <-tops
	runtime.ReadMemStats(&during)
	close(release)
	if grown := during.StackInuse - before.StackInuse; grown < stackBytes || grown >= 2*stackBytes {
		t.Errorf("a held goroutine's stack grew the stacks in use by %d bytes, want %d", grown, stackBytes)
	}
	if top%(8<<10) != 0 {
		t.Errorf("stack top %#x is not on a page of 8 KiB", top)
	}
}

// TestHoldCollector checks that the heap grows by the bytes held without
// a collection, and that the collector's percentage is back to what it
// was after the next one.
func TestHoldCollector(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	const n = 64 << 20
	prepared.Lock()
	holdCollector(n)
	prepared.Unlock()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	kept := make([][]byte, 0, n/(1<<20))
	for range cap(kept) - 1 {
		kept = append(kept, make([]byte, 1<<20))
	}
	runtime.ReadMemStats(&after)
	if after.NumGC != before.NumGC {
		t.Errorf("%d collections while the heap grew by %d of the %d bytes held", after.NumGC-before.NumGC, len(kept)<<20, n)
	}
	runtime.KeepAlive(kept)
	if pct := gogc(); pct <= 100 {
		t.Fatalf("GOGC %d while held, want more than 100", pct)
	}
	runtime.GC()
	for i := 0; i < 1000 && gogc() != 100; i++ {
		runtime.Gosched() // the cleanup runs on a goroutine of its own
	}
	if pct := gogc(); pct != 100 {
		t.Errorf("GOGC %d after the next collection, want 100", pct)
	}
}

// TestHoldCollectorLastHold checks that a raise's cleanup which runs
// after a later raise (it waits for the lock) leaves the percentage
// raised until the collection after the later one.
func TestHoldCollectorLastHold(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	const n = 64 << 20
	prepared.Lock()
	holdCollector(n)
	runtime.GC() // the first raise's cleanup is due, and waits for the lock
	holdCollector(2 * n)
	prepared.Unlock()
	for range 1000 {
		runtime.Gosched()
	}
	if pct := gogc(); pct <= 100 {
		t.Fatalf("GOGC %d after an earlier raise's cleanup, want more than 100 until the next collection", pct)
	}
	runtime.GC()
	for i := 0; i < 1000 && gogc() != 100; i++ {
		runtime.Gosched()
	}
	if pct := gogc(); pct != 100 {
		t.Errorf("GOGC %d after the next collection, want 100", pct)
	}
}

// TestAdviseKeepsDefaultProcs checks that advise leaves GOMAXPROCS
// following the runtime's default where
// the user set none: the runtime then lowers it as the process's CPUs
// are restricted to one (here by affinity, as a CPU quota would). A
// value set explicitly stays 2 and the test fails. It runs in a
// process of its own, whose threads it restricts.
func TestAdviseKeepsDefaultProcs(t *testing.T) {
	if !inChild(t) {
		return
	}
	// The testing package sets GOMAXPROCS (-test.cpu), which ends the
	// runtime's following of the CPUs until it is set to the default.
	runtime.SetDefaultGOMAXPROCS()
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skipf("GOMAXPROCS is %d: the test needs two CPUs", runtime.GOMAXPROCS(0))
	}
	advise(stackBytes, pageSize())
	var one unix.CPUSet
	one.Set(0)
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Skip(err)
	}
	for _, task := range tasks {
		tid, err := strconv.Atoi(task.Name())
		if err != nil {
			t.Fatal(err)
		}
		if err := unix.SchedSetaffinity(tid, &one); err != nil {
			t.Skipf("restricting thread %d to CPU 0: %v", tid, err)
		}
	}
	// The runtime looks at the CPUs once a second or so; this waits for
	// that look, not for a time.
	for range 1000 {
		if runtime.GOMAXPROCS(0) == 1 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("GOMAXPROCS %d after advise and restricting the process to one CPU, want 1: advise set it back explicitly", runtime.GOMAXPROCS(0))
}

// TestSettle checks that settle makes huge pages of an untouched huge
// page (advised) and of one partly touched (collapsed), so that touching
// the rest of both costs a few faults, not one per 4 KiB page.
func TestSettle(t *testing.T) {
	size := pageSize()
	if Mode() != "madvise" || size != 2<<20 || strings.Contains(os.Getenv("GODEBUG"), "disablethp=1") {
		t.Skipf("transparent huge pages are %q here with pages of %d bytes, not madvise with 2 MiB pages, or GODEBUG disables them", Mode(), size)
	}
	m, err := unix.Mmap(-1, 0, int(5*size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Skip(err)
	}
	defer unix.Munmap(m)
	base := uintptr(unsafe.Pointer(&m[0]))
	off := int((base+size-1)&^(size-1) - base)
	// Three huge pages: untouched, one page of 4 KiB touched, all touched;
	// a fourth asks whether the kernel collapses at all.
	blocks := m[off : off+4*int(size)]
	blocks[3*size] = 1
	if err := unix.Madvise(blocks[3*size:], unix.MADV_COLLAPSE); err != nil {
		t.Skipf("MADV_COLLAPSE: %v (Linux 6.1 or later)", err)
	}
	blocks[size] = 1
	for i := 2 * int(size); i < 3*int(size); i += 4096 {
		blocks[i] = 1
	}
	if !settle(uintptr(unsafe.Pointer(&blocks[0])), uintptr(unsafe.Pointer(&blocks[0]))+4*size, size) {
		t.Fatal("settle gave no advice")
	}
	var before, after unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &before)
	for i := 0; i < 2*int(size); i += 4096 {
		blocks[i] = 2
	}
	unix.Getrusage(unix.RUSAGE_SELF, &after)
	if faults := after.Minflt - before.Minflt; faults > 16 {
		t.Errorf("touching two settled huge pages took %d faults, want a few (%d without huge pages)", faults, 2*size/4096)
	}
	if kb := hugeKB(t, uintptr(unsafe.Pointer(&blocks[0]))); kb < 2*int(size>>10) {
		t.Errorf("the mapping holds %d kB of huge pages, want %d or more", kb, 2*size>>10)
	}
}

// gogc reads the collector's percentage without setting it.
func gogc() uint64 {
	m := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(m)
	return m[0].Value.Uint64()
}

// TestAdviseRunsFrom checks that adviseRuns leaves the huge pages below
// from (which settle advised) alone and advises the rest of the run from
// the huge page at from, the one a stack boundary inside it shares with
// settle's range.
func TestAdviseRunsFrom(t *testing.T) {
	size := pageSize()
	if size != 2<<20 {
		t.Skipf("huge pages of %d bytes, not 2 MiB", size)
	}
	m, err := unix.Mmap(-1, 0, int(2*stackBytes+2*size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Skip(err)
	}
	defer unix.Munmap(m)
	base := uintptr(unsafe.Pointer(&m[0]))
	a := (base+size-1)&^(size-1) + size/2 // two adjacent stacks, off the huge pages' grid
	from := (a + stackBytes) &^ (size - 1)
	if !adviseRuns([]uintptr{a, a + stackBytes}, from, size) {
		t.Fatal("adviseRuns gave no advice")
	}
	for _, c := range []struct {
		addr uintptr
		want bool
	}{{a + size, false}, {from - 1, false}, {from, true}, {a + 2*stackBytes - size, true}} {
		if got := strings.Contains(smapsLine(t, c.addr, "VmFlags:"), " hg"); got != c.want {
			t.Errorf("%#x (from %#x): advised %v, want %v", c.addr, from, got, c.want)
		}
	}
}
