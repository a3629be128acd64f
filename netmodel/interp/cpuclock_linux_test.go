package interp_test

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU reads the CPU time of the calling OS thread: the benchmark
// locks itself to one, so a busy machine does not inflate the figures.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
