package hugepage

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugeKB returns the kilobytes of huge pages backing the mapping that
// holds addr (smaps' AnonHugePages).
func hugeKB(t *testing.T, addr uintptr) int {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if f := strings.Fields(line); !strings.HasSuffix(f[0], ":") {
			if _, err := fmt.Sscanf(f[0], "%x-%x", &lo, &hi); err != nil {
				t.Fatalf("smaps: %q: %v", line, err)
			}
			in = lo <= addr && addr < hi
			continue
		}
		var kb int
		if in {
			if n, _ := fmt.Sscanf(line, "AnonHugePages: %d kB", &kb); n == 1 {
				return kb
			}
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return 0
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
// preparation acts only when it is larger than every earlier one.
func TestPrepare(t *testing.T) {
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
	if kb := hugeKB(t, uintptr(unsafe.Pointer(&more[len(more)-n/2]))); kb < n/2>>10 {
		t.Fatalf("after the larger Prepare, %d kB of the mapping past the first range are huge pages", kb)
	}
	runtime.KeepAlive(before) // else after may reuse its pages
	runtime.KeepAlive(after)
}

// bssProbe is a pointer-holding global that starts zero: the linker puts
// it in .bss.
var bssProbe [512]*byte

// TestPopulateGlobals checks that the section populateGlobals maps holds
// the program's pointer-holding zero globals and that the kernel takes the
// advice; a kernel before 5.14, which does not know it (EINVAL), skips.
func TestPopulateGlobals(t *testing.T) {
	lo, hi, err := bssOf()
	if err != nil {
		t.Skip(err)
	}
	if p := uintptr(unsafe.Pointer(&bssProbe)); p < lo || p+unsafe.Sizeof(bssProbe) > hi {
		t.Errorf("bssProbe at %#x, outside .bss %#x-%#x", p, lo, hi)
	}
	if err := populateGlobals(); errors.Is(err, unix.EINVAL) {
		t.Skipf("MADV_POPULATE_READ: %v (Linux before 5.14)", err)
	} else if err != nil {
		t.Errorf("MADV_POPULATE_READ of %#x-%#x: %v", lo, hi, err)
	}
}

// TestCollectAlone checks that the collection on one processor gives the
// processors back, whatever their number was.
func TestCollectAlone(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 3} {
		runtime.GOMAXPROCS(procs)
		collectAlone()
		if got := runtime.GOMAXPROCS(0); got != procs {
			t.Errorf("GOMAXPROCS %d before the collection, %d after", procs, got)
		}
	}
}
