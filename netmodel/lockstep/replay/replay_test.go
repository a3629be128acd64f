package replay_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/netmodel/lockstep/replay"
)

var _ replay.Inspector = (*replay.Game[push, *push])(nil)

// record plays ticks of the bots on a fresh game wrapped by a recorder
// and returns the file and the checksum after every tick.
func record(t testing.TB, h replay.Header, ticks int) ([]byte, []uint64) {
	t.Helper()
	var buf bytes.Buffer
	rec, err := replay.NewRecorder[push](&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	g := rec.Wrap(newMarbles())
	in := make([]push, h.Players)
	var sums []uint64
	for tick := range lockstep.Tick(ticks) {
		for p := range in {
			in[p] = bot(p, tick)
		}
		g.Step(in)
		sums = append(sums, g.Checksum())
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if int64(buf.Len()) != rec.Bytes() {
		t.Fatalf("recorder counted %d bytes, wrote %d", rec.Bytes(), buf.Len())
	}
	return buf.Bytes(), sums
}

func TestRoundTrip(t *testing.T) {
	for _, every := range []lockstep.Tick{1, 7, 60} {
		h := testHeader(3)
		h.SumEvery = every
		file, sums := record(t, h, 1000)
		rep, err := replay.Read[push](bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		if rep.Header != h || rep.Ticks() != 1000 || rep.Size != int64(len(file)) {
			t.Fatalf("every %d: header %+v, %d ticks, size %d of %d", every, rep.Header, rep.Ticks(), rep.Size, len(file))
		}
		for tick := range lockstep.Tick(1000) {
			for p, in := range rep.At(tick) {
				if in != bot(p, tick) {
					t.Fatalf("tick %d player %d: %+v, recorded %+v", tick, p, in, bot(p, tick))
				}
			}
			sum, ok := rep.Sum(tick)
			if ok != (tick%every == 0) || (ok && sum != uint32(sums[tick])) {
				t.Fatalf("every %d, tick %d: sum %#x %v, game %#x", every, tick, sum, ok, uint32(sums[tick]))
			}
		}
		checked, agreed, first := replay.Verify(rep, lockstep.Game[push](newMarbles()))
		if want := int((1000 + every - 1) / every); checked != want || agreed != want || first != nil {
			t.Fatalf("every %d: verify %d of %d agree, first %v; want %d", every, agreed, checked, first, want)
		}
		// The bots change input every 7 to 22 ticks: the inputs cost about
		// a bit a player a tick, the checksums 4 bytes each.
		if budget := 1000*3/8 + 4*len(rep.Sums) + 200; len(file) > budget {
			t.Errorf("every %d: %d bytes, budget %d", every, len(file), budget)
		}
	}
}

// TestVerifyFindsTheFirstBadTick: a game that differs from the recording
// from tick 50 on is reported at tick 50.
func TestVerifyFindsTheFirstBadTick(t *testing.T) {
	file, _ := record(t, testHeader(4), 300)
	rep, err := replay.Read[push](bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	bad := newMarbles()
	bad.bugAfter = 50
	checked, agreed, first := replay.Verify(rep, lockstep.Game[push](bad))
	if checked != 300 || agreed != 50 || first == nil || first.Tick != 50 || !errors.Is(first, replay.ErrMismatch) {
		t.Fatalf("verify: %d of %d agree, first %v; want 50 of 300, first at tick 50", agreed, checked, first)
	}
}

// TestSeek: seeking back and forth lands on the states a straight play
// goes through.
func TestSeek(t *testing.T) {
	file, sums := record(t, testHeader(2), 700)
	rep, err := replay.Read[push](bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	fresh := func() (lockstep.Game[push], error) { return newMarbles(), nil }
	for _, keep := range []lockstep.Tick{0, 64} {
		p := replay.NewPlayback(rep, lockstep.Game[push](newMarbles()), keep)
		for _, to := range []lockstep.Tick{650, 10, 300, 299, 700, 1, 128, 127} {
			if err := p.Seek(to, fresh); err != nil {
				t.Fatal(err)
			}
			if p.Tick() != to {
				t.Fatalf("seek to %d: at %d", to, p.Tick())
			}
			if to > 0 && p.Game().Checksum() != sums[to-1] {
				t.Fatalf("keep %d: seek to %d: checksum %#x, straight play %#x", keep, to, p.Game().Checksum(), sums[to-1])
			}
		}
		if err := p.Seek(701, fresh); err == nil {
			t.Fatal("seek beyond the end: no error")
		}
	}
}

// TestRollbackClientsRecordTheMatch: four lockstep clients in rollback
// mode over a lossy simulated network each record their own game; every
// recording holds the same inputs and checksums (the predicted ticks a
// rollback undid are gone), and each verifies.
func TestRollbackClientsRecordTheMatch(t *testing.T) {
	files := playRollbackMatch(t, 4, nil)
	var first *replay.Replay[push]
	for i, f := range files {
		rep, err := replay.Read[push](bytes.NewReader(f))
		if err != nil {
			t.Fatal(err)
		}
		if rep.Ticks() < 200 {
			t.Fatalf("client %d recorded %d ticks", i, rep.Ticks())
		}
		checked, agreed, bad := replay.Verify(rep, lockstep.Game[push](newMarbles()))
		if bad != nil || checked != agreed || checked < 200 {
			t.Fatalf("client %d: %d of %d agree, first %v", i, agreed, checked, bad)
		}
		if first == nil {
			first = rep
			continue
		}
		n := int(min(first.Ticks(), rep.Ticks())) * 4
		if !slices.Equal(first.Inputs[:n], rep.Inputs[:n]) {
			t.Fatalf("client %d recorded other inputs than client 0", i)
		}
		for tick := range lockstep.Tick(n / 4) {
			for p, in := range rep.At(tick) {
				if in != bot(p, tick) {
					t.Fatalf("client %d, tick %d, player %d: recorded %+v, the bot played %+v", i, tick, p, in, bot(p, tick))
				}
			}
		}
	}
}
