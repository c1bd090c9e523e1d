// Package sim is the core of the twin: a discrete-event scheduler and named
// random streams. It keeps no package-level state, reads no wall clock and
// uses no global random source.
package sim
