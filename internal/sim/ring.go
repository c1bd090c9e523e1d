package sim

// A Ring is a FIFO that grows by doubling and never shrinks, so that a
// steady state allocates nothing. The zero value is empty and ready.
type Ring[T any] struct {
	buf     []T
	head, n int
}

// Len returns the number of elements.
func (r *Ring[T]) Len() int { return r.n }

// Push appends v at the back.
func (r *Ring[T]) Push(v T) {
	if r.n == len(r.buf) {
		grown := make([]T, max(8, 2*len(r.buf)))
		for i := 0; i < r.n; i++ {
			grown[i] = *r.At(i)
		}
		r.buf, r.head = grown, 0
	}
	r.buf[(r.head+r.n)%len(r.buf)] = v
	r.n++
}

// At returns the i-th element from the front, 0 ≤ i < Len.
func (r *Ring[T]) At(i int) *T { return &r.buf[(r.head+i)%len(r.buf)] }

// Front returns the first element; the ring must not be empty.
func (r *Ring[T]) Front() *T { return &r.buf[r.head] }

// PopFront removes the first element; the ring must not be empty.
func (r *Ring[T]) PopFront() {
	var zero T
	r.buf[r.head] = zero
	r.head = (r.head + 1) % len(r.buf)
	r.n--
}

// PopBack removes the last element; the ring must not be empty.
func (r *Ring[T]) PopBack() {
	var zero T
	*r.At(r.n - 1) = zero
	r.n--
}
