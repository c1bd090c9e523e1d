// Package spin lets a thread that waits for another by checking memory
// say so to the processor: Pause runs its spin-wait hint (PAUSE on
// amd64, YIELD on arm64), which frees the core's resources for the other
// hardware thread sharing it and spares the pipeline a flush when the
// awaited line changes. It has no effect on results; on architectures
// without the hint it does nothing. A waiter that has spun long enough
// sleeps on a word in the kernel (Sleep, Wake: Linux's futex; elsewhere a
// yield), on its own thread.
package spin
