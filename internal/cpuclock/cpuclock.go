// Package cpuclock reads the CPU time of the calling OS thread, for the
// benchmarks and reports: unlike the wall clock it stops while a busy
// machine runs someone else, so a figure read from it is the code's own.
// The caller locks its goroutine to its thread (runtime.LockOSThread) for
// the span it measures.
package cpuclock

import "time"

var processStart = time.Now()

// Now returns the CPU time the calling OS thread has used where the
// platform has a thread clock (Available), else the wall time since the
// process started: a difference of two readings measures the work between
// them either way, and Name says which clock it was.
func Now() time.Duration {
	if Available {
		if t := thread(); t > 0 {
			return t
		}
	}
	return time.Since(processStart)
}

// Name names the clock Now reads, for the headers of tables.
var Name = map[bool]string{true: "thread CPU time", false: "wall time"}[Available]
