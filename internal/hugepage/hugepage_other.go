//go:build !linux

package hugepage

// Mode returns "": only Linux has transparent huge pages.
func Mode() string { return "" }

// Prepare does nothing outside Linux.
func Prepare(n int64) bool { return false }
