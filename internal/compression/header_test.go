package compression

import (
	"testing"

	"github.com/netphys/netphys/wire"
)

// TestHeaderRoundTrip checks the 3-byte framing and that the receiver
// restores full ticks from their low bits across the wrap.
func TestHeaderRoundTrip(t *testing.T) {
	for _, c := range []struct{ tick, newest int }{
		{0, 0}, {5, 0}, {4095, 4090}, {4096, 4090}, {4100, 4097}, {70000, 69990}, {69990, 70000}, {1 << 20, 1<<20 - 2047},
	} {
		h := header{tick: uint32(c.tick) & (1<<tickBits - 1), baseAge: 6, prevAge: ring - 1}
		w := wire.NewWriter(make([]byte, 8))
		if err := h.serialize(w); err != nil {
			t.Fatal(err)
		}
		if n := len(w.Bytes()); n != headerBytes {
			t.Fatalf("header of %d bytes, want %d", n, headerBytes)
		}
		var got header
		if err := got.serialize(wire.NewReader(w.Bytes())); err != nil {
			t.Fatal(err)
		}
		if got != h {
			t.Fatalf("header %+v read back as %+v", h, got)
		}
		if tick := unwrapTick(got.tick, c.newest); tick != c.tick {
			t.Errorf("tick %d seen after %d restored as %d", c.tick, c.newest, tick)
		}
	}
}
