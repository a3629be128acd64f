package replay_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/netmodel/lockstep/replay"
)

// withState is a recording of 300 ticks with the state after tick 240
// written into it, as on a desync.
func withState(t testing.TB) []byte {
	var buf bytes.Buffer
	h := testHeader(2)
	rec, err := replay.NewRecorder[push](&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	g := rec.Wrap(newMarbles())
	for tick := range lockstep.Tick(300) {
		g.Step([]push{bot(0, tick), bot(1, tick)})
	}
	if err := g.Desync(240, "desync at tick 240"); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestTruncatedAtEveryByte: every prefix of a file reads without panic;
// one that ends between blocks reads cleanly with the ticks of its
// complete chunks, any other is an error wrapping ErrFormat with what
// came before it.
func TestTruncatedAtEveryByte(t *testing.T) {
	file := withState(t)
	full, err := replay.Read[push](bytes.NewReader(file))
	if err != nil || len(full.States) != 1 || full.States[0].Tick != 240 || full.Ticks() != 300 {
		t.Fatalf("full file: %v", err)
	}
	clean := 0
	for n := range len(file) {
		rep, err := replay.Read[push](bytes.NewReader(file[:n]))
		if err == nil {
			clean++
			if k := rep.Ticks(); k != 0 && k != replay.ChunkTicks && k != 300 {
				t.Fatalf("prefix %d reads %d ticks, not a cut between blocks", n, k)
			}
			continue
		}
		if !errors.Is(err, replay.ErrFormat) {
			t.Fatalf("prefix %d: %v, want ErrFormat", n, err)
		}
		if rep != nil && (rep.Ticks() > full.Ticks() || !slices.Equal(rep.Inputs, full.Inputs[:len(rep.Inputs)])) {
			t.Fatalf("prefix %d: a partial replay that is not a prefix", n)
		}
	}
	// The clean cuts: after the header, after the chunk of ticks 0-255,
	// after that of ticks 256-299 which the state's write flushed, and
	// after the state (the file's end is not a prefix).
	if clean != 3 {
		t.Fatalf("%d clean prefixes, want the cuts between blocks", clean)
	}
}

// FuzzRead: no input makes Read panic or exceed its limits, and whatever
// it reads writes back to a file that reads the same.
func FuzzRead(f *testing.F) {
	f.Add(withState(f))
	small, _ := record(f, testHeader(1), 20)
	f.Add(small)
	f.Add([]byte("NPRP\x01"))
	lim := replay.Limits{MaxTicks: 5000, MaxStates: 2}
	f.Fuzz(func(t *testing.T, b []byte) {
		rep, err := replay.ReadLimits[push](bytes.NewReader(b), lim)
		if rep == nil {
			if err == nil {
				t.Fatal("no replay and no error")
			}
			return
		}
		if int(rep.Ticks()) > lim.MaxTicks || len(rep.States) > lim.MaxStates || rep.Size > int64(len(b)) {
			t.Fatalf("%d ticks, %d states, %d bytes of %d", rep.Ticks(), len(rep.States), rep.Size, len(b))
		}
		// Write back what was read, and read it again.
		var buf bytes.Buffer
		rec, err := replay.NewRecorder[push](&buf, rep.Header)
		if err != nil {
			t.Fatalf("a header read back cannot be written: %v", err)
		}
		for tick := range rep.Ticks() {
			sum, _ := rep.Sum(tick)
			rec.Record(rep.At(tick), uint64(sum))
		}
		for i := range rep.States {
			if err := rec.WriteState(&rep.States[i]); err != nil {
				t.Fatalf("state %d read back cannot be written: %v", i, err)
			}
		}
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
		again, err := replay.ReadLimits[push](bytes.NewReader(buf.Bytes()), lim)
		if err != nil {
			t.Fatalf("the file written back does not read: %v", err)
		}
		if again.Header != rep.Header || !slices.Equal(again.Inputs, rep.Inputs) || !slices.Equal(again.Sums, rep.Sums) || len(again.States) != len(rep.States) {
			t.Fatalf("read back differs: %d ticks, %d sums, %d states; first read %d, %d, %d",
				again.Ticks(), len(again.Sums), len(again.States), rep.Ticks(), len(rep.Sums), len(rep.States))
		}
		for i := range rep.States {
			// Compare goes bit for bit: a NaN read is a NaN written.
			if d := replay.Compare(&again.States[i], &rep.States[i]); d != nil || again.States[i].Tick != rep.States[i].Tick || again.States[i].Note != rep.States[i].Note {
				t.Fatalf("state %d read back differs: %v", i, d)
			}
		}
	})
}
