//go:build !heapbaseline

package sim

import (
	"math/bits"
	"slices"
)

// spanSorted is how many entries sortSpan leaves to sortEntries alone:
// below it, the counting pass's fixed cost (a table of spanSteps counts)
// exceeds a comparison sort's.
const spanSorted = 40

// spanSteps is how many steps of 2^stepBits ps (256 ps) sortSpan's
// counting pass orders a span's entries into: a span sorted that way
// holds a few dozen, and 64 steps cost more in their passes than they
// saved in sortEntries.
const (
	spanSteps = 32
	stepBits  = spanBits - 5
)

// sortSpan sorts h on (time, slot) when its times share all but their lowest
// digit, as a span's do: a counting pass over the high five bits of that
// digit and a pass of swaps in place (each entry moves once to its step,
// spanSteps) order the entries by step, where a comparison sort takes
// dozens of steps per entry (the sort was an eighth of the instructions
// of a 1024-host run); then each step's few entries are sorted by
// sortEntries. It needs no second array, which cost cache misses. Entries
// whose times differ above the lowest digit, or under spanSorted, are
// sorted by sortEntries alone, or straight by insertion when they are
// insertionMax or fewer, as most spans and steps are.
func sortSpan(h []nowEntry) {
	switch {
	case len(h) <= insertionMax:
		insertionSort(h)
		return
	case len(h) < spanSorted:
		sortEntries(h, 2*bits.Len(uint(len(h))))
		return
	}
	var start [spanSteps + 1]int32 // step d's entries go to h[start[d]:start[d+1]]
	high := h[0].t() >> spanBits
	for i := range h {
		t := h[i].t()
		if t>>spanBits != high {
			sortEntries(h, 2*bits.Len(uint(len(h))))
			return
		}
		start[t>>stepBits%spanSteps+1]++
	}
	for d := 1; d < len(start); d++ {
		start[d] += start[d-1]
	}
	// next[d] is the first place of step d not yet holding one of its
	// entries; an entry found out of place is swapped into its step's
	// next place until the place holds an entry of its own step.
	next := start
	for d := range spanSteps {
		for i := next[d]; i < start[d+1]; i = next[d] {
			for {
				e := h[i].t() >> stepBits % spanSteps
				if e == uint32(d) {
					break
				}
				h[i], h[next[e]] = h[next[e]], h[i]
				next[e]++
			}
			next[d]++
		}
	}
	for d := range spanSteps {
		switch lo, hi := start[d], start[d+1]; {
		case hi-lo > insertionMax:
			sortEntries(h[lo:hi], 2*bits.Len(uint(hi-lo)))
		case hi-lo > 1:
			insertionSort(h[lo:hi])
		}
	}
}

// insertionMax is the most entries sorted by insertion alone: sortEntries'
// quicksort stops there, and sortSpan gives a span or step of so few
// straight to insertionSort. Entries of one word move and compare cheaply
// enough that insertion beats the quicksort's partitions up to two dozen
// (perm128: 12 -> 24 and spanSorted 24 -> 40 took 1018.2 -> 1007.4 M).
const insertionMax = 24

// sortEntries sorts h on (time, slot): a quicksort on the median of three
// down to insertionMax entries, then an insertion sort, with the comparison inline
// (a generic sort calls it through a function value, and on a fabric of
// thousands of ports that call was a seventh of the run). Below depth
// levels of partitioning it falls back to the library's sort, which
// bounds the worst case. The order is total (slots differ), so every sort
// gives the same result.
func sortEntries(h []nowEntry, depth int) {
	for len(h) > insertionMax {
		if depth == 0 {
			slices.Sort(h)
			return
		}
		depth--
		m, l := len(h)/2, len(h)-1
		if h[m] < h[0] {
			h[m], h[0] = h[0], h[m]
		}
		if h[l] < h[m] {
			h[l], h[m] = h[m], h[l]
			if h[m] < h[0] {
				h[m], h[0] = h[0], h[m]
			}
		}
		// Hoare's partition around the median: h[:j+1] holds no entry
		// after it, h[j+1:] none before it, and neither is empty.
		pivot := h[m]
		i, j := -1, len(h)
		for {
			for i++; h[i] < pivot; i++ {
			}
			for j--; pivot < h[j]; j-- {
			}
			if i >= j {
				break
			}
			h[i], h[j] = h[j], h[i]
		}
		// Recurse into the smaller part, loop on the larger.
		if j+1 < len(h)-j-1 {
			sortEntries(h[:j+1], depth)
			h = h[j+1:]
		} else {
			sortEntries(h[j+1:], depth)
			h = h[:j+1]
		}
	}
	insertionSort(h)
}

// insertionSort sorts a few entries on (time, slot): each goes back
// past those after it. A function of its own, so that the entry moving
// back stays in a register.
func insertionSort(h []nowEntry) {
	for i := 1; i < len(h); i++ {
		x := h[i]
		j := i
		for ; j > 0 && h[j-1] > x; j-- {
			h[j] = h[j-1]
		}
		h[j] = x
	}
}
