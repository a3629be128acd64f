package main

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// threadClock reads the CPU time of the OS thread the benchmark is locked
// to: unlike the wall clock it stops while a busy machine runs someone
// else, so its worst step is the engine's own.
type threadClock struct{}

func lockThreadClock() threadClock {
	runtime.LockOSThread()
	return threadClock{}
}

func (threadClock) now() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

func (threadClock) unlock() { runtime.UnlockOSThread() }
