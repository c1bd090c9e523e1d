//go:build !amd64 && !arm64

package spin

// Pause does nothing on this architecture.
func Pause(n int) {}
