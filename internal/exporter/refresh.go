package exporter

import (
	"sync"
	"time"
)

// refresher keeps slow-changing state read cleanly (a GID table, DCQCN
// settings) for a while, by key, so that a scrape does not read hundreds
// of files that rarely change. Safe for concurrent use.
type refresher[T any] struct {
	every time.Duration
	mu    sync.Mutex
	m     map[string]refreshed[T]
}

type refreshed[T any] struct {
	at time.Time
	v  T
}

// get returns the state of key: the kept value when it was read less than
// every ago, else what read returns. read says whether it read anything
// (ok) and whether every file read cleanly (clean); only clean values are
// kept.
func (r *refresher[T]) get(key string, read func() (v T, ok, clean bool)) (T, bool) {
	now := time.Now()
	r.mu.Lock()
	c, have := r.m[key]
	r.mu.Unlock()
	if have && now.Sub(c.at) < r.every {
		return c.v, true
	}
	v, ok, clean := read()
	if ok && clean && r.every > 0 {
		r.mu.Lock()
		if r.m == nil {
			r.m = map[string]refreshed[T]{}
		}
		r.m[key] = refreshed[T]{now, v}
		r.mu.Unlock()
	}
	return v, ok
}
