package predict

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

func randomInput(r *rand.Rand) Input {
	in := Input{
		MoveX: int8(r.IntN(256) - 128), MoveZ: int8(r.IntN(256) - 128),
		Yaw: uint16(r.Uint32()), Pitch: int16(r.Uint32()),
		Jump: r.IntN(2) == 0, Shoot: r.IntN(3) == 0,
	}
	if in.Shoot {
		in.Behind = uint8(r.Uint32())
	}
	return in
}

func randomInputPacket(r *rand.Rand) *inputPacket {
	p := &inputPacket{epoch: uint8(r.IntN(epochs)), first: Tick(r.Uint32()), count: r.IntN(MaxInputs + 1)}
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

func encodeInputPacket(t testing.TB, p *inputPacket) []byte {
	t.Helper()
	w := wire.NewWriter(make([]byte, 2048))
	if err := p.Serialize(w); err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), w.Bytes()...)
}

func decodeInputPacket(b []byte) (*inputPacket, error) {
	p := &inputPacket{}
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
	p := &inputPacket{count: MaxInputs}
	for i := range p.inputs {
		p.inputs[i] = Input{MoveX: 90, MoveZ: -90, Yaw: 1234, Jump: true}
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
			if s, _ := p.inputs[i].sanitize(18); s.Pitch > PitchMax || s.Pitch < -PitchMax || s.Behind > 18 {
				t.Fatalf("sanitized %+v to %+v", p.inputs[i], s)
			}
		}
	})
}

func randomStatePacket(r *rand.Rand, g *tinyGame) *statePacket {
	spec := g.Spec()
	p := newStatePacket(g.Players(), g.Bodies())
	p.tick, p.you, p.epoch = Tick(r.Uint32()), r.IntN(g.Players()), uint8(r.IntN(epochs))
	p.lead = int32(r.IntN(2*leadLimit*leadScale) - leadLimit*leadScale)
	for i := range p.players {
		p.players[i] = playerInfo{present: r.IntN(4) != 0}
		if p.players[i].present {
			p.players[i].input = Input{MoveX: int8(r.IntN(255) - 127), Jump: r.IntN(2) == 0}
			p.players[i].input, _ = p.players[i].input.sanitize(0)
			p.players[i].touching = r.IntN(2) == 0
		}
	}
	for i := range p.bodies {
		if i < len(p.players) && !p.players[i].present {
			continue
		}
		axis, _ := vecmath.V3(r.Float64(), 1, r.Float64()).Normalize()
		s := wire.CubeState{
			Position:       vecmath.V3(r.Float64()*100-50, r.Float64()*20, r.Float64()*100-50),
			Orientation:    vecmath.QuatAxisAngle(axis, r.Float64()*6),
			LinearVelocity: vecmath.V3(r.Float64()*10, -r.Float64()*10, 0),
			AtRest:         r.IntN(3) == 0,
		}
		var err error
		if p.bodies[i], err = quantize(spec, s); err != nil {
			panic(err)
		}
	}
	return p
}

func encodeStatePacket(t testing.TB, p *statePacket, spec wire.StateSpec) []byte {
	t.Helper()
	w := wire.NewWriter(make([]byte, 4096))
	if err := p.Serialize(w, spec); err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), w.Bytes()...)
}

func decodeStatePacket(b []byte, g *tinyGame) (*statePacket, error) {
	p := newStatePacket(g.Players(), g.Bodies())
	r := wire.NewReader(b)
	if err := p.Serialize(r, g.Spec()); err != nil {
		return nil, err
	}
	return p, finish(r)
}

func TestStatePacketRoundTrips(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	g := newTinyGame(4)
	for i := 0; i < 100; i++ {
		p := randomStatePacket(r, g)
		b := encodeStatePacket(t, p, g.Spec())
		got, err := decodeStatePacket(b, g)
		if err != nil || !reflect.DeepEqual(got, p) {
			t.Fatalf("round trip: %v\n got %+v\nwant %+v", err, got, p)
		}
		for n := 0; n < len(b); n++ {
			if _, err := decodeStatePacket(b[:n], g); err == nil {
				t.Fatalf("packet cut to %d of %d bytes decoded", n, len(b))
			}
		}
	}
}

func FuzzStatePacket(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 8))
	g := newTinyGame(4)
	for i := 0; i < 8; i++ {
		f.Add(encodeStatePacket(f, randomStatePacket(r, g), g.Spec()))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := decodeStatePacket(b, g)
		if err != nil {
			return
		}
		if p.you >= g.Players() {
			t.Fatalf("decoded slot %d of %d", p.you, g.Players())
		}
		again := encodeStatePacket(t, p, g.Spec())
		if !bytes.Equal(again, b) {
			// Only the padding of the last byte may differ, and finish
			// checked it is zero: the encoding is canonical.
			t.Fatalf("re-encoded %x from %x", again, b)
		}
	})
}
