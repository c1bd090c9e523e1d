package hugepage

import (
	"bytes"
	"debug/elf"
	"errors"
	"os"
	"runtime"
	"runtime/debug"
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

// chunk is the size of the pieces Prepare grows the heap by. Go zeroes a
// large allocation that begins below memory it has used before, which
// faults its pages in before they can be advised; in pieces, only those
// that land on memory an earlier run freed are (a later, larger
// preparation's first pieces: that memory keeps the pages it has).
const chunk = 4 << 20

// prepared serialises Prepare and holds the most it was asked for in this
// process: the advice stays on a range after the run that used it frees
// it, so a later run of that size or less reuses advised memory, and only
// a larger one (a benchmark's k=32 fabric after its k=8 one) prepares
// again.
var prepared struct {
	sync.Mutex
	most int64
}

// Prepare makes the next n bytes the program allocates (at most 8 GiB
// and half the memory limit) fault in as huge pages, and reports whether
// it did. It acts only for n of at least MinBytes and more than any
// earlier call in the process asked for, and only when the system gives
// huge pages on request (mode madvise) of 2 MiB, the address space is 64
// bits wide and GODEBUG does not set disablethp=1. It grows the heap by n
// bytes, advises them for huge pages before anything touches them, and
// frees them: Go's page allocator hands out the lowest free addresses
// first, so the allocations that follow fill the advised range. It costs
// one garbage collection (which pauses runs already going, such as
// variants run side by side) and, in a process that has freed little, no
// memory until the pages are used. Its first call also maps the program's
// pointer-holding globals at once (populateGlobals), whatever the system's
// huge page setting: every collection reads them.
func Prepare(n int64) bool {
	if n < MinBytes || unsafe.Sizeof(uintptr(0)) < 8 {
		return false
	}
	prepared.Lock()
	defer prepared.Unlock()
	if n <= prepared.most {
		return false
	}
	if prepared.most == 0 {
		_ = populateGlobals() // on failure, the first collection faults them in as before
	}
	prepared.most = n // asked once, tried once, whatever the outcome
	size := pageSize()
	if Mode() != "madvise" || size == 0 || size > chunk || strings.Contains(os.Getenv("GODEBUG"), "disablethp=1") {
		return false
	}
	// The pieces are live heap until the advice: under a memory limit
	// (rocelab run sets one), at most half of it, so that the collector
	// does not run again and again while they are allocated.
	n = min(n, maxBytes, debug.SetMemoryLimit(-1)/2)
	return n >= MinBytes && advise(n, size)
}

// populateGlobals maps every page of the program's pointer-holding
// zero-initialised globals (.bss) at once, to the zero page (MADV_POPULATE_READ,
// Linux 5.14). A garbage collection reads each of those globals, and the
// pages never written are untouched until the first one: about 5 MiB in
// rocelab (gopacket's tables of 65536 entries), 1300 faults of 4 KiB, one
// at a time, on the 127->1 incast's one collection (docs/engine.md,
// "Globals mapped at once"). Advising them for huge pages did not help:
// a read fault maps a 4 KiB zero page whatever the advice. An older kernel
// refuses the advice, and the faults stay.
func populateGlobals() error {
	lo, hi, err := bssOf()
	if err != nil {
		return err
	}
	lo &^= uintptr(os.Getpagesize() - 1)
	if _, _, e := unix.Syscall(unix.SYS_MADVISE, lo, hi-lo, unix.MADV_POPULATE_READ); e != 0 {
		return e
	}
	return nil
}

// bssOf returns the bounds of the running executable's .bss section, as
// its section headers give them (Go builds are not position-independent
// by default; a position-independent one is refused).
func bssOf() (lo, hi uintptr, err error) {
	f, err := elf.Open("/proc/self/exe")
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	s := f.Section(".bss")
	switch {
	case s == nil:
		return 0, 0, errors.New("no .bss section")
	case f.Type != elf.ET_EXEC:
		return 0, 0, errors.New("a position-independent executable: its sections' addresses are offsets")
	}
	return uintptr(s.Addr), uintptr(s.Addr + s.Size), nil
}

// advise grows the heap by n bytes in pieces, advises the whole huge
// pages of each run of adjacent pieces, and frees the pieces.
func advise(n int64, size uintptr) bool {
	// The pieces would set off a collection of their own on the way
	// (a heap of a few MiB has a goal of a few more), then the one below:
	// on the 127->1 incast, two collections instead of one, 4 ms of a
	// 100 ms run. The memory limit still holds.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	pieces := make([][]byte, (n+chunk-1)/chunk)
	at := make([]uintptr, len(pieces))
	for i := range pieces {
		pieces[i] = make([]byte, chunk)
		at[i] = uintptr(unsafe.Pointer(unsafe.SliceData(pieces[i])))
	}
	slices.Sort(at)
	ok := false
	for i := 0; i < len(at); {
		j := i + 1
		for j < len(at) && at[j] == at[j-1]+chunk {
			j++
		}
		lo, hi := (at[i]+size-1)&^(size-1), (at[j-1]+chunk)&^(size-1)
		if hi > lo {
			_, _, e := unix.Syscall(unix.SYS_MADVISE, lo, hi-lo, unix.MADV_HUGEPAGE)
			ok = ok || e == 0
		}
		i = j
	}
	runtime.KeepAlive(pieces) // nothing else may take their pages before the advice
	collectAlone()            // the pieces are garbage now: their pages go back to the heap
	return ok
}

// collectAlone runs a full collection on one processor. runtime.GC
// finishes the sweep itself and yields (runtime.Gosched) after each span;
// with another processor idle, each yield wakes a thread for it, which
// finds nothing to do and sleeps again. On the 127->1 incast that was 3 of
// the collection's 5 ms of CPU on two cores (docs/engine.md, "Start-up");
// on one processor a yield wakes no one. GOMAXPROCS goes back to what it
// was, as a value set: the runtime no longer follows a change of the CPU
// quota for the rest of the process.
func collectAlone() {
	if runtime.GOMAXPROCS(0) > 1 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	}
	runtime.GC()
}
