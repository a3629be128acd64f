package scene

import (
	"errors"
	"math"
	"testing"

	"github.com/netphys/netphys/netmodel/predict"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

func newTestArena(t *testing.T, players int) *Arena {
	t.Helper()
	cfg := DefaultArenaConfig(60)
	cfg.Players = players
	a, err := NewArena(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for p := 0; p < players; p++ {
		a.Spawn(p)
	}
	return a
}

func TestArenaCharactersWalkJumpAndStayUpright(t *testing.T) {
	a := newTestArena(t, 2)
	start := a.Body(0).Position
	in := make([]ArenaInput, 2)
	in[0], _ = MakeArenaInput(1, 0, 0, 0, false, false)
	for i := 0; i < 60; i++ {
		a.Step(in)
	}
	b := a.Body(0)
	if d := b.Position.X - start.X; d < 4.5 || d > 6.1 {
		t.Fatalf("walked %v m in a second at 6 m/s", d)
	}
	if b.Rotation != vecmath.QuatIdentity {
		t.Fatalf("character tilted: %v", b.Rotation)
	}
	in[0], _ = MakeArenaInput(0, 0, 0, 0, true, false)
	top := 0.0
	for i := 0; i < 60; i++ {
		a.Step(in)
		top = max(top, a.Body(0).Position.Y)
	}
	if top < start.Y+0.8 {
		t.Fatalf("jump peaked at %v, from %v", top, start.Y)
	}
}

func TestArenaIsDeterministic(t *testing.T) {
	run := func() uint64 {
		a := newTestArena(t, 4)
		bots := make([]*Bot, 4)
		for p := range bots {
			bots[p] = NewBot(p, 9, a.Config())
		}
		in := make([]ArenaInput, 4)
		view := predict.View{Present: []bool{true, true, true, true}}
		for tick := predict.Tick(0); tick < 300; tick++ {
			view.Bodies = view.Bodies[:0]
			for i := 0; i < a.Bodies(); i++ {
				view.Bodies = append(view.Bodies, a.Body(i))
			}
			for p, b := range bots {
				view.You, view.Own = p, a.Body(p)
				in[p] = b.Input(tick, &view)
			}
			a.Step(in)
		}
		return a.World.Checksum()
	}
	if x, y := run(), run(); x != y {
		t.Fatalf("checksums %x and %x", x, y)
	}
}

func TestArenaShotHitsTheTargetAndNotThroughWalls(t *testing.T) {
	a := newTestArena(t, 2)
	targets := []wire.BodyState{a.Body(0), a.Body(1)}
	present := []bool{true, true}
	aimAt := func(from, to vecmath.Vec3) ArenaInput {
		d := to.Sub(from.Add(vecmath.V3(0, a.cfg.EyeHeight, 0)))
		in, _ := MakeArenaInput(0, 0, vecmath.Atan2(d.X, d.Z), vecmath.Atan2(d.Y, vecmath.V3(d.X, 0, d.Z).Length()), false, true)
		return in
	}
	in := aimAt(targets[0].Position, targets[1].Position)
	if who, hit := a.Shot(0, in, targets, present); hit != predict.ShotHit || who != 1 {
		t.Fatalf("aimed shot: %v %v", who, hit)
	}
	// Behind a pillar: move the target to the far side of one.
	h := a.cfg.Half
	targets[1].Position = vecmath.V3(h/2+2.5, 1, h/2+2.5)
	a.SetBody(0, wire.BodyState{Position: vecmath.V3(h/2-3, 0.9, h/2-3), Rotation: vecmath.QuatIdentity})
	in = aimAt(a.Body(0).Position, targets[1].Position)
	if _, hit := a.Shot(0, in, targets, present); hit != predict.ShotMissed {
		t.Fatal("shot through a pillar")
	}
	present[1] = false
	targets[1].Position = vecmath.V3(h/2-1, 1, h/2-5)
	in = aimAt(a.Body(0).Position, targets[1].Position)
	if _, hit := a.Shot(0, in, targets, present); hit != predict.ShotMissed {
		t.Fatal("hit an absent player")
	}
}

func TestArenaInputRefusesWhatNoControlProduces(t *testing.T) {
	if _, err := MakeArenaInput(math.NaN(), 0, 0, 0, false, false); !errors.Is(err, ErrArenaInput) {
		t.Fatalf("NaN move: %v", err)
	}
	if _, err := MakeArenaInput(0, 0, 0, math.Inf(1), false, true); !errors.Is(err, ErrArenaInput) {
		t.Fatalf("infinite aim: %v", err)
	}
	for _, c := range [][2]float64{{1, 1}, {-1, -1}, {0.7, -0.72}, {3, 0}} {
		in, err := MakeArenaInput(c[0], c[1], 1, 7, false, false)
		if err != nil || !in.Valid() {
			t.Fatalf("MakeArenaInput(%v): %+v, %v", c, in, err)
		}
	}
	// Bits a forging client can send: they decode to an error.
	for _, forged := range []ArenaInput{
		{MoveX: -128, MoveZ: -128},
		{MoveX: 127, MoveZ: 127},
		{Pitch: math.MaxInt16},
	} {
		w := wire.NewWriter(make([]byte, 16))
		if err := forged.Serialize(w); err != nil {
			t.Fatal(err)
		}
		var got ArenaInput
		if err := got.Serialize(wire.NewReader(w.Bytes())); !errors.Is(err, wire.ErrInvalid) {
			t.Fatalf("%+v decoded: %v", forged, err)
		}
	}
	// A valid input round-trips, the claim only with the shot.
	in := ArenaInput{MoveX: -90, MoveZ: 89, Yaw: 40000, Pitch: -ArenaPitchMax, Jump: true, Shoot: true, Behind: 17}
	w := wire.NewWriter(make([]byte, 16))
	if err := in.Serialize(w); err != nil {
		t.Fatal(err)
	}
	var got ArenaInput
	if err := got.Serialize(wire.NewReader(w.Bytes())); err != nil || got != in {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
}

// FuzzArenaInput: whatever the bytes, decoding never panics, and what
// decodes is an input a client can send, which codes back to the bits it
// came from.
func FuzzArenaInput(f *testing.F) {
	for _, in := range []ArenaInput{{}, {MoveX: 127}, {MoveX: -90, MoveZ: 89, Yaw: 3, Pitch: -5, Jump: true, Shoot: true, Behind: 200}} {
		w := wire.NewWriter(make([]byte, 16))
		if err := in.Serialize(w); err != nil {
			f.Fatal(err)
		}
		f.Add(append([]byte(nil), w.Bytes()...))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var in ArenaInput
		r := wire.NewReader(b)
		if err := in.Serialize(r); err != nil {
			return
		}
		if !in.Valid() {
			t.Fatalf("decoded %+v", in)
		}
		var m wire.Measurer
		if err := in.Serialize(&m); err != nil || m.BitCount() != len(b)*8-r.BitsLeft() {
			t.Fatalf("%+v measures %d bits, read %d: %v", in, m.BitCount(), len(b)*8-r.BitsLeft(), err)
		}
	})
}
