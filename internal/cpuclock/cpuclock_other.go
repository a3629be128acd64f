//go:build !linux

package cpuclock

import "time"

// Available reports whether Thread reads a real clock here.
const Available = false

func thread() time.Duration { return 0 }
