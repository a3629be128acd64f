package predict

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// randomInput returns an input a client can send.
func randomInput(r *rand.Rand) tinyInput {
	for {
		in := tinyInput{
			MoveX: int8(r.IntN(256) - 128), MoveZ: int8(r.IntN(256) - 128),
			Yaw: uint16(r.Uint32()), Pitch: int16(r.IntN(2*PitchMax+1) - PitchMax),
			Jump: r.IntN(2) == 0, Shoot: r.IntN(3) == 0,
		}
		if in.Shoot {
			in.Behind = uint8(r.Uint32())
		}
		if in.valid() {
			return in
		}
	}
}

func randomInputPacket(r *rand.Rand) *inputPacket[tinyInput, *tinyInput] {
	p := &inputPacket[tinyInput, *tinyInput]{epoch: uint8(r.IntN(epochs)), first: Tick(r.Uint32()), count: r.IntN(MaxInputs + 1)}
	p.since = r.IntN(p.count + 1)
	for i := 0; i < p.count; i++ {
		if i > 0 && r.IntN(2) == 0 {
			p.inputs[i] = p.inputs[i-1] // held controls
			continue
		}
		p.inputs[i] = randomInput(r)
	}
	return p
}

func encodeInputPacket(t testing.TB, p *inputPacket[tinyInput, *tinyInput]) []byte {
	t.Helper()
	w := wire.NewWriter(make([]byte, 2048))
	if err := p.Serialize(w); err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), w.Bytes()...)
}

func decodeInputPacket(b []byte) (*inputPacket[tinyInput, *tinyInput], error) {
	p := &inputPacket[tinyInput, *tinyInput]{}
	r := wire.NewReader(b)
	if err := p.Serialize(r); err != nil {
		return nil, err
	}
	return p, finish(r)
}

func TestInputPacketRoundTripsAndMeasures(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		p := randomInputPacket(r)
		b := encodeInputPacket(t, p)
		var m wire.Measurer
		if err := p.Serialize(&m); err != nil || m.Bytes() != len(b) {
			t.Fatalf("measured %d bytes, wrote %d (%v)", m.Bytes(), len(b), err)
		}
		got, err := decodeInputPacket(b)
		if err != nil || !reflect.DeepEqual(got, p) {
			t.Fatalf("round trip: %v\n got %+v\nwant %+v", err, got, p)
		}
		for n := 0; n < len(b); n++ {
			if _, err := decodeInputPacket(b[:n]); err == nil {
				t.Fatalf("packet cut to %d of %d bytes decoded", n, len(b))
			}
		}
	}
}

func TestHeldControlsCostOneBitPerRedundantCopy(t *testing.T) {
	p := &inputPacket[tinyInput, *tinyInput]{count: MaxInputs}
	for i := range p.inputs {
		p.inputs[i] = tinyInput{MoveX: 90, MoveZ: -90, Yaw: 1234, Jump: true}
	}
	var m wire.Measurer
	if err := p.Serialize(&m); err != nil {
		t.Fatal(err)
	}
	if want := 4 + 32 + 7 + 7 + (1 + 50) + (MaxInputs - 1); m.BitCount() != want {
		t.Fatalf("%d bits, want %d", m.BitCount(), want)
	}
}

func FuzzInputPacket(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 8; i++ {
		f.Add(encodeInputPacket(f, randomInputPacket(r)))
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := decodeInputPacket(b)
		if err != nil {
			return
		}
		if p.count > MaxInputs || p.since > p.count {
			t.Fatalf("decoded %d inputs from %d", p.count, p.since)
		}
		// Re-encoding may pick the one-bit repeat where the input spelt a
		// copy out, but must decode to the same packet, no longer.
		again := encodeInputPacket(t, p)
		q, err := decodeInputPacket(again)
		if err != nil || !reflect.DeepEqual(p, q) || len(again) > len(b) {
			t.Fatalf("re-encoding: %v, %d bytes from %d", err, len(again), len(b))
		}
		for i := 0; i < p.count; i++ {
			if !p.inputs[i].valid() {
				t.Fatalf("decoded input %d: %+v, which no client sends", i, p.inputs[i])
			}
		}
	})
}

// fixedBase is the baseline of the state-packet tests: one state, the
// same for every tick.
type fixedBase struct {
	bodies  []wire.BodyState
	present []bool
}

func (b *fixedBase) lookup(Tick) ([]wire.BodyState, []bool, bool) { return b.bodies, b.present, true }

func newFixedBase(r *rand.Rand, g *tinyGame) *fixedBase {
	p := randomStatePacket(r, g, nil)
	b := &fixedBase{bodies: p.bodies, present: make([]bool, len(p.players))}
	for i, pl := range p.players {
		b.present[i] = pl.present
	}
	return b
}

