// Package server is the game's driver, not simulation code: it reads the
// clock, and the test names only ./step.
package server

import "time"

// Uptime is the time since start.
func Uptime(start time.Time) time.Duration { return time.Since(start) }
