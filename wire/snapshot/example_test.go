package snapshot_test

import (
	"fmt"

	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire/snapshot"
)

// A sender codes each snapshot against the newest acknowledged ones; the
// receiver decodes against the same snapshots.
func Example() {
	cubes := func(t float64) *snapshot.Snapshot {
		s := &snapshot.Snapshot{Cubes: make([]snapshot.Cube, 100)}
		for i := range s.Cubes {
			s.Cubes[i] = snapshot.Cube{
				Position: vecmath.V3(float64(i%10)*2, 0.5, float64(i/10)*2),
				Rotation: vecmath.QuatIdentity,
			}
		}
		// Cube 7 rolls along x at 3 m/s, turning about z.
		s.Cubes[7].Position.X += 3 * t
		s.Cubes[7].Rotation = vecmath.QuatAxisAngle(vecmath.V3(0, 0, -1), 6*t)
		s.Cubes[7].Interacting = true
		return s
	}
	for _, st := range []snapshot.Stage{snapshot.NoVelocity, snapshot.SeparateChanges, snapshot.RangeCoded} {
		c := snapshot.Codec{Stage: st, Config: snapshot.DefaultConfig()}
		// Both sides hold the decoded snapshots of ticks 0 and 3 (60 Hz).
		prev, _ := c.Quantize(cubes(0))
		base, _ := c.Quantize(cubes(3.0 / 60))
		ref := snapshot.Reference{Base: &base, Prev: &prev, BaseAge: 6, PrevAge: 3}

		pkt, err := c.Encode(make([]byte, 2048), cubes(9.0/60), ref)
		if err != nil {
			panic(err)
		}
		got := &snapshot.Snapshot{Cubes: make([]snapshot.Cube, 100)}
		if err := c.Decode(pkt, got, ref); err != nil {
			panic(err)
		}
		fmt.Printf("%-18v %4d bytes, cube 7 at x = %.3f\n", st, len(pkt), got.Cubes[7].Position.X)
	}
	// Output:
	// no velocity        1000 bytes, cube 7 at x = 14.449
	// separate changes      8 bytes, cube 7 at x = 14.449
	// range coded           2 bytes, cube 7 at x = 14.449
}
