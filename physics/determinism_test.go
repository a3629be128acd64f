package physics

import (
	"errors"
	"flag"
	"testing"

	"github.com/netphys/netphys/internal/golden"
	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

var update = flag.Bool("update", false, "rewrite testdata/golden_checksums.txt")

const goldenPath = "testdata/golden_checksums.txt"

// scriptTicks is the length of the scripted run.
const scriptTicks = 240

// newScriptedWorld builds the determinism scene: a ground plane, a static
// ramp, a kinematic paddle, 64 cubes in a falling grid with tilts, a ball
// and a capsule.
func newScriptedWorld(t testing.TB) *World {
	t.Helper()
	return newScriptedWorldWith(t, nil)
}

// newScriptedWorldWith is newScriptedWorld with cfg instead of the
// default configuration (nil).
func newScriptedWorldWith(t testing.TB, cfg *Config) *World {
	t.Helper()
	w := newTestWorld(t, cfg, 0.6)
	ramp := DefaultBodyDef()
	ramp.Type = Static
	ramp.Shape = collide.Shape{Kind: collide.Box, HalfExtents: vecmath.V3(3, 0.2, 2)}
	ramp.Position = vecmath.V3(8, 1, 0)
	ramp.Rotation = vecmath.QuatAxisAngle(vecmath.V3(0, 0, 1), 0.3)
	mustCreate(t, w, ramp)
	paddle := DefaultBodyDef()
	paddle.Type = Kinematic
	paddle.Shape = collide.Shape{Kind: collide.Box, HalfExtents: vecmath.V3(0.2, 0.5, 3)}
	paddle.Position = vecmath.V3(-6, 0.5, 0)
	paddle.LinearVelocity = vecmath.V3(1.5, 0, 0)
	paddle.AngularVelocity = vecmath.V3(0, 0.3, 0)
	mustCreate(t, w, paddle)
	for i := range 64 {
		d := DefaultBodyDef()
		d.Mass = 1
		// Products rounded explicitly: test code must not fuse either, or the
		// scene itself would differ across architectures.
		d.Position = vecmath.V3(float64(float64(i%8)*1.1)-4, 1+float64(float64(i/8)*0.6), float64(float64(i%5)*0.3)-0.6)
		d.Rotation = vecmath.QuatAxisAngle(vecmath.V3(0.6, 0, 0.8), float64(float64(i)*0.05))
		mustCreate(t, w, d)
	}
	ball := DefaultBodyDef()
	ball.Shape = collide.Shape{Kind: collide.Sphere, Radius: 0.4}
	ball.Position = vecmath.V3(8, 4, 0.5)
	ball.Restitution = 0.5
	mustCreate(t, w, ball)
	capsule := DefaultBodyDef()
	capsule.Shape = collide.Shape{Kind: collide.Capsule, Radius: 0.3, HalfHeight: 0.6}
	capsule.Position = vecmath.V3(2, 6, 2)
	capsule.Rotation = vecmath.QuatAxisAngle(vecmath.V3(1, 0, 0), 1.2)
	capsule.AngularDamping = 0.1
	mustCreate(t, w, capsule)
	return w
}

func mustCreate(t testing.TB, w *World, d BodyDef) BodyID {
	t.Helper()
	id, err := w.CreateBody(d)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// script applies the scripted inputs of tick n (the world's Tick before
// the step): forces, impulses, torques, state writes, a destroy and a
// create, so that every entry point is part of the checked history.
func script(t testing.TB, w *World) {
	ids := w.Bodies(nil)
	n := int(w.Tick())
	cube := ids[3+n%64]
	switch {
	case n%7 == 0:
		w.ApplyForce(cube, vecmath.V3(3, 20, -2))
	case n%11 == 0:
		w.ApplyForceAtPoint(cube, vecmath.V3(0, 5, 5), mustState(w, cube).Position.Add(vecmath.V3(0.5, 0.5, 0)))
	case n%13 == 0:
		w.ApplyImpulse(cube, vecmath.V3(0, 2, 1))
	case n%17 == 0:
		w.ApplyTorque(cube, vecmath.V3(1, 0, 2))
	}
	switch n {
	case 90:
		s := mustState(w, cube)
		s.LinearVelocity = vecmath.V3(0, 5, 0)
		if err := w.SetState(cube, s); err != nil {
			t.Fatal(err)
		}
	case 120:
		if err := w.DestroyBody(ids[10]); err != nil {
			t.Fatal(err)
		}
	case 150:
		d := DefaultBodyDef()
		d.Position = vecmath.V3(0, 8, 0)
		mustCreate(t, w, d)
	}
}

// runScript steps a scripted world and returns its checksum after each
// step.
func runScript(t testing.TB) []uint64 {
	return runScriptWith(t, nil)
}

// runScriptWith is runScript with cfg (nil: the default).
func runScriptWith(t testing.TB, cfg *Config) []uint64 {
	w := newScriptedWorldWith(t, cfg)
	sums := make([]uint64, 0, scriptTicks)
	for range scriptTicks {
		script(t, w)
		w.Step()
		sums = append(sums, w.Checksum())
	}
	return sums
}

func TestTwoRunsAgree(t *testing.T) {
	a, b := runScript(t), runScript(t)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("step %d: checksums %016x and %016x differ", i+1, a[i], b[i])
		}
	}
}

// TestSnapshotStepTogether restores a snapshot of tick k into a fresh
// world and steps it beside the original, comparing checksums every step
// (Box2D's test_snapshot.c).
func TestSnapshotStepTogether(t *testing.T) {
	for _, k := range []int{1, 45, 130} {
		orig := newScriptedWorld(t)
		for range k {
			script(t, orig)
			orig.Step()
		}
		var snap Snapshot
		orig.Snapshot(&snap)
		copyW, err := NewWorld(orig.Config())
		if err != nil {
			t.Fatal(err)
		}
		if err := copyW.Restore(&snap); err != nil {
			t.Fatal(err)
		}
		if copyW.Checksum() != orig.Checksum() || copyW.Tick() != orig.Tick() {
			t.Fatalf("k=%d: restored world differs before stepping", k)
		}
		for step := k; step < scriptTicks; step++ {
			script(t, orig)
			script(t, copyW)
			orig.Step()
			copyW.Step()
			if a, b := orig.Checksum(), copyW.Checksum(); a != b {
				t.Fatalf("k=%d step %d: checksums %016x and %016x differ", k, step+1, a, b)
			}
		}
	}
}

// TestRestoreRewinds restores an older snapshot into the same world.
func TestRestoreRewinds(t *testing.T) {
	w := newScriptedWorld(t)
	var snap Snapshot
	var want []uint64
	for n := range 100 {
		if n == 40 {
			w.Snapshot(&snap)
		}
		script(t, w)
		w.Step()
		if n >= 40 {
			want = append(want, w.Checksum())
		}
	}
	if err := w.Restore(&snap); err != nil {
		t.Fatal(err)
	}
	replayScript(t, w, want)
}

// TestRestoreRefusesForeignSnapshots restores a zero snapshot and one from
// a world with another Config: both are errors that leave the world as it
// was.
func TestRestoreRefusesForeignSnapshots(t *testing.T) {
	w := newScriptedWorld(t)
	stepN(w, 10)
	before := w.Checksum()
	cfg := DefaultConfig()
	cfg.SleepFrames = 0
	other := newTestWorld(t, &cfg, 0.6)
	addCube(t, other, vecmath.V3(0, 3, 0))
	stepN(other, 5)
	var foreign Snapshot
	other.Snapshot(&foreign)
	for name, snap := range map[string]*Snapshot{"zero": {}, "other config": &foreign} {
		if err := w.Restore(snap); !errors.Is(err, ErrSnapshot) {
			t.Errorf("%s snapshot: %v, want ErrSnapshot", name, err)
		}
		if w.Checksum() != before {
			t.Errorf("%s snapshot changed the world", name)
		}
	}
	w.Step() // still steps
}

// TestGoldenChecksums compares the scripted run with the checksums in
// testdata, recorded on linux/amd64. -update rewrites the file.
func TestGoldenChecksums(t *testing.T) {
	golden.Check(t, goldenPath, runScript(t), *update)
}

// TestGoldenCrossArch runs TestGoldenChecksums in this package's test
// binary built for arm64 (under qemu) and for amd64 with GOAMD64=v3: both
// must produce the sequence recorded by the default amd64 build.
func TestGoldenCrossArch(t *testing.T) {
	golden.CrossArch(t, "TestGoldenChecksums")
}

// TestRestoreOverStaleContacts reuses one Snapshot for an older and then a
// younger tick and restores the younger into a world that stepped on
// further: the snapshot keeps only the manifold points in use, so Restore
// must leave no trace of the contacts the world or the buffers held
// before.
func TestRestoreOverStaleContacts(t *testing.T) {
	w := newScriptedWorld(t)
	var snap Snapshot
	var want []uint64
	for n := range 160 {
		switch n {
		case 140:
			w.Snapshot(&snap) // grows the buffers with the contacts of tick 140
		case 150:
			w.Snapshot(&snap)
		}
		script(t, w)
		w.Step()
		if n >= 150 {
			want = append(want, w.Checksum())
		}
	}
	if err := w.Restore(&snap); err != nil {
		t.Fatal(err)
	}
	replayScript(t, w, want)
}

// replayScript steps w through the script once per checksum in want and
// requires each step's checksum to match: the run after a Restore.
func replayScript(t *testing.T, w *World, want []uint64) {
	t.Helper()
	for i := range want {
		script(t, w)
		w.Step()
		if got := w.Checksum(); got != want[i] {
			t.Fatalf("step %d after restore: %016x, want %016x", i+1, got, want[i])
		}
	}
}
