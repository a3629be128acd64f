package physics

import (
	"testing"

	"github.com/netphys/netphys/vecmath"
)

// restScriptTicks is the length of restScript.
const restScriptTicks = 300

// newRestWorld builds three columns of three cubes in an L, 1 cm apart, so
// that side neighbours are speculative contacts and the two outer columns'
// cubes are diagonal neighbours that clip to nothing (apart pairs).
func newRestWorld(t testing.TB) *World {
	t.Helper()
	w := newTestWorld(t, nil, 0.6)
	for _, col := range [][2]float64{{0, 0}, {1.01, 0}, {0, 1.01}} {
		for level := range 3 {
			addCube(t, w, vecmath.V3(col[0], 0.5+float64(level), col[1]))
		}
	}
	return w
}

// restScript drives newRestWorld through every way a contact changes list:
// the network puts every body to rest where it lies (SetState with AtRest:
// active contacts whose pair is gone move to the resting list), an impulse
// wakes a column before the narrowphase, islands fall asleep, a falling
// cube wakes a column through a contact (resting contacts rejoin after
// the narrowphase, rebuilt from their caches), and a destroy and a create
// reuse a slot.
func restScript(t testing.TB, w *World) {
	ids := w.Bodies(nil)
	switch w.Tick() {
	case 5:
		for _, id := range ids[1:] {
			s := mustState(w, id)
			if err := w.SetState(id, BodyState{Position: s.Position, Rotation: s.Rotation, AtRest: true}); err != nil {
				t.Fatal(err)
			}
		}
	case 10:
		if err := w.ApplyImpulse(ids[4], vecmath.V3(0.2, 0, 0)); err != nil {
			t.Fatal(err)
		}
	case 100:
		addCube(t, w, vecmath.V3(0.2, 4.5, 0.1))
	case 200:
		if err := w.DestroyBody(ids[6]); err != nil {
			t.Fatal(err)
		}
	case 205:
		addCube(t, w, vecmath.V3(1.01, 6, 0))
	case 250:
		if err := w.ApplyImpulse(ids[3], vecmath.V3(0, 0, 8)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRestoreAcrossSleepAndWake snapshots restScript's world every ten
// ticks, restores each snapshot into a fresh world and steps it beside
// the original to the end, comparing checksums every step: Restore is
// lossless whichever lists the contacts are in.
func TestRestoreAcrossSleepAndWake(t *testing.T) {
	orig := newRestWorld(t)
	var want []uint64
	snaps := map[Tick]*Snapshot{}
	slept := false
	for range restScriptTicks {
		if orig.Tick()%10 == 0 {
			snaps[orig.Tick()] = new(Snapshot)
			orig.Snapshot(snaps[orig.Tick()])
		}
		restScript(t, orig)
		orig.Step()
		want = append(want, orig.Checksum())
		slept = slept || len(orig.restingContacts) > 0
	}
	if !slept {
		t.Fatal("no contact came to rest: the script tests nothing")
	}
	for tick := Tick(0); tick < restScriptTicks; tick += 10 {
		w, err := NewWorld(orig.Config())
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Restore(snaps[tick]); err != nil {
			t.Fatal(err)
		}
		for w.Tick() < restScriptTicks {
			restScript(t, w)
			w.Step()
			if got := w.Checksum(); got != want[w.Tick()-1] {
				t.Fatalf("restored at tick %d: tick %d checksum %016x, want %016x", tick, w.Tick(), got, want[w.Tick()-1])
			}
		}
	}
}

// TestSnapshotHoldsNoDerivedState checks the contact records' invariants
// that make a Snapshot a plain copy: every contact has points, both lists
// and the apart pairs are sorted by key and disjoint. A list may hold a
// key twice: a pair the broadphase met twice (copies) has two contacts.
func TestSnapshotHoldsNoDerivedState(t *testing.T) {
	w := newRestWorld(t)
	for range restScriptTicks {
		restScript(t, w)
		w.Step()
		keys := map[uint64]string{}
		for name, list := range map[string][]contact{"active": w.contacts, "resting": w.restingContacts} {
			for k := range list {
				c := &list[k]
				if c.count == 0 || int(c.count) > len(c.ids) {
					t.Fatalf("tick %d: %s contact %x has %d points", w.Tick(), name, c.key, c.count)
				}
				if k > 0 && list[k-1].key > c.key {
					t.Fatalf("tick %d: %s list out of order at %d", w.Tick(), name, k)
				}
				if in, ok := keys[c.key]; ok && in != name {
					t.Fatalf("tick %d: pair %x in both lists", w.Tick(), c.key)
				}
				keys[c.key] = name
			}
		}
		for k, p := range w.apart {
			if _, ok := keys[p.key]; ok || (k > 0 && w.apart[k-1].key > p.key) {
				t.Fatalf("tick %d: apart pair %x is a contact too or out of order", w.Tick(), p.key)
			}
		}
	}
}
