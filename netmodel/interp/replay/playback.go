package replay

import (
	"fmt"
	"sort"

	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/wire/snapshot"
)

// Playback plays a replay tick by tick: it decodes the snapshots as the
// tick shown passes them, draws any tick between two (View), and seeks
// by decoding from the keyframe at or before the target. It checks every
// snapshot it decodes against its recorded checksum (Checked).
type Playback struct {
	rep  *Replay
	recv *interp.Receiver
	next int   // index of the next snapshot to decode
	tick int64 // the tick shown
	view []snapshot.Cube

	checked, agreed int
	first           error // the first snapshot that differs
}

// NewPlayback returns a playback of rep at its first snapshot.
func NewPlayback(rep *Replay) (*Playback, error) {
	if len(rep.Snapshots) == 0 {
		return nil, fmt.Errorf("%w: no snapshot", ErrFormat)
	}
	p := &Playback{rep: rep, view: make([]snapshot.Cube, rep.Header.Objects)}
	return p, p.SeekTick(p.Start())
}

// Start is the tick of the first snapshot.
func (p *Playback) Start() int64 { return p.rep.Start() }

// Tick is the tick shown.
func (p *Playback) Tick() int64 { return p.tick }

// Ticks is the tick of the last snapshot.
func (p *Playback) Ticks() int64 { return p.rep.Ticks() }

// Done reports that the last snapshot is shown.
func (p *Playback) Done() bool { return p.tick >= p.Ticks() }

// Checked returns how many snapshots were decoded and checked, how many
// agreed with their recorded checksum, and the first that did not.
func (p *Playback) Checked() (checked, agreed int, first error) {
	return p.checked, p.agreed, p.first
}

func (p *Playback) tickOf(i int) int64 {
	return int64(p.rep.Snapshots[i].N) * int64(p.rep.Header.Interval)
}

// Step shows the next tick.
func (p *Playback) Step() error {
	if p.Done() {
		return nil
	}
	p.tick++
	return p.decodeTo(p.tick)
}

// SeekTick shows tick (clamped to the recording), decoding from the keyframe
// at or before it.
func (p *Playback) SeekTick(tick int64) error {
	tick = min(max(tick, p.Start()), p.Ticks())
	// The last snapshot at or before tick, then its keyframe.
	i := sort.Search(len(p.rep.Snapshots), func(i int) bool { return p.tickOf(i) > tick }) - 1
	for i > 0 && !p.rep.Snapshots[i].Key {
		i--
	}
	h := &p.rep.Header
	recv, err := interp.NewReceiver(h.SnapshotCodec(), h.Interval, h.Objects, MaxPacket)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrFormat, err)
	}
	p.recv, p.next, p.tick = recv, max(i, 0), tick
	return p.decodeTo(tick)
}

// decodeTo decodes the snapshots up to the first after tick.
func (p *Playback) decodeTo(tick int64) error {
	for p.next < len(p.rep.Snapshots) && (p.next == 0 || p.tickOf(p.next-1) <= tick) {
		s := &p.rep.Snapshots[p.next]
		n, snap, err := p.recv.Decode(s.Packet)
		if err != nil {
			return fmt.Errorf("%w: snapshot %d: %w", ErrFormat, s.N, err)
		}
		if n != s.N {
			return fmt.Errorf("%w: snapshot %d decodes as %d", ErrFormat, s.N, n)
		}
		p.checked++
		if sum := Checksum(snap); sum == s.Sum {
			p.agreed++
		} else if p.first == nil {
			p.first = fmt.Errorf("%w: snapshot %d (tick %d): checksum %#08x, recorded %#08x", ErrChecksum, s.N, p.tickOf(p.next), sum, s.Sum)
		}
		p.next++
	}
	return nil
}

// View returns the objects at the tick shown: between the snapshots
// around it, positions lerped and orientations nlerped (an object the
// server reset between them jumps at its reset's tick). The slice is
// valid until the next call.
func (p *Playback) View() []snapshot.Cube {
	// p.next-1 is the newest decoded: after the tick shown, unless the
	// tick is the last snapshot's.
	b := p.next - 1
	a := b
	if p.tickOf(b) > p.tick && b > 0 {
		a = b - 1
	}
	sa, sb := p.recv.At(p.rep.Snapshots[a].N), p.recv.At(p.rep.Snapshots[b].N)
	ta, tb := p.tickOf(a), p.tickOf(b)
	if sa == nil || sb == nil || tb <= ta || p.tick <= ta {
		src := sb
		if sa != nil && p.tick <= ta {
			src = sa
		}
		if src != nil {
			copy(p.view, src.Cubes)
		}
		return p.view
	}
	u := float64(p.tick-ta) / float64(tb-ta)
	resets := p.recv.Resets(p.rep.Snapshots[b].N)
	for i := range p.view {
		switch {
		case len(resets) != 0 && resets[i] > ta && p.tick >= resets[i]:
			p.view[i] = sb.Cubes[i]
		case len(resets) != 0 && resets[i] > ta:
			p.view[i] = sa.Cubes[i]
		default:
			p.view[i] = interp.Lerp(&sa.Cubes[i], &sb.Cubes[i], u)
		}
	}
	return p.view
}

// Verify decodes every snapshot of rep in order and checks it against
// its recorded checksum; the error names the first that fails.
func Verify(rep *Replay) (checked int, err error) {
	p, err := NewPlayback(rep)
	if err != nil {
		return 0, err
	}
	// Snapshot by snapshot, not tick by tick: a file's numbers may be
	// far apart.
	if err := p.decodeTo(p.Ticks()); err != nil {
		return p.checked, err
	}
	return p.checked, p.first
}
