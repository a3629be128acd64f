package statesync

import (
	"testing"

	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// TestPredictionWalksWithThePhysics throws cubes through an empty world,
// quantizing before every step as the model does, and predicts every state
// from the one k steps earlier.
func TestPredictionWalksWithThePhysics(t *testing.T) {
	cfg := DefaultConfig()
	q, err := newQuantizer(cfg.Spec)
	if err != nil {
		t.Fatal(err)
	}
	pred := newPredictor(q, cfg.Ballistic)
	w, _ := physics.NewWorld(physics.DefaultConfig())
	var ids []physics.BodyID
	for k := range 8 {
		def := physics.DefaultBodyDef()
		def.Position = vecmath.V3(float64(3*k), 50, 0)
		def.LinearVelocity = vecmath.V3(float64(k)-3.3, float64(2*k)+0.7, 1.9-float64(k))
		def.AngularVelocity = vecmath.V3(0.3, float64(k), -1)
		id, _ := w.CreateBody(def)
		ids = append(ids, id)
	}
	var hist [][]qstate
	for range 90 {
		row := make([]qstate, len(ids))
		for k, id := range ids {
			s, err := q.quantize(mustState(w, id))
			if err != nil {
				t.Fatal(err)
			}
			row[k] = s
			if err := w.SetState(id, q.body(s)); err != nil {
				t.Fatal(err)
			}
		}
		hist = append(hist, row)
		w.Step()
	}
	tried, hit := 0, 0
	for n := 1; n < len(hist); n++ {
		for _, back := range []int{1, 6, 30} {
			if back > n {
				continue
			}
			for k := range ids {
				p, ok := pred.predict(hist[n-back][k], back)
				if !ok {
					continue
				}
				tried++
				if p.pos == hist[n][k].pos && p.lin == hist[n][k].lin && p.ang == hist[n-back][k].ang {
					hit++
				} else if tried-hit < 3 {
					t.Logf("miss after %d steps: %v %v, want %v %v", back, p.pos, p.lin, hist[n][k].pos, hist[n][k].lin)
				}
			}
		}
	}
	if tried < 1000 || float64(hit) < 0.99*float64(tried) {
		t.Fatalf("%d of %d predictions hit", hit, tried)
	}
	t.Logf("%d of %d predictions hit", hit, tried)
}

// TestFlightCounters: the codec counts a prediction as in flight when the
// velocities are the baseline's ballistic walk, whether or not the
// position hit, and leaves out states whose velocities a contact changed.
func TestFlightCounters(t *testing.T) {
	cfg := DefaultConfig()
	q, err := newQuantizer(cfg.Spec)
	if err != nil {
		t.Fatal(err)
	}
	c := newCodec(q, cfg.Ballistic, 1)
	base, err := q.quantize(physics.BodyState{Position: vecmath.V3(0, 5, 0), Rotation: vecmath.QuatIdentity,
		LinearVelocity: vecmath.V3(1, 2, 3), AngularVelocity: vecmath.V3(0, 1, 0)})
	if err != nil {
		t.Fatal(err)
	}
	b := &baseline{tick: 10, state: base}
	hit, ok := c.pred.predict(base, 6)
	if !ok {
		t.Fatal("no prediction")
	}
	off := hit
	off.pos[0]++ // the predictor's fault, were it to happen
	bounced := hit
	bounced.lin[1] = base.lin[1] // a contact stopped the fall
	for _, st := range []qstate{hit, off, bounced} {
		cx := newCoding()
		u := update{id: 0, baseline: baseline{state: st}, base: b, age: 1}
		if err := c.serializeUpdate(wire.NewWriter(make([]byte, 256)), &cx, &u, 16, nil); err != nil {
			t.Fatal(err)
		}
	}
	if c.predictable != 3 || c.predicted != 1 || c.flightPredictable != 2 || c.flightPredicted != 1 {
		t.Fatalf("predictable %d predicted %d, in flight %d predicted %d", c.predictable, c.predicted, c.flightPredictable, c.flightPredicted)
	}
}
