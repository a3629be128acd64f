package predict_test

import (
	"fmt"
	"time"

	"github.com/netphys/netphys/netmodel/predict"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// Drive is the input of the karts game: a throttle in per mille of the
// top speed (backwards when negative) and a steering rate. Nothing in it
// is a move vector, an aim or a trigger: the model's old built-in input
// could not carry it.
type Drive struct {
	Throttle int16 // -1000..1000
	Steer    int8  // -100..100, 1/100 of maxTurn
}

// Serialize codes a Drive in 11 + 8 bits; reading, values out of range
// are errors, so the server drops the packet.
func (d *Drive) Serialize(s wire.Stream) error {
	if err := wire.SerializeInt(s, &d.Throttle, -1000, 1000); err != nil {
		return err
	}
	return wire.SerializeInt(s, &d.Steer, -100, 100)
}

// karts is a game without shots and without joining or leaving: every
// slot has a kart on the track from the start, which stands still while
// nobody drives it. It implements predict.Game[Drive] and nothing else.
// A kart's heading is its body's orientation, so it is on the wire and
// quantized like the rest of its state.
type karts struct {
	bodies []wire.BodyState
}

const (
	kartDT    = 1.0 / 60
	topSpeed  = 8.0 // m/s
	maxTurn   = 3.0 // rad/s
	kartTrack = 60  // m: the track is a square of ±kartTrack
)

func newKarts(players int) *karts {
	k := &karts{bodies: make([]wire.BodyState, players)}
	for p := range k.bodies {
		k.bodies[p] = wire.BodyState{Position: vecmath.V3(float64(4*p), 0, 0), Rotation: vecmath.QuatIdentity, AtRest: true}
	}
	return k
}

func (k *karts) Players() int { return len(k.bodies) }
func (k *karts) Bodies() int  { return len(k.bodies) }
func (k *karts) Spec() wire.StateSpec {
	const pos, vel = 1.0 / 256, 1.0 / 64
	v := wire.Bounds{Min: vecmath.V3(-16, -16, -16), Max: vecmath.V3(16-vel, 16-vel, 16-vel), Res: vel}
	return wire.StateSpec{
		Position:        wire.Bounds{Min: vecmath.V3(-64, -1, -64), Max: vecmath.V3(64-pos, 1-pos, 64-pos), Res: pos},
		OrientationBits: 12, LinearVelocity: v, AngularVelocity: v,
	}
}

func (k *karts) NewState() predict.State { return &[]wire.BodyState{} }
func (k *karts) Save(dst predict.State) {
	d := dst.(*[]wire.BodyState)
	*d = append((*d)[:0], k.bodies...)
}
func (k *karts) Load(src predict.State) error {
	copy(k.bodies, *src.(*[]wire.BodyState))
	return nil
}
func (k *karts) Body(i int) wire.BodyState { return k.bodies[i] }
func (k *karts) SetBody(i int, s wire.BodyState) error {
	k.bodies[i] = s
	return nil
}

// Step turns each kart by its steering and drives it along its heading;
// a kart that reaches the edge of the track comes back on the other side.
func (k *karts) Step(in []Drive) {
	for p, d := range in {
		b := &k.bodies[p]
		q := b.Rotation
		yaw := 2 * vecmath.Atan2(q.Y, q.W)
		// float64(a*b) + c, never a*b + c: a fused multiply-add would
		// round differently on another machine (docs/design.md §2).
		yaw += float64(float64(d.Steer) * (maxTurn * kartDT / 100))
		b.Rotation = vecmath.QuatAxisAngle(vecmath.V3(0, 1, 0), yaw)
		s, c := vecmath.SinCos(yaw)
		speed := float64(d.Throttle) * (topSpeed / 1000)
		b.LinearVelocity = vecmath.V3(float64(s*speed), 0, float64(c*speed))
		b.Position = b.Position.Add(b.LinearVelocity.Scale(kartDT))
		for _, x := range []*float64{&b.Position.X, &b.Position.Z} {
			if *x > kartTrack || *x < -kartTrack {
				*x = -*x
			}
		}
		b.AtRest = d == Drive{}
	}
}

// Example plays the karts over a simulated 80 ms round trip: each client
// predicts its kart from its own Drive inputs and the server confirms
// every prediction.
func Example() {
	cfg := predict.DefaultConfig()
	srv, err := predict.NewServer[Drive](cfg, newKarts(2), simmatch.Epoch)
	if err != nil {
		panic(err)
	}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 1, Conditions: netsim.Conditions{Latency: 40 * time.Millisecond}}}, srv)
	if err != nil {
		panic(err)
	}
	var clients []*predict.Client[Drive, *Drive]
	for p := 0; p < 2; p++ {
		// Kart 0 drives in circles, kart 1 straight on and back.
		drive := func(t predict.Tick, v *predict.View) Drive {
			if p == 0 {
				return Drive{Throttle: 1000, Steer: 40}
			}
			if t/120%2 == 0 {
				return Drive{Throttle: 600}
			}
			return Drive{Throttle: -600}
		}
		c, err := predict.NewClient[Drive](cfg, newKarts(2), drive, simmatch.Epoch)
		if err != nil {
			panic(err)
		}
		if _, err := m.Join(c); err != nil {
			panic(err)
		}
		clients = append(clients, c)
	}
	if err := m.Run(5 * time.Second); err != nil {
		panic(err)
	}
	for p, c := range clients {
		st := c.Stats()
		fmt.Printf("kart %d: %d of %d predictions confirmed\n", p, st.Compared-st.Mispredicted, st.Compared)
	}
	sc := srv.Counters()
	fmt.Printf("shots: %d, bodies out of spec: %d\n", sc.Shots, sc.OutOfSpec)
	// Output:
	// kart 0: 285 of 285 predictions confirmed
	// kart 1: 285 of 285 predictions confirmed
	// shots: 0, bodies out of spec: 0
}
