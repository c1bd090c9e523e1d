//go:build !linux

package scenario

// lineTrip returns 0: the threads cannot be pinned here (see the Linux
// version).
func lineTrip() float64 { return 0 }
