package replay

import (
	"fmt"
	"math"

	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/wire"
)

// ticks is a chunk of ticks: count ticks from first, inputs[t*players+p]
// player p's input of tick first+t, and the checksums of the ticks that
// are multiples of sumEvery, in order.
type ticks[I comparable, P lockstep.Input[I]] struct {
	first   lockstep.Tick
	players int
	inputs  []I
	sums    []uint32
}

func (c *ticks[I, P]) count() int { return len(c.inputs) / c.players }

// serialize codes the chunk's body (after its kind). When reading, the
// inputs and sums are appended to c's slices reset to zero length.
func (c *ticks[I, P]) serialize(s wire.Stream, sumEvery lockstep.Tick, maxTick lockstep.Tick) error {
	first := int64(c.first)
	if err := wire.SerializeInt(s, &first, 0, math.MaxInt32); err != nil {
		return err
	}
	c.first = lockstep.Tick(first)
	count := 0
	if s.Mode() != wire.Reading {
		count = c.count()
	}
	if err := wire.SerializeInt(s, &count, 1, ChunkTicks); err != nil {
		return err
	}
	if int64(c.first)+int64(count) > int64(maxTick) {
		return fmt.Errorf("%w: ticks up to %d, beyond the limit of %d", ErrFormat, int64(c.first)+int64(count), maxTick)
	}
	if s.Mode() == wire.Reading {
		c.inputs, c.sums = c.inputs[:0], c.sums[:0]
	}
	k := 0
	for t := range count {
		for p := range c.players {
			var in I
			if s.Mode() != wire.Reading {
				in = c.inputs[t*c.players+p]
			}
			same := false
			if t > 0 {
				prev := c.inputs[(t-1)*c.players+p]
				same = in == prev
				if err := wire.SerializeBool(s, &same); err != nil {
					return err
				}
				if same {
					in = prev
				}
			}
			if !same {
				if err := P(&in).Serialize(s); err != nil {
					return fmt.Errorf("%w: input of player %d, tick %d: %w", ErrFormat, p, c.first+lockstep.Tick(t), err)
				}
			}
			if s.Mode() == wire.Reading {
				c.inputs = append(c.inputs, in)
			}
		}
		if (c.first+lockstep.Tick(t))%sumEvery == 0 {
			var sum uint32
			if s.Mode() != wire.Reading {
				sum = c.sums[k]
			}
			if err := wire.SerializeBits(s, &sum, 32); err != nil {
				return err
			}
			if s.Mode() == wire.Reading {
				c.sums = append(c.sums, sum)
			}
			k++
		}
	}
	return nil
}

// maxTickOf is the largest tick a stream may reach.
func maxTickOf(limit int) lockstep.Tick {
	return lockstep.Tick(min(limit, math.MaxInt32))
}
