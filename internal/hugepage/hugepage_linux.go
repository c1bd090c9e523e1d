package hugepage

import (
	"bytes"
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
// memory until the pages are used.
func Prepare(n int64) bool {
	if n < MinBytes || unsafe.Sizeof(uintptr(0)) < 8 {
		return false
	}
	prepared.Lock()
	defer prepared.Unlock()
	if n <= prepared.most {
		return false
	}
	first := prepared.most == 0
	prepared.most = n // asked once, tried once, whatever the outcome
	size := pageSize()
	if Mode() != "madvise" || size == 0 || size > chunk || strings.Contains(os.Getenv("GODEBUG"), "disablethp=1") {
		return false
	}
	if first {
		adviseGlobals(size)
	}
	// The pieces are live heap until the advice: under a memory limit
	// (rocelab run sets one), at most half of it, so that the collector
	// does not run again and again while they are allocated.
	n = min(n, maxBytes, debug.SetMemoryLimit(-1)/2)
	return n >= MinBytes && advise(n, size)
}

// adviseGlobals advises the whole huge pages of the mapping that holds
// the program's zero-initialised globals (.bss and .noptrbss, which the
// kernel maps anonymously after the executable). The collection Prepare
// runs reads every pointer-holding global, which touches each untouched
// 4 KiB page of them for the first time: about 5 MiB in rocelab
// (gopacket's tables of 65536 entries): about 400 of the 127->1
// incast's 3200 page faults (docs/engine.md, "Huge pages for every run").
func adviseGlobals(size uintptr) {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return
	}
	lo, hi, ok := mappingOf(string(maps), uintptr(unsafe.Pointer(&prepared)))
	if a, z := (lo+size-1)&^(size-1), hi&^(size-1); ok && z > a {
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, a, z-a, unix.MADV_HUGEPAGE)
	}
}

// mappingOf returns the bounds of the anonymous mapping that holds addr
// in maps, the text of /proc/self/maps ("lo-hi perms offset dev inode
// [path]" a line, in hex; inode 0 and no path for anonymous memory).
func mappingOf(maps string, addr uintptr) (lo, hi uintptr, ok bool) {
	for line := range strings.Lines(maps) {
		f := strings.Fields(line)
		if len(f) != 5 || f[4] != "0" {
			continue
		}
		a, z, found := strings.Cut(f[0], "-")
		l, err1 := strconv.ParseUint(a, 16, 64)
		h, err2 := strconv.ParseUint(z, 16, 64)
		if found && err1 == nil && err2 == nil && uintptr(l) <= addr && addr < uintptr(h) {
			return uintptr(l), uintptr(h), true
		}
	}
	return 0, 0, false
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
	runtime.GC()              // the pieces are garbage now: their pages go back to the heap
	return ok
}
