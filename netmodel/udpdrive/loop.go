package udpdrive

import (
	"context"
	"time"
)

// DefaultFrame is how often Run steps its sides: the simulation rate of
// every model, 60 Hz.
const DefaultFrame = time.Second / 60

// A Stepper is one side Run drives: a *Server or a *Client.
type Stepper interface {
	Step(now time.Time) error
}

// Run is the drivers' loop: every frame (DefaultFrame if 0) it reads the
// wall clock once and steps each side in order with it, then calls after,
// if not nil, on the same goroutine: the place to read the models (to draw
// them, to print figures) without locks. It returns nil when ctx ends or
// after reports done, and the first error of a Step or of after.
//
// One goroutine and one ticker drive every side given, so that a demo
// running the server and its players in one process steps them in a
// fixed order, as simmatch does in virtual time. A frame that runs late
// makes the ticker drop ticks rather than queue them: the models catch up
// from the time they are given, within their own bounds.
func Run(ctx context.Context, frame time.Duration, after func(now time.Time) (done bool, err error), sides ...Stepper) error {
	if frame <= 0 {
		frame = DefaultFrame
	}
	ticker := time.NewTicker(frame)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
		now := time.Now()
		for _, s := range sides {
			if err := s.Step(now); err != nil {
				return err
			}
		}
		if after != nil {
			if done, err := after(now); done || err != nil {
				return err
			}
		}
	}
}
