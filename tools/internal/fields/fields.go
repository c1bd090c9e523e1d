// Package fields splits the lines of the other simulators' text inputs
// (ns-3's config.txt and topology files, htsim's connection matrices)
// into fields with their columns, so that the converters' errors can say
// file:line:col.
package fields

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// space is what separates fields: white space, CR too, for files written
// on Windows.
const space = " \t\r\v\f"

// At splits s at white space and gives each field's 1-based byte column.
func At(s string) (f []string, cols []int) {
	for i := 0; i < len(s); {
		if strings.IndexByte(space, s[i]) >= 0 {
			i++
			continue
		}
		j := i
		for j < len(s) && strings.IndexByte(space, s[j]) < 0 {
			j++
		}
		f, cols = append(f, s[i:j]), append(cols, i+1)
		i = j
	}
	return f, cols
}

// Lines calls fn with the fields and columns of each line of r (numbered
// from 1) that is neither blank nor a comment (a first field starting
// with "#"), up to fn's first error. Lines may be up to 1 MiB long; file
// names r in a read error.
func Lines(file string, r io.Reader, fn func(line int, f []string, cols []int) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		f, cols := At(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if err := fn(line, f, cols); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	return nil
}
