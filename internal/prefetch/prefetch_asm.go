//go:build amd64 || arm64

package prefetch

// Line asks for the cache line holding addr to be loaded into the caches.
func Line(addr uintptr)
