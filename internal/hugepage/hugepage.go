// Package hugepage asks the operating system to back the memory a large
// run is about to allocate with huge pages.
//
// A packet run's hot state (ports, queues, routes, packets, the event
// queue) is touched at random as frames cross the fabric; once it is
// larger than what the processor's TLB maps with 4 KiB pages (a few
// MiB), most events also pay a page walk. With 2 MiB pages the TLB covers
// gigabytes. A small run gains too: each 4 KiB page costs a fault the
// first time it is touched (about 10 µs on a virtual machine), a 2 MiB
// page one for 512 of them. Linux backs anonymous memory with huge pages
// only where the program asks (madvise) unless the system is set to do
// so always, and Go's heap never asks; Prepare asks for the next part of
// the heap. It changes nothing a run computes, only how fast the memory
// behind it is.
package hugepage

// MinBytes is the least size Prepare acts on: preparing costs a garbage
// collection (cheap while the heap is small, but it scans the program's
// globals), which a run of a few huge pages would not win back.
const MinBytes = 8 << 20

// maxBytes bounds how much address space Prepare reserves: an estimate
// above it only means the rest of the heap keeps small pages.
const maxBytes = 8 << 30
