package snapshot

import (
	"fmt"

	"github.com/netphys/netphys/wire"
)

// A snapshot packet payload is the snapshot alone, coded by the codec's
// stage: bit-packed for stages 1–8, range-coded for stage 9. Framing
// (sequence numbers, acks, which baselines were used) belongs to the
// transport and the network model around it.

// rangeCoded reports whether the stage's packets are range-coded.
func (c Codec) rangeCoded() bool { return c.Stage == RangeCoded }

// UsesPrev reports whether the codec reads Reference.Prev (stage 9 does):
// a caller choosing among candidate Prevs by Size need measure only then.
func (c Codec) UsesPrev() bool { return c.Stage == RangeCoded }

// Encode codes snap against ref into buf and returns the packet, a prefix
// of buf. A buffer too small is wire.ErrOverflow.
func (c Codec) Encode(buf []byte, snap *Snapshot, ref Reference) ([]byte, error) {
	if c.rangeCoded() {
		e := wire.NewRangeEncoder(buf)
		if err := c.Serialize(e, snap, ref); err != nil {
			return nil, err
		}
		n, err := e.Finish()
		if err != nil {
			return nil, err
		}
		return buf[:n], nil
	}
	w := wire.NewWriter(buf)
	if err := c.Serialize(w, snap, ref); err != nil {
		return nil, err
	}
	return w.Bytes(), nil
}

// Size returns the length in bytes of the packet Encode would produce,
// without a buffer.
func (c Codec) Size(snap *Snapshot, ref Reference) (int, error) {
	if c.rangeCoded() {
		m := wire.NewRangeMeasurer()
		if err := c.Serialize(m, snap, ref); err != nil {
			return 0, err
		}
		return m.Finish()
	}
	var m wire.Measurer
	if err := c.Serialize(&m, snap, ref); err != nil {
		return 0, err
	}
	return m.Bytes(), nil
}

// Decode decodes a packet against ref into snap, whose Cubes must hold
// the scene's cube count. A truncated packet is an error
// (wire.ErrTruncated for the bit-packed stages); a corrupt one is an
// error or, for stage 9, possibly a valid but wrong snapshot. Data after
// the snapshot is ErrTrailing (wire.ErrInvalid for stage 9).
func (c Codec) Decode(packet []byte, snap *Snapshot, ref Reference) error {
	if c.rangeCoded() {
		d := wire.NewRangeDecoder(packet)
		if err := c.Serialize(d, snap, ref); err != nil {
			return err
		}
		return d.Finish()
	}
	r := wire.NewReader(packet)
	if err := c.Serialize(r, snap, ref); err != nil {
		return err
	}
	if r.BitsLeft() >= 8 {
		return fmt.Errorf("snapshot: %d bytes after the snapshot: %w", r.BitsLeft()/8, ErrTrailing)
	}
	var pad uint64
	if n := r.BitsLeft(); n > 0 {
		var err error
		if pad, err = r.Bits(0, n); err != nil {
			return err
		}
	}
	if pad != 0 {
		return fmt.Errorf("snapshot: non-zero padding: %w", ErrTrailing)
	}
	return nil
}
