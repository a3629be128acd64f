package interpreport

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU reads the CPU time of the calling OS thread (Run locks its
// goroutine to one): unlike the wall clock it stops while a busy machine
// runs someone else, so the encoding cost is the server's own.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// cpuClock names the clock in the tables.
const cpuClock = "thread CPU time"
