package interpreport

import "github.com/netphys/netphys/internal/cpuclock"

// threadCPU reads the clock the cost figures come from: the thread's CPU
// time (Run locks its goroutine to one), so the encoding cost is the
// server's own on a busy machine.
var threadCPU = cpuclock.Now

// cpuClock names the clock in the tables.
var cpuClock = cpuclock.Name
