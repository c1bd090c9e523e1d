// Package prefetch asks the processor to bring a cache line toward its
// caches ahead of use: the simulator's event loop names the memory the
// next events will touch while the current one runs, so that on fabrics
// whose state outgrows the caches the misses overlap instead of queueing.
// It is a hint: it never faults, changes no memory and has no effect on
// results; on architectures without an instruction for it, it does nothing.
package prefetch

import "unsafe"

// Of returns the data word of the interface value at v (an interface
// value is a type word and a data word): for a pointer, the pointer
// itself. It is meant for Line and scheduler hints, never for reading
// the memory.
func Of(v unsafe.Pointer) unsafe.Pointer {
	return (*[2]unsafe.Pointer)(v)[1]
}
