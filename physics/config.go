package physics

import (
	"errors"
	"fmt"
	"math"

	"github.com/netphys/netphys/vecmath"
)

// Errors returned by the world. Callers match them with errors.Is; the
// returned errors wrap them with the offending value.
var (
	ErrConfig      = errors.New("physics: invalid config")
	ErrBodyDef     = errors.New("physics: invalid body definition")
	ErrNotFinite   = errors.New("physics: value is NaN or infinite")
	ErrInvalidBody = errors.New("physics: no such body")
	ErrSnapshot    = errors.New("physics: snapshot does not fit this world")
)

// Config sets the fixed parameters of a World. Start from DefaultConfig and
// change what you need; NewWorld rejects values that cannot work.
type Config struct {
	// TimeStep is the duration of one Step, s. Usually 1/60.
	TimeStep float64
	// Gravity is the acceleration applied to dynamic bodies, m/s². Y is up.
	Gravity vecmath.Vec3
	// Substeps divides each step for the solver (soft step, solver.go):
	// gravity, contacts and positions advance Substeps times per step while
	// the broadphase and narrowphase run once. VelocityIterations (passes
	// with position correction) and RelaxIterations (passes without) run in
	// every substep. The number of passes, Substeps·(Velocity+Relax), is the
	// cost knob: 4·(1+1) = 8 is comparable to Bullet's default of 10.
	Substeps           int
	VelocityIterations int
	RelaxIterations    int
	// ContactHertz is the stiffness of the soft contacts, as the frequency
	// of the spring that pushes overlapping bodies apart, Hz;
	// ContactDampingRatio its damping ratio (10: heavily overdamped, no
	// bounce). The frequency is capped at a quarter of the substep rate.
	ContactHertz        float64
	ContactDampingRatio float64
	// MaxDepenetrationVelocity caps the speed at which the solver pushes
	// overlapping bodies apart, m/s. Snapped (quantized) states overlap a
	// little every step; the cap keeps them from exploding apart.
	MaxDepenetrationVelocity float64
	// ContactMargin is the distance at which contact points are created
	// before the shapes touch, m (speculative contacts). The broadphase also
	// widens each body by the distance it can travel in one step.
	ContactMargin float64
	// RestitutionThreshold is the approach speed below which contacts do
	// not bounce, m/s.
	RestitutionThreshold float64
	// SleepFrames is the length of the per-body ring of recent poses used
	// to decide that a body is at rest (16 in the VR sample); 0 disables
	// sleeping, for measurements.
	SleepFrames int
	// SleepLinearTolerance is how far, m, a body may move over SleepFrames
	// steps and still be at rest; SleepAngularTolerance how far it may turn,
	// rad.
	SleepLinearTolerance  float64
	SleepAngularTolerance float64
	// HistoryTicks is how many past ticks of body poses the world keeps for
	// lag-compensated queries (QueryFilter.TicksBehind). 0 keeps none.
	HistoryTicks int
	// CellSize is the edge of a broadphase grid cell, m. About twice the
	// size of a typical body works best; much larger bodies go to a list
	// that is tested against everything.
	CellSize float64
	// Workers selects the step. 0 (the default) is the sequential step.
	// n >= 1 is the parallel step on n goroutines, the caller's included,
	// started and joined inside each Step: the contact solver visits the
	// constraints by graph colour (colour.go) and the narrowphase,
	// integration and the other order-independent stages are split across
	// the workers. Its results are bit-identical for every n >= 1, but not
	// to those of Workers = 0, because the solver visits the constraints in
	// another order: like Substeps, the mode is part of the simulation,
	// and every peer of a lockstep match must use the same (any n >= 1
	// agrees with any other). More workers than cores only adds waiting.
	Workers int
}

// DefaultConfig returns the configuration of the articles' cube world:
// 60 Hz, Earth gravity, 1 m/s depenetration, a 16-frame rest window.
func DefaultConfig() Config {
	return Config{
		TimeStep:                 1.0 / 60,
		Gravity:                  vecmath.V3(0, -9.81, 0),
		Substeps:                 4,
		VelocityIterations:       1,
		RelaxIterations:          1,
		ContactHertz:             60,
		ContactDampingRatio:      10,
		MaxDepenetrationVelocity: 1,
		ContactMargin:            0.02,
		RestitutionThreshold:     1,
		SleepFrames:              16,
		SleepLinearTolerance:     0.01,
		SleepAngularTolerance:    0.02,
		HistoryTicks:             60,
		CellSize:                 2,
	}
}

// maxSleepFrames bounds SleepFrames so that the rest ring stays a small
// fixed cost per body.
const maxSleepFrames = 64

// maxWorkers bounds Config.Workers: far above any core count a step's
// blocks could keep busy.
const maxWorkers = 256

func (c *Config) validate() error {
	pos := func(name string, v float64) error {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s = %v, want > 0", ErrConfig, name, v)
		}
		return nil
	}
	nonNeg := func(name string, v float64) error {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s = %v, want >= 0", ErrConfig, name, v)
		}
		return nil
	}
	for _, err := range []error{
		pos("TimeStep", c.TimeStep),
		pos("MaxDepenetrationVelocity", c.MaxDepenetrationVelocity),
		pos("CellSize", c.CellSize),
		pos("ContactHertz", c.ContactHertz),
		nonNeg("ContactDampingRatio", c.ContactDampingRatio),
		nonNeg("ContactMargin", c.ContactMargin),
		nonNeg("RestitutionThreshold", c.RestitutionThreshold),
		nonNeg("SleepLinearTolerance", c.SleepLinearTolerance),
		nonNeg("SleepAngularTolerance", c.SleepAngularTolerance),
	} {
		if err != nil {
			return err
		}
	}
	switch {
	case !c.Gravity.IsFinite():
		return fmt.Errorf("%w: Gravity %v", ErrConfig, c.Gravity)
	case c.Substeps < 1 || c.VelocityIterations < 1 || c.RelaxIterations < 0:
		return fmt.Errorf("%w: %d substeps of %d + %d iterations, want >= 1 of >= 1 + 0",
			ErrConfig, c.Substeps, c.VelocityIterations, c.RelaxIterations)
	case c.SleepFrames != 0 && (c.SleepFrames < 2 || c.SleepFrames > maxSleepFrames):
		return fmt.Errorf("%w: SleepFrames = %d, want 0 or 2..%d", ErrConfig, c.SleepFrames, maxSleepFrames)
	case c.Workers < 0 || c.Workers > maxWorkers:
		return fmt.Errorf("%w: Workers = %d, want 0..%d", ErrConfig, c.Workers, maxWorkers)
	case c.HistoryTicks < 0:
		return fmt.Errorf("%w: HistoryTicks = %d, want >= 0", ErrConfig, c.HistoryTicks)
	case c.SleepAngularTolerance >= math.Pi:
		return fmt.Errorf("%w: SleepAngularTolerance = %v, want < π", ErrConfig, c.SleepAngularTolerance)
	}
	return nil
}
