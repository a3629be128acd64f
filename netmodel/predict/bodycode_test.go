package predict

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/netphys/netphys/wire"
)

// The bodies' recorded bits, written again, are the packet coded afresh,
// bit for bit, the first time (recording) and the next (replaying).
func TestBodyCodesWriteWhatCodingWrites(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	g := newTinyGame(4)
	base := newFixedBase(r, g)
	codes := newBodyCodes(g.Bodies())
	for n := range 300 {
		p := randomStatePacket(r, g, base)
		want := encodeStatePacket(t, p, g.Spec(), base)
		p.codes = &codes
		codes.of(uint64(n + 1))
		for pass, what := range []string{"recording", "replaying"} {
			if got := encodeStatePacket(t, p, g.Spec(), base); !bytes.Equal(got, want) {
				t.Fatalf("packet %d, pass %d (%s): %x, coded afresh %x", n, pass, what, got, want)
			}
		}
	}
}

// Values written through a recorder reach a Writer as they would have
// directly, including ones that must not be joined to their neighbours.
func TestBitRecorderReplaysEveryValue(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for range 200 {
		direct := wire.NewWriter(make([]byte, 1024))
		var rec bitRecorder
		for range r.IntN(40) {
			n := 1 + r.IntN(64)
			v := r.Uint64() >> (64 - n)
			if _, err := direct.Bits(v, n); err != nil {
				t.Fatal(err)
			}
			if _, err := rec.Bits(v, n); err != nil {
				t.Fatal(err)
			}
		}
		replayed := wire.NewWriter(make([]byte, 1024))
		if err := rec.replay(replayed); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(replayed.Bytes(), direct.Bytes()) || replayed.BitsWritten() != direct.BitsWritten() {
			t.Fatalf("replayed %d bits %x, written directly %d bits %x", replayed.BitsWritten(), replayed.Bytes(), direct.BitsWritten(), direct.Bytes())
		}
	}
}

// A value too wide for its bit count is refused when written, as a
// Writer refuses it.
func TestBitRecorderKeepsTheWritersRefusal(t *testing.T) {
	var rec bitRecorder
	for _, c := range []struct {
		v uint64
		n int
	}{{1, 1}, {4, 2}, {1, 1}} {
		if _, err := rec.Bits(c.v, c.n); err != nil {
			t.Fatal(err)
		}
	}
	err := rec.replay(wire.NewWriter(make([]byte, 16)))
	if !errors.Is(err, wire.ErrRange) {
		t.Fatalf("replaying 4 in 2 bits: %v, want ErrRange", err)
	}
}
