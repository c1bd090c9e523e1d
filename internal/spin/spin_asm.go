//go:build amd64 || arm64

package spin

// Pause runs the spin-wait hint n times.
func Pause(n int)
