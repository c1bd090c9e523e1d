// Package fields splits the lines of the other simulators' text inputs
// (ns-3's config.txt and topology files, htsim's connection matrices)
// into fields with their columns, so that the converters' errors can say
// file:line:col.
package fields

import "strings"

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
