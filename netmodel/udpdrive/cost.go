package udpdrive

import "time"

// Cost is the wall time a side's Steps took: the model's Join, Leave,
// Receive and Update calls and the sends they made. It is the model's CPU
// cost per frame as far as the wall clock can tell (a loaded machine
// inflates it), one of the figures every model reports.
type Cost struct {
	Steps uint64
	Total time.Duration
	Max   time.Duration // the longest Step
}

// Mean is the mean time of a Step.
func (c Cost) Mean() time.Duration {
	if c.Steps == 0 {
		return 0
	}
	return c.Total / time.Duration(c.Steps)
}

// Sub returns the cost since an earlier reading u; Max stays the
// all-time maximum.
func (c Cost) Sub(u Cost) Cost {
	return Cost{Steps: c.Steps - u.Steps, Total: c.Total - u.Total, Max: c.Max}
}

// add notes one Step that began at start.
func (c *Cost) add(start time.Time) {
	d := time.Since(start)
	c.Steps++
	c.Total += d
	c.Max = max(c.Max, d)
}
