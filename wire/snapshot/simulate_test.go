package snapshot

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// driftSim is a test Simulator: every cube keeps its velocity from Prev to
// Base, and each tick's input pushes it 1 cm along x per unit of input.
type driftSim struct{ bits int }

func (s driftSim) InputBits() int { return s.bits }

func (s driftSim) Predict(dst []Cube, ref Reference, inputs []uint32) error {
	push := 0.0
	for _, in := range inputs {
		push += float64(in) / 100
	}
	k := float64(ref.BaseAge) / float64(ref.PrevAge)
	for i := range dst {
		b, p := ref.Base.Cubes[i], ref.Prev.Cubes[i]
		dst[i] = Cube{
			Position: b.Position.Add(b.Position.Sub(p.Position).Scale(k)).Add(vecmath.V3(push, 0, 0)),
			Rotation: b.Rotation,
		}
	}
	return nil
}

// oracleSim predicts exactly the snapshot it was made for.
type oracleSim struct{ want *Snapshot }

func (oracleSim) InputBits() int { return 6 }

func (s oracleSim) Predict(dst []Cube, _ Reference, _ []uint32) error {
	copy(dst, s.want.Cubes)
	return nil
}

// simulatedCase returns a reference and a snapshot 5 ticks after its
// Base, from the synthetic scene, with five inputs set.
func simulatedCase() (Reference, *Snapshot) {
	ref, snap := fuzzReference(RangeCoded)
	cur := *snap
	cur.Inputs = []uint32{3, 3, 3, 0, 63}
	return ref, &cur
}

// TestSimulatorRoundTrip codes against a Simulator: the receiver decodes
// the quantized snapshot and the inputs, and a simulation that predicts
// the snapshot exactly leaves little more than the flags and the inputs
// to send: a third of what straight lines from Prev through Base need.
func TestSimulatorRoundTrip(t *testing.T) {
	ref, snap := simulatedCase()
	plain := Codec{Stage: RangeCoded, Config: DefaultConfig()}
	want, err := plain.Quantize(snap)
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int{}
	for name, sim := range map[string]Simulator{"none": nil, "drift": driftSim{bits: 6}, "oracle": oracleSim{want: &want}} {
		c := plain
		c.Simulator = sim
		pkt, err := c.Encode(make([]byte, 4096), snap, ref)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sizes[name] = len(pkt)
		got := &Snapshot{Cubes: make([]Cube, len(snap.Cubes))}
		if err := c.Decode(pkt, got, ref); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i := range want.Cubes {
			if got.Cubes[i] != want.Cubes[i] {
				t.Fatalf("%s cube %d: decoded %+v, want %+v", name, i, got.Cubes[i], want.Cubes[i])
			}
		}
		if sim != nil && !slices.Equal(got.Inputs, snap.Inputs) {
			t.Fatalf("%s: inputs %v, want %v", name, got.Inputs, snap.Inputs)
		}
	}
	t.Logf("packet bytes by simulator: %v", sizes)
	if sizes["oracle"]*3 > sizes["none"] {
		t.Errorf("a perfect simulation codes %d bytes, straight lines %d: want a third or less", sizes["oracle"], sizes["none"])
	}
}

