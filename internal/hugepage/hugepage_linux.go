package hugepage

import (
	"bytes"
	"os"
	"runtime"
	"slices"
	"unsafe"

	"golang.org/x/sys/unix"
)

// size is the huge page size on the architectures Go runs Linux on with
// transparent huge pages (amd64, arm64 with 4 KiB base pages).
const size = 2 << 20

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

// chunk is the size of the pieces Prepare grows the heap by. Go zeroes a
// large allocation that begins below memory it has used before, which
// faults its pages in before they can be advised; in pieces, only the
// first few are.
const chunk = 4 << 20

// Prepare makes the next n bytes (at most 8 GiB) the program allocates
// fault in as huge pages, when the system gives them only on request
// (mode madvise) and n is at least MinBytes; it reports whether it did.
// It grows the heap by n bytes, advises them for huge pages before
// anything touches them, and frees them: Go's page allocator hands out
// the lowest free addresses first, so the allocations that follow fill
// the advised range. It costs one garbage collection and no memory
// until the pages are used.
func Prepare(n int64) bool {
	if n < MinBytes || Mode() != "madvise" {
		return false
	}
	pieces := make([][]byte, (min(n, maxBytes)+chunk-1)/chunk)
	at := make([]uintptr, len(pieces))
	for i := range pieces {
		pieces[i] = make([]byte, chunk)
		at[i] = uintptr(unsafe.Pointer(unsafe.SliceData(pieces[i])))
	}
	// Advise each run of adjacent pieces as one range, the whole huge
	// pages within it.
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
	runtime.GC() // the pieces are garbage: their pages go back to the heap
	return ok
}
