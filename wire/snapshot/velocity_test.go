package snapshot

import (
	"bytes"
	"slices"
	"testing"
)

// withVelocities returns a copy of snap whose cubes move at the velocity
// they would need to reach next's positions in ticks ticks at 60 Hz.
func withVelocities(snap, next *Snapshot, ticks int) *Snapshot {
	out := &Snapshot{Cubes: append([]Cube(nil), snap.Cubes...)}
	for i := range out.Cubes {
		out.Cubes[i].LinearVelocity = next.Cubes[i].Position.Sub(snap.Cubes[i].Position).Scale(60 / float64(ticks))
	}
	return out
}

// TestVelocityRoundTrip: with Config.Velocity set, stage 9 decodes
// exactly the quantized velocities, keyframes included, no prefix of a
// packet decodes to it, and the velocities cost bytes only for cubes that
// changed.
func TestVelocityRoundTrip(t *testing.T) {
	seq := synthSequence(12, 40, 5)
	cfg := DefaultConfig()
	cfg.Velocity = VelocityBounds(32, 1.0/32)
	c := Codec{Stage: RangeCoded, Config: cfg}
	plain := Codec{Stage: RangeCoded, Config: DefaultConfig()}
	prev, _ := c.Quantize(withVelocities(seq[30], seq[31], 1))
	base, _ := c.Quantize(withVelocities(seq[33], seq[34], 1))
	snap := withVelocities(seq[38], seq[39], 1)
	for _, ref := range []Reference{{Base: &base, Prev: &prev, BaseAge: 5, PrevAge: 3}, {Base: &base, BaseAge: 5}, {}} {
		pkt, err := c.Encode(make([]byte, 4096), snap, ref)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := c.Quantize(snap)
		got := &Snapshot{Cubes: make([]Cube, len(snap.Cubes))}
		if err := c.Decode(pkt, got, ref); err != nil {
			t.Fatal(err)
		}
		for i := range want.Cubes {
			if got.Cubes[i] != want.Cubes[i] {
				t.Fatalf("cube %d: decoded %+v, want %+v", i, got.Cubes[i], want.Cubes[i])
			}
			if d := got.Cubes[i].LinearVelocity.Sub(snap.Cubes[i].LinearVelocity).Length(); d > 1.0/32 {
				t.Fatalf("cube %d: velocity off by %.3f m/s", i, d)
			}
		}
		again, _ := c.Encode(make([]byte, 4096), got, ref)
		if !bytes.Equal(again, pkt) {
			t.Fatal("decoded snapshot re-encodes to another packet")
		}
		for n := range len(pkt) {
			short := &Snapshot{Cubes: make([]Cube, len(snap.Cubes))}
			if err := c.Decode(pkt[:n], short, ref); err == nil && slices.Equal(short.Cubes, want.Cubes) {
				t.Fatalf("%d of %d bytes decode to the whole snapshot", n, len(pkt))
			}
		}
		pref := ref
		if pref.Base != nil {
			pb, _ := plain.Quantize(pref.Base)
			pref.Base = &pb
			if pref.Prev != nil {
				pp, _ := plain.Quantize(pref.Prev)
				pref.Prev = &pp
			}
		}
		without, err := plain.Size(snap, pref)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("base %v: %d bytes with velocities, %d without", ref.Base != nil, len(pkt), without)
		if len(pkt) <= without {
			t.Errorf("velocities cost nothing: %d bytes, %d without", len(pkt), without)
		}
	}
	// The other stages ignore the velocity bounds.
	for _, st := range []Stage{NoVelocity, SeparateChanges} {
		a := Codec{Stage: st, Config: cfg}
		b := Codec{Stage: st, Config: DefaultConfig()}
		pa, _ := a.Encode(make([]byte, 4096), snap, Reference{})
		pb, _ := b.Encode(make([]byte, 4096), snap, Reference{})
		if !bytes.Equal(pa, pb) {
			t.Errorf("%v codes velocities", st)
		}
	}
}

// FuzzDecodeVelocity decodes arbitrary bytes as a stage-9 packet with
// velocities: an error, or a snapshot whose encoding is the packet itself.
func FuzzDecodeVelocity(f *testing.F) {
	seq := synthSequence(12, 40, 5)
	cfg := DefaultConfig()
	cfg.Velocity = VelocityBounds(32, 1.0/32)
	c := Codec{Stage: RangeCoded, Config: cfg}
	prev, _ := c.Quantize(withVelocities(seq[30], seq[31], 1))
	base, _ := c.Quantize(withVelocities(seq[33], seq[34], 1))
	ref := Reference{Base: &base, Prev: &prev, BaseAge: 5, PrevAge: 3}
	for _, r := range []Reference{ref, {}} {
		pkt, err := c.Encode(make([]byte, 4096), withVelocities(seq[38], seq[39], 1), r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(r.Base != nil, bytes.Clone(pkt))
	}
	f.Fuzz(func(t *testing.T, withBase bool, pkt []byte) {
		r := ref
		if !withBase {
			r = Reference{}
		}
		got := &Snapshot{Cubes: make([]Cube, 12)}
		if err := c.Decode(pkt, got, r); err != nil {
			return
		}
		again, err := c.Encode(make([]byte, 4096), got, r)
		if err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		if !bytes.Equal(again, pkt) {
			t.Fatalf("re-encoding differs from the packet:\n% x\n% x", again, pkt)
		}
	})
}
