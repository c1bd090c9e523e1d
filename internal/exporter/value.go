package exporter

import (
	"errors"
	"fmt"
)

// ErrNotAvailable is returned by ParseValue for a counter the device does
// not provide: mlx5 prints "N/A (no PMA)" in counters/ files when the port
// has no performance management agent. Such a counter is skipped, not an
// error.
var ErrNotAvailable = errors.New("not available")

// A ValueError says what is wrong with a sysfs value and where.
type ValueError struct {
	// Offset is the byte offset of the first bad byte.
	Offset int
	// Byte is that byte, or 0 when the value ended too early.
	Byte byte
	Msg  string
}

// Error implements error.
func (e *ValueError) Error() string {
	if e.Byte == 0 {
		return fmt.Sprintf("byte %d: %s", e.Offset, e.Msg)
	}
	return fmt.Sprintf("byte %d (%q): %s", e.Offset, e.Byte, e.Msg)
}

// ParseValue parses the content of one sysfs counter file: an unsigned
// decimal number with optional surrounding white space (the kernel writes
// "%llu\n"). A value starting with "N/A" gives ErrNotAvailable; anything
// else gives a *ValueError naming the offending byte. It does not allocate
// on success.
func ParseValue(b []byte) (uint64, error) {
	i, end := 0, len(b)
	for i < end && isSpace(b[i]) {
		i++
	}
	for end > i && isSpace(b[end-1]) {
		end--
	}
	if i == end {
		return 0, &ValueError{Offset: i, Msg: "empty value, expected a decimal number"}
	}
	if end-i >= 3 && b[i] == 'N' && b[i+1] == '/' && b[i+2] == 'A' {
		return 0, ErrNotAvailable
	}
	var v uint64
	for j := i; j < end; j++ {
		c := b[j]
		if c < '0' || c > '9' {
			return 0, &ValueError{Offset: j, Byte: c, Msg: "expected a decimal digit"}
		}
		d := uint64(c - '0')
		if v > (1<<64-1-d)/10 {
			return 0, &ValueError{Offset: j, Byte: c, Msg: "number does not fit in 64 bits"}
		}
		v = v*10 + d
	}
	return v, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }
