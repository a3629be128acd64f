package physics

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

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
	w := newTestWorld(t, nil, 0.6)
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
		w.ApplyForceAtPoint(cube, vecmath.V3(0, 5, 5), w.State(cube).Position.Add(vecmath.V3(0.5, 0.5, 0)))
	case n%13 == 0:
		w.ApplyImpulse(cube, vecmath.V3(0, 2, 1))
	case n%17 == 0:
		w.ApplyTorque(cube, vecmath.V3(1, 0, 2))
	}
	switch n {
	case 90:
		s := w.State(cube)
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
	w := newScriptedWorld(t)
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
		copyW.Restore(&snap)
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
	w.Restore(&snap)
	for i := range want {
		script(t, w)
		w.Step()
		if got := w.Checksum(); got != want[i] {
			t.Fatalf("step %d after restore: %016x, want %016x", i+1, got, want[i])
		}
	}
}

// TestGoldenChecksums compares the scripted run with the checksums in
// testdata, recorded on linux/amd64. -update rewrites the file.
func TestGoldenChecksums(t *testing.T) {
	sums := runScript(t)
	if *update {
		var b strings.Builder
		b.WriteString("# physics scripted-run checksums, one per step: tick checksum\n")
		for i, s := range sums {
			fmt.Fprintf(&b, "%d %016x\n", i+1, s)
		}
		if err := os.WriteFile(goldenPath, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(goldenPath)
	if err != nil {
		t.Fatalf("%v (run go test -run TestGoldenChecksums -update)", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	i := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		var tick int
		var want uint64
		if _, err := fmt.Sscanf(line, "%d %x", &tick, &want); err != nil || tick != i+1 {
			t.Fatalf("%s: bad line %q", goldenPath, line)
		}
		if i >= len(sums) || sums[i] != want {
			t.Fatalf("%s/%s: tick %d checksum %016x, golden %016x", runtime.GOARCH, os.Getenv("GOAMD64"), tick, sums[min(i, len(sums)-1)], want)
		}
		i++
	}
	if i != len(sums) {
		t.Fatalf("%s holds %d ticks, the run has %d", goldenPath, i, len(sums))
	}
	t.Logf("%d ticks match the golden checksums, last %016x", i, sums[i-1])
}

// TestGoldenCrossArch builds this test binary for arm64 (run under
// qemu-aarch64-static) and for amd64 with GOAMD64=v3 (FMA available to
// the compiler), and runs TestGoldenChecksums in each: all must produce
// the golden sequence recorded by the default amd64 build.
func TestGoldenCrossArch(t *testing.T) {
	dir := t.TempDir()
	for _, target := range []struct {
		name, goarch, goamd64, qemu string
	}{
		{"arm64", "arm64", "", "qemu-aarch64-static"},
		{"amd64-v3", "amd64", "v3", "qemu-x86_64-static"},
	} {
		bin := filepath.Join(dir, "physics."+target.name+".test")
		build := exec.Command("go", "test", "-c", "-o", bin, ".")
		build.Env = append(os.Environ(), "GOARCH="+target.goarch, "CGO_ENABLED=0")
		if target.goamd64 != "" {
			build.Env = append(build.Env, "GOAMD64="+target.goamd64)
		}
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("%s: go test -c: %v\n%s", target.name, err, out)
		}
		args := []string{"-test.run", "^TestGoldenChecksums$", "-test.count", "1", "-test.v"}
		var run *exec.Cmd
		if target.goarch == runtime.GOARCH {
			run = exec.Command(bin, args...)
		} else {
			qemu, err := exec.LookPath(target.qemu)
			if err != nil {
				t.Fatalf("%s: %s not found: install qemu-user-static (apt-get install -y qemu-user-static)", target.name, target.qemu)
			}
			run = exec.Command(qemu, append([]string{bin}, args...)...)
		}
		out, err := run.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestGoldenChecksums") {
			t.Fatalf("%s: golden run failed: %v\n%s", target.name, err, out)
		}
		t.Logf("%s: %s", target.name, lastLine(string(out), "ticks match"))
	}
}

func lastLine(out, containing string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, containing) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}
