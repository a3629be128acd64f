//go:build !linux

package interp_test

import "time"

var wallStart = time.Now()

// threadCPU falls back to the wall clock off Linux.
func threadCPU() time.Duration { return time.Since(wallStart) }
