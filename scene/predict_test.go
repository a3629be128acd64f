package scene

import (
	"encoding/binary"
	"errors"
	"hash/fnv"
	"math"
	"testing"

	"github.com/netphys/netphys/internal/golden"
	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/wire/snapshot"
)

// capturePlay plays the scripted minute for ticks steps and returns the
// scene's cubes at every tick in snapshot order (the player first).
func capturePlay(t testing.TB, ticks int) [][]snapshot.Cube {
	t.Helper()
	s, err := New(Cubes900, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var out [][]snapshot.Cube
	for tick := range ticks {
		s.Step(PlayMinute.At(tick))
		cubes := make([]snapshot.Cube, 0, len(s.Cubes)+1)
		for _, id := range append([]physics.BodyID{s.Player}, s.Cubes...) {
			st := s.State(id)
			cubes = append(cubes, snapshot.Cube{Position: st.Position, Rotation: st.Rotation})
		}
		out = append(out, cubes)
	}
	return out
}

func reference(play [][]snapshot.Cube, base, baseAge, prevAge int) snapshot.Reference {
	return snapshot.Reference{
		Base: &snapshot.Snapshot{Cubes: play[base]}, BaseAge: baseAge,
		Prev: &snapshot.Snapshot{Cubes: play[base-prevAge]}, PrevAge: prevAge,
	}
}

func inputsAfter(tick, n int) []uint32 {
	in := make([]uint32, n)
	for k := range in {
		in[k] = uint32(PlayMinute.At(tick + 1 + k).Bits())
	}
	return in
}

// TestPredictorIsPure: a prediction depends on its arguments only, not on
// what the predictor predicted before, and two predictors agree bit for
// bit: the sender predicts for every packet, the receiver only for those
// it gets.
func TestPredictorIsPure(t *testing.T) {
	play := capturePlay(t, 560)
	a, err := NewPredictor(Cubes900, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewPredictor(Cubes900, DefaultConfig())
	n := len(play[0])
	predict := func(p *Predictor, base int) []snapshot.Cube {
		dst := make([]snapshot.Cube, n)
		if err := p.Predict(dst, reference(play, base, 6, 1), inputsAfter(base, 6)); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	first := predict(a, 540)
	predict(a, 300)
	predict(a, 420)
	again, other := predict(a, 540), predict(b, 540)
	for i := range first {
		if again[i] != first[i] || other[i] != first[i] {
			t.Fatalf("cube %d: %+v, then %+v after other predictions, %+v from another predictor", i, first[i], again[i], other[i])
		}
	}
}

// TestPredictorBeatsStraightLines: during the katamari segment, six ticks
// of simulation from a state and the tick before it land the moving cubes
// far nearer their true positions than straight lines do.
func TestPredictorBeatsStraightLines(t *testing.T) {
	play := capturePlay(t, 560)
	p, err := NewPredictor(Cubes900, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	const ahead = 6
	var simErr, lineErr float64
	moving := 0
	dst := make([]snapshot.Cube, len(play[0]))
	for base := 500; base+ahead < len(play); base += 5 {
		if err := p.Predict(dst, reference(play, base, ahead, 1), inputsAfter(base, ahead)); err != nil {
			t.Fatal(err)
		}
		for i, truth := range play[base+ahead] {
			b, prev := play[base][i].Position, play[base-1][i].Position
			if b == prev {
				continue
			}
			moving++
			line := b.Add(b.Sub(prev).Scale(ahead))
			simErr += truth.Position.Sub(dst[i].Position).Length()
			lineErr += truth.Position.Sub(line).Length()
		}
	}
	if moving < 100 {
		t.Fatalf("only %d moving cubes: the script is too quiet for the test", moving)
	}
	simErr, lineErr = simErr/float64(moving), lineErr/float64(moving)
	t.Logf("%d moving cubes: mean error %.1f mm simulated, %.1f mm in straight lines", moving, 1000*simErr, 1000*lineErr)
	if simErr*2 > lineErr {
		t.Errorf("simulated error %.4f m, straight lines %.4f m: want less than half", simErr, lineErr)
	}
}

func TestPredictorCountMismatch(t *testing.T) {
	p, err := NewPredictor(Cubes900, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	few := &snapshot.Snapshot{Cubes: make([]snapshot.Cube, 3)}
	ref := snapshot.Reference{Base: few, Prev: few, BaseAge: 1, PrevAge: 1}
	if err := p.Predict(make([]snapshot.Cube, 3), ref, []uint32{0}); !errors.Is(err, snapshot.ErrCount) {
		t.Fatalf("3 cubes for a scene of 901: %v, want snapshot.ErrCount", err)
	}
}

// TestPredictorGolden records a checksum of the predictions from a series
// of bases of the scripted minute; TestPredictorGoldenCrossArch replays
// it on arm64 and amd64-v3: both ends of a connection may run on
// different machines and must predict the same bits.
func TestPredictorGolden(t *testing.T) {
	play := capturePlay(t, 560)
	p, err := NewPredictor(Cubes900, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]snapshot.Cube, len(play[0]))
	var sums []uint64
	for base := 300; base+6 < len(play); base += 20 {
		if err := p.Predict(dst, reference(play, base, 6, 1), inputsAfter(base, 6)); err != nil {
			t.Fatal(err)
		}
		h := fnv.New64a()
		for _, c := range dst {
			for _, f := range []float64{c.Position.X, c.Position.Y, c.Position.Z, c.Rotation.X, c.Rotation.Y, c.Rotation.Z, c.Rotation.W} {
				binary.Write(h, binary.LittleEndian, math.Float64bits(f))
			}
		}
		sums = append(sums, h.Sum64())
	}
	golden.Check(t, "testdata/predict_checksums.txt", sums, *update)
}

func TestPredictorGoldenCrossArch(t *testing.T) {
	golden.CrossArch(t, "TestPredictorGolden")
}

// BenchmarkPredict measures one prediction six ticks ahead during the
// katamari segment: what a sender pays per snapshot packet and client.
func BenchmarkPredict(b *testing.B) {
	play := capturePlay(b, 560)
	p, err := NewPredictor(Cubes900, DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]snapshot.Cube, len(play[0]))
	ref, inputs := reference(play, 540, 6, 1), inputsAfter(540, 6)
	for b.Loop() {
		if err := p.Predict(dst, ref, inputs); err != nil {
			b.Fatal(err)
		}
	}
}
