package hugepage

import (
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Mode returns the system's transparent huge page setting: "always",
// "madvise", "never", or "" when the kernel has none.
func Mode() string {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return ""
	}
	_, after, ok := bytes.Cut(b, []byte("["))
	if !ok {
		return ""
	}
	mode, _, ok := bytes.Cut(after, []byte("]"))
	if !ok {
		return ""
	}
	return string(mode)
}

// pageSize returns the size of a huge page (the kernel's PMD size: 2 MiB
// with 4 KiB base pages), or 0 when the kernel does not say.
func pageSize() uintptr {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size")
	if err != nil {
		return 0
	}
	n, err := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil || n == 0 || n&(n-1) != 0 {
		return 0
	}
	return uintptr(n)
}

// stackBytes is the size of the goroutine stacks Prepare grows the heap
// by: the runtime doubles a stack until a frame of growFrame fits.
const stackBytes = 16 << 20

// prepared serialises Prepare and holds the most it was asked for in this
// process: the advice stays on a range after the run that used it frees
// it, so a later run of that size or less reuses advised memory, and only
// a larger one (a benchmark's k=32 fabric after its k=8 one) prepares
// again.
var prepared struct {
	sync.Mutex
	most int64
	// held says that holdCollector has raised the collector's percentage
	// from gogc, until the collection after its last raise, the holds-th.
	held  bool
	gogc  int
	holds uint64
}

// Prepare makes the next n bytes the program allocates (at most 8 GiB
// and half the memory limit) fault in as huge pages, and reports whether
// it did. It acts only for n of at least MinBytes and more than any
// earlier call in the process asked for, and only when the system gives
// huge pages on request (mode madvise) of 2 MiB, the address space is 64
// bits wide and GODEBUG does not set disablethp=1. It grows the heap by n
// bytes as goroutine stacks, advises them for huge pages before anything
// touches them, and ends the goroutines: the runtime gives a large stack
// back to the heap as its goroutine exits, without a collection, and Go's
// page allocator hands out the lowest free addresses first, so the
// allocations that follow fill the advised range. It costs no memory
// until the pages are used, and holds the collector off until they are
// (holdCollector).
func Prepare(n int64) bool {
	if n < MinBytes || unsafe.Sizeof(uintptr(0)) < 8 {
		return false
	}
	prepared.Lock()
	defer prepared.Unlock()
	if n <= prepared.most {
		return false
	}
	prepared.most = n // asked once, tried once, whatever the outcome
	size := pageSize()
	if Mode() != "madvise" || size == 0 || size > stackBytes || strings.Contains(os.Getenv("GODEBUG"), "disablethp=1") {
		return false
	}
	// The stacks are live until the advice: under a memory limit (rocelab
	// run sets one), at most half of it.
	n = min(n, maxBytes, debug.SetMemoryLimit(-1)/2)
	if n < MinBytes || !advise(n, size) {
		return false
	}
	holdCollector(n)
	return true
}

