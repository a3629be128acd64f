//go:build !linux

package interpreport

import "time"

var wallStart = time.Now()

// threadCPU falls back to the wall clock where no thread CPU clock is
// read.
func threadCPU() time.Duration { return time.Since(wallStart) }

// cpuClock names the clock in the tables.
const cpuClock = "wall time"
