package replay

import (
	"errors"
	"fmt"
	"io"

	"github.com/netphys/netphys/netmodel/internal/replayfile"
	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/wire"
)

// Replay is a replay read into memory.
type Replay[I any] struct {
	Header Header
	// Inputs holds every tick's inputs: player p's input of tick t is
	// Inputs[t*Players+p] (see At).
	Inputs []I
	// Sums are the recorded checksums, of the ticks that are multiples of
	// Header.SumEvery, in order (see Sum).
	Sums []uint32
	// States are the states written into the replay (a desync's), in the
	// order written.
	States []State
	// Size is the file's size in bytes, as read.
	Size int64
}

// Ticks is the number of ticks the replay holds.
func (r *Replay[I]) Ticks() lockstep.Tick {
	return lockstep.Tick(len(r.Inputs) / r.Header.Players)
}

// At returns the inputs of tick t, 0 ≤ t < Ticks(), by player.
func (r *Replay[I]) At(t lockstep.Tick) []I {
	p := r.Header.Players
	return r.Inputs[int(t)*p : int(t+1)*p]
}

// Sum returns the recorded checksum of tick t, if the file holds one.
func (r *Replay[I]) Sum(t lockstep.Tick) (uint32, bool) {
	if t < 0 || t%r.Header.SumEvery != 0 {
		return 0, false
	}
	i := int(t / r.Header.SumEvery)
	if i >= len(r.Sums) {
		return 0, false
	}
	return r.Sums[i], true
}

// Seconds is the match time the replay covers.
func (r *Replay[I]) Seconds() float64 {
	return float64(r.Ticks()) * r.Header.TickDuration.Seconds()
}

// Limits bound what a reader takes from a file; DefaultLimits suit a
// match of two hours.
type Limits struct {
	// MaxTicks is the most ticks read. The inputs take up to
	// MaxTicks·Players·size of I bytes, whatever the file says.
	MaxTicks int
	// MaxStates is the most states read; each takes at most MaxBlock
	// bytes of the file and ~3 times that in memory.
	MaxStates int
}

// DefaultLimits returns two hours at 60 Hz and 8 states.
func DefaultLimits() Limits { return Limits{MaxTicks: 2 * 3600 * 60, MaxStates: 8} }

// Read reads a replay with DefaultLimits.
func Read[I comparable, P lockstep.Input[I]](r io.Reader) (*Replay[I], error) {
	return ReadLimits[I, P](r, DefaultLimits())
}

// ReadLimits reads a replay whose inputs are of type I. On an error it
// returns what it read before it as well: a file cut by a crash gives the
// ticks of its complete chunks. Errors wrap ErrFormat, or the reader's
// own error.
func ReadLimits[I comparable, P lockstep.Input[I]](r io.Reader, lim Limits) (*Replay[I], error) {
	rep := &Replay[I]{}
	br, err := replayfile.Open(r, format, rep.Header.Serialize)
	if err != nil {
		return nil, err
	}
	h := &rep.Header
	if h.Model != "lockstep" {
		return nil, fmt.Errorf("%w: a replay of model %q: only lockstep replays are read here", ErrFormat, h.Model)
	}
	rep.Size = br.Size()
	c := ticks[I, P]{players: h.Players}
	for {
		b, err := br.Next()
		if err == io.EOF {
			return rep, nil
		}
		if err != nil {
			return rep, err
		}
		var kind uint8
		rd := wire.NewReader(b)
		if err := wire.SerializeBits(rd, &kind, 2); err != nil {
			return rep, fmt.Errorf("%w: %w", ErrFormat, err)
		}
		switch kind {
		case kindTicks:
			if err := readTicks(rep, &c, rd, b, maxTickOf(lim.MaxTicks)); err != nil {
				return rep, err
			}
		case kindState:
			if len(rep.States) >= lim.MaxStates {
				return rep, fmt.Errorf("%w: more than %d states", ErrFormat, lim.MaxStates)
			}
			var st State
			if err := st.Serialize(rd); err != nil {
				return rep, fmt.Errorf("%w: state: %w", ErrFormat, err)
			}
			if err := trailing(rd, b); err != nil {
				return rep, err
			}
			rep.States = append(rep.States, st)
		default:
			return rep, fmt.Errorf("%w: a chunk of unknown kind %d", ErrFormat, kind)
		}
		rep.Size = br.Size()
	}
}

func readTicks[I comparable, P lockstep.Input[I]](rep *Replay[I], c *ticks[I, P], rd *wire.Reader, b []byte, maxTick lockstep.Tick) error {
	if err := c.serialize(rd, rep.Header.SumEvery, maxTick); err != nil {
		if errors.Is(err, ErrFormat) {
			return err
		}
		return fmt.Errorf("%w: ticks: %w", ErrFormat, err)
	}
	if err := trailing(rd, b); err != nil {
		return err
	}
	if c.first != rep.Ticks() {
		return fmt.Errorf("%w: a chunk from tick %d after %d ticks", ErrFormat, c.first, rep.Ticks())
	}
	rep.Inputs = append(rep.Inputs, c.inputs...)
	rep.Sums = append(rep.Sums, c.sums...)
	return nil
}

// trailing checks that a block holds nothing after its content but the
// last byte's zero padding.
func trailing(rd *wire.Reader, b []byte) error {
	if err := replayfile.End(rd, b); err != nil {
		return fmt.Errorf("%w: %w", ErrFormat, err)
	}
	return nil
}