// holdCollector raises the collector's percentage (GOGC) so that its next
// goal is no less than the heap in use and n bytes more, until that
// collection, after which the percentage goes back to what it was before
// the first hold (the caller holds prepared's lock). A run
// keeps what it allocates until it ends, so a collection before its
// memory is allocated frees nothing and scans it all. (Prepare collected
// once, which set the next goal from the small heap of the time: a
// percentage of that heap and of the globals, about 5 MiB. Without that
// collection the first goal is the globals' share alone, which the
// 128-host permutation passes in its observation.)
func holdCollector(n int64) {
	m := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"},
		{Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"}, {Name: "/gc/gogc:percent"}}
	metrics.Read(m)
	for _, s := range m {
		if s.Value.Kind() != metrics.KindUint64 {
			return
		}
	}
	inUse, marked, base := m[0].Value.Uint64(), m[1].Value.Uint64(), m[1].Value.Uint64()+m[2].Value.Uint64()+m[3].Value.Uint64()
	want := inUse + uint64(n)
	if base == 0 || want <= marked {
		return
	}
	pct, was := int((100*(want-marked)+base-1)/base), int(m[4].Value.Uint64())
	if was <= 0 || was >= pct {
		return
	}
	if !prepared.held {
		prepared.held, prepared.gogc = true, was
	}
	debug.SetGCPercent(pct)
	prepared.holds++
	// The cleanup's object holds pointers, so that the tiny allocator,
	// whose blocks hold several objects and may outlive any one of them,
	// does not take it: its cleanup runs after the next collection. An
	// earlier raise's cleanup may run after a later raise (it runs on a
	// goroutine of its own, and waits for the lock): only the last raise's
	// restores the percentage.
	runtime.AddCleanup(new([2]*byte), func(hold uint64) {
		prepared.Lock()
		defer prepared.Unlock()
		if prepared.held && hold == prepared.holds {
			prepared.held = false
			debug.SetGCPercent(prepared.gogc)
		}
	}, prepared.holds)
}

// advise grows the heap by n bytes as the stacks of goroutines (hold),
// advises the whole huge pages of the stacks, and ends the goroutines,
// whose stacks go back to the heap as they exit. A stack's first pages
// are written as it grows (the goroutine's frames are copied to its
// top); the rest stays untouched until the run's allocations fault it
// in. Below the stacks lies the heap the start-up used, in huge pages
// partly resident: settle collapses those, and the tops of the stacks in
// the first half of n (an estimate, which runs reach a half or a third
// of: a collapsed top the run never reaches is 2 MiB of memory for
// nothing). advise returns once the stacks are back in the heap (or
// after a bounded wait, should other goroutines hold large stacks
// meanwhile). It leaves GOMAXPROCS alone: setting it stops the world and
// flushes each processor's cached spans into the runtime's span sets,
// new pages of metadata that a run without a collection does not
// otherwise touch (on the 127->1 incast, about 120 page faults).
func advise(n int64, size uintptr) bool {
	base := stacksInUse()
	at := make([]uintptr, (n+stackBytes-1)/stackBytes)
	tops, release := make(chan uintptr), make(chan struct{})
	var held sync.WaitGroup
	for range at {
		held.Go(func() { hold(tops, release) })
	}
	for i := range at {
		at[i] = <-tops - stackBytes
	}
	slices.Sort(at)
	// The heap below the stacks starts with the arena that holds at (a
	// small object, in the part of the heap the program has used).
	lo := min(uintptr(unsafe.Pointer(&at[0]))&^(arenaBytes-1), at[0]) &^ (size - 1)
	hi := at[(len(at)-1)/2] + stackBytes
	ok := settle(lo, hi, size)
	if !ok {
		hi = 0
	}
	ok = adviseRuns(at, hi&^(size-1), size) || ok
	close(release)
	held.Wait()
	// A goroutine counts itself done before it exits and frees its stack.
	for i := 0; i < 1000 && stacksInUse() >= base+stackBytes; i++ {
		runtime.Gosched()
	}
	return ok
}

// adviseRuns advises the whole huge pages of each run of adjacent stacks
// from the huge page at from on, those below it being settled already.
func adviseRuns(at []uintptr, from, size uintptr) bool {
	ok := false
	for i := 0; i < len(at); {
		j := i + 1
		for j < len(at) && at[j] == at[j-1]+stackBytes {
			j++
		}
		lo, hi := max((at[i]+size-1)&^(size-1), from), (at[j-1]+stackBytes)&^(size-1)
		if hi > lo {
			ok = madvise(lo, hi-lo, unix.MADV_HUGEPAGE) || ok
		}
		i = j
	}
	return ok
}

// arenaBytes is the size and alignment of the runtime's heap arenas on
// 64-bit Linux: the memory from an arena's start to the stacks is the
// heap's, mapped or reserved.
const arenaBytes = 64 << 20

// settle advises the huge pages of the memory from lo (on a huge page)
// to hi, and reports whether it could: the first touch of a page none
// of whose 4 KiB pages is resident faults in all of it. One partly
// resident (mincore) is collapsed into a huge page now (MADV_COLLAPSE,
// Linux 6.1): the kernel backs a huge page only where no small page is
// yet, and the part of the heap the start-up used, and the top of a
// stack (its frames), would otherwise stay in 4 KiB pages, each costing
// a fault as the run's allocations fill it (on this VM about 14 µs of
// CPU each, against 0.4-1.5 ms to collapse and fill 4 MiB). Collapsing
// makes resident memory the run mostly fills anyway, as Go's page
// allocator hands out the lowest free addresses first: the 127->1
// incast and the 128-host permutation peak 2 MiB higher. A range with
// a hole (mincore fails) is left to the caller.
func settle(lo, hi, size uintptr) bool {
	page := uintptr(os.Getpagesize())
	per := int(size / page)
	// The residency vector is mapped apart: on the heap, where the stacks
	// are still held, it would lie past them, and split the range a later
	// preparation's stacks and the allocations after it fill.
	resident, err := unix.Mmap(-1, 0, int((hi-lo)/page), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return false
	}
	defer unix.Munmap(resident)
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, lo, hi-lo, uintptr(unsafe.Pointer(&resident[0]))); e != 0 {
		return false
	}
	if !madvise(lo, hi-lo, unix.MADV_HUGEPAGE) {
		return false
	}
	// Adjacent partly resident huge pages are collapsed in one call.
	from := -1
	for i := 0; i+per <= len(resident); i += per {
		n := 0
		for _, b := range resident[i : i+per] {
			n += int(b & 1)
		}
		switch partial := n > 0 && n < per; {
		case partial && from < 0:
			from = i
		case !partial && from >= 0:
			madvise(lo+uintptr(from)*page, uintptr(i-from)*page, unix.MADV_COLLAPSE)
			from = -1
		}
	}
	if from >= 0 {
		madvise(lo+uintptr(from)*page, uintptr(len(resident)/per*per-from)*page, unix.MADV_COLLAPSE)
	}
	return true
}

