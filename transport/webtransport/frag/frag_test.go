package frag

import (
	"bytes"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netcode"
)

// packet is a made-up netcode packet of n bytes: a payload packet's
// prefix byte, then a pattern.
func packet(n int) []byte {
	p := make([]byte, n)
	p[0] = 0x15
	for i := 1; i < n; i++ {
		p[i] = byte(i * 7)
	}
	return p
}

// split returns the datagrams Split sends.
func split(t testing.TB, p []byte, limit int, id uint16) [][]byte {
	t.Helper()
	var out [][]byte
	n, err := Split(p, limit, id, func(b []byte) error {
		out = append(out, append([]byte(nil), b...))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(out) {
		t.Fatalf("Split says %d datagrams, sent %d", n, len(out))
	}
	return out
}

func TestSplitAndReassemble(t *testing.T) {
	now := time.Unix(1000, 0)
	for _, c := range []struct {
		size, limit, fragments int
	}{
		{100, MaxDatagram, 1},
		{MaxDatagram, MaxDatagram, 1},
		{MaxDatagram + 1, MaxDatagram, 2},
		{1200, MaxDatagram, 2},
		{netcode.MaxPacketBytes, MaxDatagram, 2},
		{netcode.MaxPacketBytes, 1215 - 600, 3},
		{netcode.MaxPacketBytes, MinDatagram, 3},
	} {
		p := packet(c.size)
		ds := split(t, p, c.limit, 7)
		if len(ds) != c.fragments {
			t.Errorf("%d bytes under %d: %d datagrams, want %d", c.size, c.limit, len(ds), c.fragments)
			continue
		}
		if c.fragments == 1 {
			if !bytes.Equal(ds[0], p) {
				t.Errorf("%d bytes under %d: sent changed", c.size, c.limit)
			}
			continue
		}
		var r Reassembler
		// In reverse order: the fragments may arrive in any.
		for i := len(ds) - 1; i >= 0; i-- {
			if len(ds[i]) > c.limit {
				t.Errorf("%d bytes under %d: a fragment of %d bytes", c.size, c.limit, len(ds[i]))
			}
			got := r.Add(ds[i], now)
			switch {
			case i > 0 && got != nil:
				t.Errorf("%d bytes: a packet before its last fragment", c.size)
			case i == 0 && !bytes.Equal(got, p):
				t.Errorf("%d bytes in %d fragments: reassembled %d bytes, not the packet", c.size, len(ds), len(got))
			}
		}
		want := Stats{FragmentsIn: uint64(len(ds)), PacketsReassembled: 1}
		if r.Stats != want {
			t.Errorf("%d bytes: stats %+v, want %+v", c.size, r.Stats, want)
		}
	}
}

func TestSplitRefuses(t *testing.T) {
	send := func([]byte) error { t.Fatal("sent"); return nil }
	for _, c := range []struct {
		p     []byte
		limit int
	}{
		{packet(10), MinDatagram - 1},
		{packet(10), MaxDatagram + 1},
		{nil, MaxDatagram},
		{packet(netcode.MaxPacketBytes + 1), MaxDatagram},
		{[]byte{Marker, 1, 2}, MaxDatagram},
	} {
		if _, err := Split(c.p, c.limit, 1, send); err == nil {
			t.Errorf("Split of %d bytes under %d: no error", len(c.p), c.limit)
		}
	}
}

// TestReassemblerBounds: a lost fragment is its packet lost (after the
// timeout, or when newer packets push it out), duplicates and malformed
// fragments are dropped and counted, and packets interleaved within the
// Pending bound all arrive.
func TestReassemblerBounds(t *testing.T) {
	now := time.Unix(1000, 0)
	p1, p2, p3 := packet(1200), packet(1201), packet(1202)
	d1, d2, d3 := split(t, p1, MaxDatagram, 1), split(t, p2, MaxDatagram, 2), split(t, p3, MaxDatagram, 3)
	var r Reassembler

	// Interleaved: 1 and 2 pending at once.
	r.Add(d1[0], now)
	r.Add(d2[1], now)
	if got := r.Add(d1[1], now); !bytes.Equal(got, p1) {
		t.Fatal("packet 1 not reassembled")
	}
	// A duplicate of a pending fragment.
	r.Add(d2[1], now)
	if got := r.Add(d2[0], now); !bytes.Equal(got, p2) {
		t.Fatal("packet 2 not reassembled")
	}
	if r.Stats.FragmentsDropped != 1 || r.Stats.PacketsReassembled != 2 {
		t.Fatalf("stats %+v: want the duplicate dropped, two packets", r.Stats)
	}

	// Packet 1's first half again, then a timeout: lost.
	r.Add(d1[0], now)
	r.Add(d3[0], now.Add(Timeout+time.Millisecond))
	if r.Stats.PacketsLost != 1 {
		t.Fatalf("stats %+v: want the timed-out packet lost", r.Stats)
	}
	// Two newer packets push packet 3 out.
	r.Add(split(t, packet(1210), MaxDatagram, 4)[0], now.Add(Timeout+2*time.Millisecond))
	r.Add(split(t, packet(1210), MaxDatagram, 5)[0], now.Add(Timeout+3*time.Millisecond))
	if r.Stats.PacketsLost != 2 {
		t.Fatalf("stats %+v: want packet 3 pushed out", r.Stats)
	}
	if got := r.Add(d3[1], now.Add(Timeout+4*time.Millisecond)); got != nil {
		t.Fatal("packet 3 reassembled after it was pushed out")
	}

	// A fragment claiming another count for a pending id, and malformed ones.
	bad := append([]byte(nil), d3[0]...)
	bad[3] = 0<<4 | 3
	before := r.Stats.FragmentsDropped
	for _, b := range [][]byte{bad, {Marker, 1, 0, 0x02}, {Marker, 1, 0, 0x22, 9}, {Marker, 1, 0, 0x01, 9}, {Marker, 1, 0, 0x04, 9}, make([]byte, MaxDatagram+1)} {
		if b[0] != Marker {
			b[0], b[3] = Marker, 0x02
		}
		if got := r.Add(b, now.Add(Timeout+5*time.Millisecond)); got != nil {
			t.Errorf("a malformed fragment % x completed a packet", b[:4])
		}
	}
	if d := r.Stats.FragmentsDropped - before; d != 6 {
		t.Errorf("%d of 6 malformed fragments dropped: %+v", d, r.Stats)
	}
}

// TestReassembledNeverOverMax: three fragments whose bytes add up to
// more than a packet holds do not make one.
func TestReassembledNeverOverMax(t *testing.T) {
	now := time.Unix(1000, 0)
	var r Reassembler
	frag := make([]byte, MaxDatagram)
	frag[0], frag[1], frag[2] = Marker, 9, 0
	for i := range 3 {
		frag[3] = byte(i<<4 | 3)
		if got := r.Add(frag, now); got != nil {
			t.Fatalf("a packet of %d bytes", len(got))
		}
	}
	if r.Stats.FragmentsDropped != 2 {
		t.Errorf("stats %+v: want the two fragments past the packet's bound dropped", r.Stats)
	}
}

// FuzzReassembler: whatever datagrams arrive, Add neither panics nor
// returns more than a packet's bytes, and the counts add up.
func FuzzReassembler(f *testing.F) {
	for _, d := range split(f, packet(1200), MaxDatagram, 3) {
		f.Add(d, d, uint16(0))
	}
	f.Add([]byte{Marker, 0, 0, 0x12, 1}, []byte{Marker, 0, 0, 0x02, 1}, uint16(600))
	f.Add([]byte{Marker}, []byte{}, uint16(1))
	f.Fuzz(func(t *testing.T, a, b []byte, gap uint16) {
		var r Reassembler
		now := time.Unix(1000, 0)
		out := 0
		for k, d := range [][]byte{a, b, a, b} {
			if !IsFragment(d) {
				continue
			}
			if p := r.Add(d, now.Add(time.Duration(k)*time.Duration(gap)*time.Millisecond)); p != nil {
				out++
				if len(p) > netcode.MaxPacketBytes || len(p) == 0 {
					t.Fatalf("a packet of %d bytes", len(p))
				}
			}
			if _, _, err := Parse(d); err == nil && (len(d) > MaxDatagram || len(d) <= HeaderBytes) {
				t.Fatalf("Parse took a fragment of %d bytes", len(d))
			}
		}
		if uint64(out) != r.Stats.PacketsReassembled || r.Stats.FragmentsDropped > r.Stats.FragmentsIn {
			t.Fatalf("stats %+v after %d packets", r.Stats, out)
		}
	})
}
