//go:build !amd64 && !arm64

package prefetch

// Line does nothing on this architecture.
func Line(addr uintptr) {}

// Object does nothing on this architecture.
func Object(addr, hint uintptr) {}
