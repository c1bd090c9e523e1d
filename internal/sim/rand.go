package sim

import "math/rand/v2"

// Streams splits one scenario seed into named, independent random streams,
// so that adding a consumer never perturbs the sequence another one sees.
//
// The stream called name starts from a PCG generator (math/rand/v2) whose two
// 64-bit seed words are the first two outputs of a SplitMix64 generator whose
// state is mix(seed) XOR fnv1a64(name), where mix is the SplitMix64
// finaliser. FNV-1a spreads the name over 64 bits; the finaliser then
// scrambles seed and name together, so names that differ in one byte and
// seeds that differ in one bit give unrelated streams.
type Streams struct {
	seed uint64
}

// NewStreams returns the streams of the root seed.
func NewStreams(seed uint64) *Streams { return &Streams{seed: seed} }

// Seed returns the root seed.
func (s *Streams) Seed() uint64 { return s.seed }

// Stream returns a new generator for name. The same (seed, name) always gives
// the same sequence, whatever other streams were made before. Each call
// starts the sequence afresh, so two consumers must not share a name: use a
// name per consumer, such as "ecmp/leaf3".
func (s *Streams) Stream(name string) *Rand {
	src := s.PCG(name)
	return &Rand{r: rand.New(&src)}
}

// PCG returns the generator of the stream called name as a value, for a
// hot path that keeps it inline: its outputs are those of Stream(name).
func (s *Streams) PCG(name string) rand.PCG {
	x := mix64(s.seed) ^ fnv1a64(name)
	x += golden
	a := mix64(x)
	x += golden
	b := mix64(x)
	return *rand.NewPCG(a, b)
}

// golden is the SplitMix64 increment, 2^64 divided by the golden ratio.
const golden = 0x9e3779b97f4a7c15

// mix64 is the SplitMix64 output function (Stafford's variant 13).
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// fnv1a64 is the 64-bit FNV-1a hash of s.
func fnv1a64(s string) uint64 {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 0x100000001b3
	}
	return h
}

// Rand is one deterministic random stream. It is not safe for concurrent
// use.
type Rand struct {
	r *rand.Rand
}

// Uint64 returns a uniform 64-bit value.
func (r *Rand) Uint64() uint64 { return r.r.Uint64() }

// Float64 returns a uniform value in [0, 1).
func (r *Rand) Float64() float64 { return r.r.Float64() }

// IntN returns a uniform value in [0, n). Like math/rand/v2 it panics if
// n <= 0, which is a programming error.
func (r *Rand) IntN(n int) int { return r.r.IntN(n) }

// ExpFloat64 returns an exponentially distributed value with rate 1 (mean 1).
func (r *Rand) ExpFloat64() float64 { return r.r.ExpFloat64() }
