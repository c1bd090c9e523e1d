package ingest

import (
	"maps"
	"slices"
	"strings"
)

// maxOrigins bounds the hosts whose lines a parser reads apart.
const maxOrigins = 1024

// originStates holds a parser's reading state for each line origin (a
// pdsh or clush prefix's host, "" for none): the hosts' lines may
// interleave, so a block that runs over many lines is read per origin.
type originStates[S any] struct {
	m     map[string]*S
	fresh func() *S // a new origin's state
}

// newOriginStates returns an empty set of states whose new ones fresh
// makes.
func newOriginStates[S any](fresh func() *S) originStates[S] {
	return originStates[S]{m: map[string]*S{}, fresh: fresh}
}

// get returns origin's state, nil past maxOrigins origins.
func (o originStates[S]) get(origin string) *S {
	if st := o.m[origin]; st != nil {
		return st
	}
	if len(o.m) >= maxOrigins {
		return nil
	}
	st := o.fresh()
	o.m[strings.Clone(origin)] = st
	return st
}

// sorted returns the states in the order of their origins' names.
func (o originStates[S]) sorted() []*S {
	out := make([]*S, 0, len(o.m))
	for _, origin := range slices.Sorted(maps.Keys(o.m)) {
		out = append(out, o.m[origin])
	}
	return out
}
