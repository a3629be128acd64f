package statesync

// Ballistic prediction in fixed point. The delta coder predicts a moving
// object's state from its baseline as free flight under gravity, and one
// bit says "perfect prediction". Unlike the VR sample, whose predictor was
// dead code (its condition was inverted), this one runs, and its hit rate
// is reported (Counters.Predicted / Counters.Predictable).
//
// Every machine quantizes each object before each step (quantize on both
// sides), so free flight is a walk on the quantization grid, and the walk
// is what is predicted, step by step, in integers:
//
//	V' = V + round(g·dt / rv)                            (Y only)
//	P' = P + round(V·rv·dt/rp + g·dt²·(S+1)/(2S)/rp)     (gravity term on Y)
//
// with P and V the position and velocity indices (V counted from the index
// of zero), rp and rv their resolutions and S the physics substeps: S
// substeps of semi-implicit Euler move a body by dt·v + g·dt²·(S+1)/(2S).
// The two constants are fixed point with 32 fractional bits, computed once
// from the config, so sender and receiver predict the same bits on every
// architecture. A miss happens when the float step rounds a value within
// about 2⁻³² of a half-step the other way, or when the object touched
// something; the rotation is coded apart (smallest three does not walk
// predictably) and the angular velocity of free flight is constant.

const fixedOne = int64(1) << 32

// predictor holds the fixed-point constants of one config.
type predictor struct {
	zeroLin [3]int64
	maxPos  [3]int64
	maxLin  [3]int64
	a       int64 // rv·dt/rp
	b       int64 // g·dt²·(S+1)/(2S)/rp
	dv      int64 // round(g·dt/rv), in velocity steps
	ok      bool  // the constants fit in fixed point
}

// maxPredictTicks bounds the work of one prediction: a baseline older than
// this is coded without one.
const maxPredictTicks = 255

func newPredictor(q quantizer, b Ballistic) predictor {
	rp, rv := q.spec.Position.Res, q.spec.LinearVelocity.Res
	dt := b.TimeStep
	s := float64(b.Substeps)
	a := float64(float64(rv*dt) / rp)
	bt := float64(float64(float64(b.Gravity*dt)*dt)*(s+1)) / float64(float64(2*s)*rp)
	dv := float64(b.Gravity*dt) / rv
	p := predictor{zeroLin: q.zeroLin, maxPos: steps(q.spec.Position), maxLin: steps(q.spec.LinearVelocity)}
	const limit = 1 << 20
	if a > -limit && a < limit && bt > -limit && bt < limit && dv > -limit && dv < limit {
		p.ok = true
		p.a = int64(float64(a * float64(fixedOne)))
		p.b = int64(float64(bt * float64(fixedOne)))
		p.dv = roundFixed(int64(float64(dv * float64(fixedOne))))
	}
	return p
}

// roundFixed rounds a 32.32 fixed-point value to the nearest integer,
// halves up.
func roundFixed(x int64) int64 { return (x + fixedOne/2) >> 32 }

// predict returns where base will be after ticks steps of free flight. ok
// is false when base rests, ticks is out of range or the flight leaves the
// quantization bounds.
func (p *predictor) predict(base qstate, ticks int) (qstate, bool) {
	if !p.ok || base.rest || ticks < 1 || ticks > maxPredictTicks {
		return qstate{}, false
	}
	s := base
	for range ticks {
		for i := range 3 {
			term := (s.lin[i] - p.zeroLin[i]) * p.a
			if i == 1 {
				term += p.b
			}
			s.pos[i] += roundFixed(term)
			if s.pos[i] < 0 || s.pos[i] > p.maxPos[i] {
				return qstate{}, false
			}
		}
		s.lin[1] += p.dv
		if s.lin[1] < 0 || s.lin[1] > p.maxLin[1] {
			return qstate{}, false
		}
	}
	return s, true
}