// TestSimulatorInputErrors: inputs that do not match the baseline's age
// or the simulator's width are refused when encoding, and a simulator
// without a valid width is a configuration error on both sides.
func TestSimulatorInputErrors(t *testing.T) {
	ref, snap := simulatedCase()
	c := Codec{Stage: RangeCoded, Config: DefaultConfig(), Simulator: driftSim{bits: 6}}
	buf := make([]byte, 4096)
	for name, tc := range map[string]struct {
		inputs []uint32
		want   error
	}{
		"too few":   {[]uint32{1, 2}, ErrCount},
		"too many":  {[]uint32{1, 2, 3, 4, 5, 6}, ErrCount},
		"too wide":  {[]uint32{1, 2, 64, 4, 5}, wire.ErrRange},
		"none sent": {nil, ErrCount},
	} {
		bad := *snap
		bad.Inputs = tc.inputs
		if _, err := c.Encode(buf, &bad, ref); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
	zero := c
	zero.Simulator = driftSim{bits: 0}
	if _, err := zero.Encode(buf, snap, ref); !errors.Is(err, wire.ErrConfig) {
		t.Errorf("0-bit inputs: %v, want ErrConfig", err)
	}
	pkt, err := c.Encode(buf, snap, ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := zero.Decode(pkt, &Snapshot{Cubes: make([]Cube, len(snap.Cubes))}, ref); !errors.Is(err, wire.ErrConfig) {
		t.Errorf("decoding with 0-bit inputs: %v, want ErrConfig", err)
	}
}

// TestSimulatorTruncated: every prefix of a simulated packet is an error
// or, like any range-coded prefix, the canonical encoding of something
// else, never a panic; the whole packet with a byte missing never
// decodes to the original.
func TestSimulatorTruncated(t *testing.T) {
	ref, snap := simulatedCase()
	c := Codec{Stage: RangeCoded, Config: DefaultConfig(), Simulator: driftSim{bits: 6}}
	pkt, err := c.Encode(make([]byte, 4096), snap, ref)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := c.Quantize(snap)
	for n := range len(pkt) {
		got := &Snapshot{Cubes: make([]Cube, len(snap.Cubes))}
		if err := c.Decode(pkt[:n], got, ref); err == nil && slices.Equal(got.Cubes, want.Cubes) && slices.Equal(got.Inputs, snap.Inputs) {
			t.Fatalf("%d of %d bytes decode to the whole snapshot", n, len(pkt))
		}
	}
}

// FuzzDecodeSimulated decodes arbitrary bytes as a stage-9 packet coded
// against a Simulator: an error, or a snapshot and inputs whose encoding
// is the packet itself.
func FuzzDecodeSimulated(f *testing.F) {
	ref, snap := simulatedCase()
	c := Codec{Stage: RangeCoded, Config: DefaultConfig(), Simulator: driftSim{bits: 6}}
	pkt, err := c.Encode(make([]byte, 4096), snap, ref)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(pkt)
	f.Fuzz(func(t *testing.T, pkt []byte) {
		got := &Snapshot{Cubes: make([]Cube, len(snap.Cubes))}
		if err := c.Decode(pkt, got, ref); err != nil {
			return
		}
		again, err := c.Encode(make([]byte, 4096), got, ref)
		if err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		if !bytes.Equal(again, pkt) {
			t.Fatalf("re-encoding differs from the packet:\n% x\n% x", again, pkt)
		}
	})
}

// countingSim counts the ticks it is asked to simulate.
type countingSim struct {
	driftSim
	ticks *int
}

func (s countingSim) Predict(dst []Cube, ref Reference, inputs []uint32) error {
	*s.ticks += len(inputs)
	return s.driftSim.Predict(dst, ref, inputs)
}

// TestSimulationBounded: a packet against a Base older than
// MaxSimulatedTicks is predicted in straight lines by both ends, so no
// packet makes the receiver simulate more; one within it is simulated.
func TestSimulationBounded(t *testing.T) {
	ref, snap := fuzzReference(RangeCoded)
	for _, age := range []int{5, 16, 17, 40} {
		r := ref
		r.BaseAge = age
		cur := *snap
		cur.Inputs = make([]uint32, age)
		var sent, got int
		enc := Codec{Stage: RangeCoded, Config: DefaultConfig(), Simulator: countingSim{driftSim{6}, &sent}}
		dec := Codec{Stage: RangeCoded, Config: DefaultConfig(), Simulator: countingSim{driftSim{6}, &got}}
		pkt, err := enc.Encode(make([]byte, 4096), &cur, r)
		if err != nil {
			t.Fatal(err)
		}
		out := &Snapshot{Cubes: make([]Cube, len(snap.Cubes))}
		if err := dec.Decode(pkt, out, r); err != nil {
			t.Fatal(err)
		}
		want := 0
		if age <= DefaultConfig().MaxSimulatedTicks {
			want = age
		}
		if sent != want || got != want {
			t.Errorf("base %d ticks old: sender simulated %d ticks, receiver %d, want %d", age, sent, got, want)
		}
	}
}
