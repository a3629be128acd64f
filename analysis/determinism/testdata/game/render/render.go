// Package render is not simulation code: the example does not check it.
package render

import "time"

// Since reads the wall clock.
func Since(t time.Time) time.Duration { return time.Since(t) }
