package scene

import (
	"testing"

	"github.com/netphys/netphys/wire/snapshot"
)

// TestInterpGame: the game counts the player and the cubes, captures them
// in snapshot order, returns each tick's input and plays its script over
// and over.
func TestInterpGame(t *testing.T) {
	script := Script{{Ticks: 2, Input: Input{Up: true}}, {Ticks: 1, Input: Input{Z: true}}}
	g, err := NewInterpGame(Pyramid10, DefaultConfig(), script)
	if err != nil {
		t.Fatal(err)
	}
	if g.Objects() != len(g.Scene.Cubes)+1 {
		t.Fatalf("%d objects for %d cubes and the player", g.Objects(), len(g.Scene.Cubes))
	}
	var got []uint32
	for range 7 {
		got = append(got, g.Step())
	}
	up, z := uint32(Input{Up: true}.Bits()), uint32(Input{Z: true}.Bits())
	want := []uint32{up, up, z, up, up, z, up}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("inputs %v, want %v", got, want)
		}
	}
	dst := make([]snapshot.Cube, g.Objects())
	g.Capture(dst)
	if p := g.Scene.State(g.Scene.Player); dst[0].Position != p.Position || dst[0].Orientation != p.Rotation {
		t.Errorf("object 0 is %+v, the player %+v", dst[0], p)
	}
	if c := g.Scene.State(g.Scene.Cubes[3]); dst[4].Position != c.Position {
		t.Errorf("object 4 is %+v, cube 3 %+v", dst[4], c)
	}
}
