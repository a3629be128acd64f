package statesync

import (
	"testing"

	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/vecmath"
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
