package hugepage

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"unsafe"
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

// mapsText is /proc/self/maps as Linux prints it (a rocelab process):
// the executable's mappings, the anonymous one after them that holds its
// zero-initialised globals, the brk heap and a mapping with no inode.
const mapsText = `00400000-00ea5000 r-xp 00000000 fe:00 9977948                            /tmp/rl3
00ea5000-01999000 r--p 00aa5000 fe:00 9977948                            /tmp/rl3
01999000-01f03000 rw-p 01599000 fe:00 9977948                            /tmp/rl3
01f03000-0469b000 rw-p 00000000 00:00 0 
29b77000-29b98000 rw-p 00000000 00:00 0                                  [heap]
d049c000000-d049d400000 ---p 00000000 00:00 0 
`

// TestMappingOf checks the anonymous mapping found for an address: the
// globals' mapping for an address in it, none for one in a file's
// mapping or a named one, and the process's own globals found in its
// real maps.
func TestMappingOf(t *testing.T) {
	for _, c := range []struct {
		addr   uintptr
		lo, hi uintptr
		ok     bool
	}{
		{0x2000000, 0x1f03000, 0x469b000, true},
		{0x1f03000, 0x1f03000, 0x469b000, true},
		{0x469b000, 0, 0, false},  // one past the end
		{0x1a00000, 0, 0, false},  // the executable's data
		{0x29b80000, 0, 0, false}, // [heap] has a name
		{0xd049c000010, 0xd049c000000, 0xd049d400000, true},
	} {
		lo, hi, ok := mappingOf(mapsText, c.addr)
		if lo != c.lo || hi != c.hi || ok != c.ok {
			t.Errorf("%#x: %#x-%#x %v, want %#x-%#x %v", c.addr, lo, hi, ok, c.lo, c.hi, c.ok)
		}
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip(err)
	}
	if _, _, ok := mappingOf(string(maps), uintptr(unsafe.Pointer(&prepared))); !ok {
		t.Errorf("no anonymous mapping holds the globals in\n%s", maps)
	}
}

// FuzzMappingOf checks that mappingOf never panics and that what it
// finds holds the address.
func FuzzMappingOf(f *testing.F) {
	f.Add(mapsText, uint64(0x2000000))
	f.Add("1-0 rw-p 0 0 0\nzz-1 rw-p 0 0 0\n-\n", uint64(0))
	f.Fuzz(func(t *testing.T, maps string, addr uint64) {
		if lo, hi, ok := mappingOf(maps, uintptr(addr)); ok && (uintptr(addr) < lo || uintptr(addr) >= hi) {
			t.Errorf("%#x outside %#x-%#x", addr, lo, hi)
		}
	})
}