// madvise gives the advice for [addr, addr+n) and reports whether the
// kernel took it.
func madvise(addr, n uintptr, advice int) bool {
	_, _, e := unix.Syscall(unix.SYS_MADVISE, addr, n, uintptr(advice))
	return e == 0
}

// stacksInUse returns the bytes of the heap that goroutine stacks hold.
func stacksInUse() uint64 {
	m := []metrics.Sample{{Name: "/memory/classes/heap/stacks:bytes"}}
	metrics.Read(m)
	if m[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return m[0].Value.Uint64()
}

// hold grows its goroutine's stack to stackBytes, sends the stack's top
// (the runtime's stacks are whole pages of 8 KiB, and hold's frame lies
// at the top) and waits for release.
func hold(top chan<- uintptr, release <-chan struct{}) {
	growFrame(false)
	var mark byte
	top <- (uintptr(unsafe.Pointer(&mark)) + 8<<10) &^ (8<<10 - 1)
	<-release
}

// growFrame has a frame of 8 MiB (64 arrays of the largest size Go keeps
// on a stack, 128 KiB), which makes the runtime grow the calling
// goroutine's stack to 16 MiB before it runs; called with false, it
// touches none of it. With true it returns a sum of the arrays'
// addresses, which keeps them in its frame.
//
//go:noinline
func growFrame(use bool) (sum uintptr) {
	if !use {
		return 0
	}
	var a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15 [128 << 10]byte
	var b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15 [128 << 10]byte
	var c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15 [128 << 10]byte
	var d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14, d15 [128 << 10]byte
	for _, p := range [...]unsafe.Pointer{
		unsafe.Pointer(&a0), unsafe.Pointer(&a1), unsafe.Pointer(&a2), unsafe.Pointer(&a3), unsafe.Pointer(&a4), unsafe.Pointer(&a5), unsafe.Pointer(&a6), unsafe.Pointer(&a7),
		unsafe.Pointer(&a8), unsafe.Pointer(&a9), unsafe.Pointer(&a10), unsafe.Pointer(&a11), unsafe.Pointer(&a12), unsafe.Pointer(&a13), unsafe.Pointer(&a14), unsafe.Pointer(&a15),
		unsafe.Pointer(&b0), unsafe.Pointer(&b1), unsafe.Pointer(&b2), unsafe.Pointer(&b3), unsafe.Pointer(&b4), unsafe.Pointer(&b5), unsafe.Pointer(&b6), unsafe.Pointer(&b7),
		unsafe.Pointer(&b8), unsafe.Pointer(&b9), unsafe.Pointer(&b10), unsafe.Pointer(&b11), unsafe.Pointer(&b12), unsafe.Pointer(&b13), unsafe.Pointer(&b14), unsafe.Pointer(&b15),
		unsafe.Pointer(&c0), unsafe.Pointer(&c1), unsafe.Pointer(&c2), unsafe.Pointer(&c3), unsafe.Pointer(&c4), unsafe.Pointer(&c5), unsafe.Pointer(&c6), unsafe.Pointer(&c7),
		unsafe.Pointer(&c8), unsafe.Pointer(&c9), unsafe.Pointer(&c10), unsafe.Pointer(&c11), unsafe.Pointer(&c12), unsafe.Pointer(&c13), unsafe.Pointer(&c14), unsafe.Pointer(&c15),
		unsafe.Pointer(&d0), unsafe.Pointer(&d1), unsafe.Pointer(&d2), unsafe.Pointer(&d3), unsafe.Pointer(&d4), unsafe.Pointer(&d5), unsafe.Pointer(&d6), unsafe.Pointer(&d7),
		unsafe.Pointer(&d8), unsafe.Pointer(&d9), unsafe.Pointer(&d10), unsafe.Pointer(&d11), unsafe.Pointer(&d12), unsafe.Pointer(&d13), unsafe.Pointer(&d14), unsafe.Pointer(&d15),
	} {
		sum += uintptr(p)
	}
	return sum
}
