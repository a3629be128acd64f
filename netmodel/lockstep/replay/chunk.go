package replay

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
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

// writeBlock writes one block: its length as a varint, then b.
func writeBlock(w io.Writer, b []byte) error {
	var n [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(n[:], uint64(len(b)))
	if _, err := w.Write(append(n[:k:k], b...)); err != nil {
		return fmt.Errorf("%w: %w", ErrRecord, err)
	}
	return nil
}

// blockReader reads blocks; buf holds the last one.
type blockReader struct {
	r    *bufio.Reader
	buf  bytes.Buffer
	read int64 // bytes consumed, for the file size
}

// next reads the next block; io.EOF at a clean end of file.
func (b *blockReader) next() ([]byte, error) {
	n, err := binary.ReadUvarint(countingByteReader{b})
	switch {
	case err == io.EOF:
		return nil, io.EOF // a clean end: between blocks
	case err != nil:
		return nil, fmt.Errorf("%w: block length: %w", ErrFormat, err)
	case n == 0 || n > MaxBlock:
		return nil, fmt.Errorf("%w: a block of %d bytes, want 1 to %d", ErrFormat, n, MaxBlock)
	}
	b.buf.Reset()
	// CopyN grows the buffer as bytes arrive: a length claimed by a
	// truncated file costs what the file holds, not what it claims.
	got, err := io.CopyN(&b.buf, b.r, int64(n))
	b.read += got
	if err != nil {
		return nil, fmt.Errorf("%w: a block of %d bytes cut after %d: %w", ErrFormat, n, got, io.ErrUnexpectedEOF)
	}
	return b.buf.Bytes(), nil
}

type countingByteReader struct{ b *blockReader }

func (c countingByteReader) ReadByte() (byte, error) {
	x, err := c.b.r.ReadByte()
	if err == nil {
		c.b.read++
	}
	return x, err
}

// maxTickOf is the largest tick a stream may reach.
func maxTickOf(limit int) lockstep.Tick {
	return lockstep.Tick(min(limit, math.MaxInt32))
}