// randomStatePacket returns a packet of random states, coded against base
// half of the time (when there is one) with half its bodies unchanged.
func randomStatePacket(r *rand.Rand, g *tinyGame, base *fixedBase) *statePacket[tinyInput, *tinyInput] {
	spec := g.Spec()
	p := newStatePacket[tinyInput, *tinyInput](g.Players(), g.Bodies(), g, true)
	p.tick, p.you, p.epoch = Tick(r.Uint32()), r.IntN(g.Players()), uint8(r.IntN(epochs))
	p.lead = int32(r.IntN(2*leadLimit*leadScale) - leadLimit*leadScale)
	p.hits = uint16(r.Uint32())
	for i := range p.players {
		p.players[i] = playerInfo[tinyInput]{present: r.IntN(4) != 0}
		if p.players[i].present {
			p.players[i].input = tinyInput{MoveX: int8(r.IntN(255) - 127), Jump: r.IntN(2) == 0}
			p.players[i].touching = r.IntN(2) == 0
		}
	}
	for i := range p.bodies {
		if i < len(p.players) && !p.players[i].present {
			continue
		}
		axis, _ := vecmath.V3(r.Float64(), 1, r.Float64()).Normalize()
		s := wire.BodyState{
			Position:       vecmath.V3(r.Float64()*100-50, r.Float64()*20, r.Float64()*100-50),
			Rotation:       vecmath.QuatAxisAngle(axis, r.Float64()*6),
			LinearVelocity: vecmath.V3(r.Float64()*10, -r.Float64()*10, 0),
			AtRest:         r.IntN(3) == 0,
		}
		var err error
		if p.bodies[i], err = s.Quantize(spec); err != nil {
			panic(err)
		}
	}
	if base != nil && r.IntN(2) == 0 {
		p.hasBase, p.base = true, Tick(1+r.IntN(maxBaseAge))
		for i := range p.bodies {
			if r.IntN(2) == 0 && (i >= len(p.players) || p.players[i].present && base.present[i]) {
				p.bodies[i] = base.bodies[i]
			}
		}
	}
	return p
}

func encodeStatePacket(t testing.TB, p *statePacket[tinyInput, *tinyInput], spec wire.StateSpec, base *fixedBase) []byte {
	t.Helper()
	w := wire.NewWriter(make([]byte, 4096))
	if err := p.Serialize(w, spec, base.lookup); err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), w.Bytes()...)
}

func decodeStatePacket(b []byte, g *tinyGame, base *fixedBase) (*statePacket[tinyInput, *tinyInput], error) {
	p := newStatePacket[tinyInput, *tinyInput](g.Players(), g.Bodies(), g, true)
	r := wire.NewReader(b)
	if err := p.Serialize(r, g.Spec(), base.lookup); err != nil {
		return nil, err
	}
	return p, finish(r)
}

func TestUnchangedBodiesCostOneBitAgainstTheBaseline(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	g := newTinyGame(4)
	base := newFixedBase(r, g)
	p := newStatePacket[tinyInput, *tinyInput](g.Players(), g.Bodies(), g, true)
	for i := range p.players {
		p.players[i].present = base.present[i]
	}
	copy(p.bodies, base.bodies)
	full := len(encodeStatePacket(t, p, g.Spec(), base))
	p.hasBase, p.base = true, 3
	delta := encodeStatePacket(t, p, g.Spec(), base)
	if len(delta) >= full/2 {
		t.Fatalf("%d bytes against the baseline, %d without", len(delta), full)
	}
	if _, err := decodeStatePacket(delta, g, &fixedBase{}); err == nil {
		t.Fatal("decoded without the baseline")
	}
}

func TestStatePacketRoundTrips(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	g := newTinyGame(4)
	base := newFixedBase(r, g)
	for i := 0; i < 100; i++ {
		p := randomStatePacket(r, g, base)
		b := encodeStatePacket(t, p, g.Spec(), base)
		got, err := decodeStatePacket(b, g, base)
		if err != nil || !reflect.DeepEqual(got, p) {
			t.Fatalf("round trip: %v\n got %+v\nwant %+v", err, got, p)
		}
		for n := 0; n < len(b); n++ {
			if _, err := decodeStatePacket(b[:n], g, base); err == nil {
				t.Fatalf("packet cut to %d of %d bytes decoded", n, len(b))
			}
		}
	}
}

func FuzzStatePacket(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 8))
	g := newTinyGame(4)
	base := newFixedBase(r, g)
	for i := 0; i < 8; i++ {
		f.Add(encodeStatePacket(f, randomStatePacket(r, g, base), g.Spec(), base))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := decodeStatePacket(b, g, base)
		if err != nil {
			return
		}
		if p.you >= g.Players() {
			t.Fatalf("decoded slot %d of %d", p.you, g.Players())
		}
		// A body sent in full that equals the baseline re-encodes as
		// one bit: the re-encoding decodes the same, and is no longer.
		again := encodeStatePacket(t, p, g.Spec(), base)
		q, err := decodeStatePacket(again, g, base)
		if err != nil || !reflect.DeepEqual(p, q) || len(again) > len(b) {
			t.Fatalf("re-encoded %x from %x: %v", again, b, err)
		}
	})
}
