package compression

import (
	"testing"

	"github.com/netphys/netphys/wire"
)

// TestHeaderRoundTrip checks the 2-byte framing and that the receiver
// restores full ticks from the 16-bit packet sequence across the wrap.
func TestHeaderRoundTrip(t *testing.T) {
	for _, c := range []struct{ tick, newest int }{
		{0, 0}, {5, 0}, {65535, 65530}, {65536, 65530}, {65540, 65537}, {700000, 699990}, {699990, 700000}, {1 << 20, 1<<20 - 32767},
	} {
		h := header{baseAge: 6, prevAge: ring - 1, check: tickCheck(c.tick)}
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
		seq := uint32(c.tick) & (1<<tickBits - 1)
		tick := unwrapTick(seq, c.newest)
		if tick != c.tick {
			t.Errorf("tick %d seen after %d restored as %d", c.tick, c.newest, tick)
		}
		if got.check != tickCheck(tick) {
			t.Errorf("tick %d: check bits %d do not match", c.tick, got.check)
		}
	}
}
