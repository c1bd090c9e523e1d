//go:build amd64 || arm64

package prefetch

// Line asks for the cache line holding addr to be loaded into the caches.
func Line(addr uintptr)

// Object asks, in one call, for the first two cache lines of the object
// at addr and the line holding hint: what an event's handler reads first
// and the other memory it names. Either may be 0.
func Object(addr, hint uintptr)
