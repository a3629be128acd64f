package interp_test

import (
	"testing"

	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/wire/snapshot"
)

// TestSequenceWrapsAround codes snapshots numbered across 2¹⁶ with two
// acked baselines each: the receiver restores every number and decodes
// against the right baselines through the wrap.
func TestSequenceWrapsAround(t *testing.T) {
	cfg := interp.DefaultConfig()
	enc, err := interp.NewEncoder(cfg.Codec, 2, 4096)
	if err != nil {
		t.Fatal(err)
	}
	r, err := interp.NewReceiver(cfg.Codec, 2, orbitObjects, 4096)
	if err != nil {
		t.Fatal(err)
	}
	g := orbits{n: orbitObjects}
	snap := snapshot.Snapshot{Cubes: make([]snapshot.Cube, orbitObjects)}
	var b interp.Baselines
	buf := make([]byte, 4096)
	start := interp.Number(3*65536 - 40)
	for k := range interp.Number(120) {
		n := start + k
		g.Step()
		g.Step()
		g.Capture(snap.Cubes)
		if err := enc.Begin(n, &snap); err != nil {
			t.Fatal(err)
		}
		pkt, err := enc.Encode(&b, buf)
		if err != nil {
			t.Fatal(err)
		}
		got, dec, err := r.Decode(pkt)
		if err != nil {
			t.Fatalf("snapshot %d: %v", n, err)
		}
		// The receiver counts from the first sequence it saw.
		if want := n - start + interp.Number(interp.Seq(start)); got != want {
			t.Fatalf("snapshot %d restored as %d, want %d", n, got, want)
		}
		sent := enc.Sent(n)
		for i := range sent.Cubes {
			if sent.Cubes[i] != dec.Cubes[i] {
				t.Fatalf("snapshot %d cube %d: decoded %+v, sent %+v", n, i, dec.Cubes[i], sent.Cubes[i])
			}
		}
		seq := reliable.Sequence(k)
		b.Sent(seq, n)
		if k%3 != 1 {
			b.Acked(seq) // one in three never acknowledged
		}
	}
}
