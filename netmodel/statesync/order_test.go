package statesync

import (
	"errors"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/vecmath"
)

// TestHostNeverAppliesAnOlderPacketsState: guest 1 sends two updates of a
// cube, the second a step later; the network delivers the second first.
// The first, older, is late and not applied; a copy of a datagram is
// counted as a duplicate, not as malformed.
func TestHostNeverAppliesAnOlderPacketsState(t *testing.T) {
	f := newForger(t)
	f.reach(2)
	_, _, v := f.host.Authority(2)
	v.Auth++
	encode := func(d vecmath.Vec3) []byte {
		p := packet{player: 1, present: 2, updates: []update{f.claim(2, v, f.moved(2, d))}}
		data, err := f.wc.encode(make([]byte, 2048), f.coder, &p)
		if err != nil {
			t.Fatal(err)
		}
		_, ds, err := f.ep.SendPacket(f.now, data)
		if err != nil {
			t.Fatal(err)
		}
		return append([]byte(nil), ds[0]...)
	}
	start := f.hg.Object(2).Position
	older, newer := encode(vecmath.V3(0, 0.2, 0)), encode(vecmath.V3(0, 0.4, 0))
	if err := f.host.Receive(f.now, 0, newer); err != nil {
		t.Fatal(err)
	}
	if err := f.host.Receive(f.now, 0, older); err != nil {
		t.Fatal(err)
	}
	f.play()
	// Set 0.4 m up at 1 m/s, it rose on from there; 0.2 m up, it would be
	// below.
	if got := f.hg.Object(2).Position; got.Y-start.Y < 0.4 {
		t.Fatalf("the older packet's state was applied: %v (from %v)", got, start)
	}
	if err := f.host.Receive(f.now, 0, newer); !errors.Is(err, reliable.ErrDuplicate) {
		t.Fatalf("a copy: %v, want ErrDuplicate", err)
	}
	c := f.host.Counters()
	if c.Late != 1 || c.Duplicates != 1 || c.Malformed != 0 || c.Accepted != 1 {
		t.Fatalf("late %d duplicates %d malformed %d accepted %d, want 1 1 0 1", c.Late, c.Duplicates, c.Malformed, c.Accepted)
	}
}

// TestGuestNeverAppliesAnOlderPacketsState: the host sends a moving cube
// in two packets; the guest gets the newer first, and the older one does
// not take the cube back: once played back, the newer state is the one
// correction.
func TestGuestNeverAppliesAnOlderPacketsState(t *testing.T) {
	hg, gg := newToy(0, 3), newToy(1, 3)
	host, err := NewHost(DefaultConfig(), hg)
	if err != nil {
		t.Fatal(err)
	}
	now := simmatch.Epoch
	cfg := DefaultConfig()
	cfg.Player = 1
	guest, err := NewGuest(cfg, gg, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Join(now, 0); err != nil {
		t.Fatal(err)
	}
	var sent [][]byte
	for k := range 2 {
		s := hg.Object(1)
		s.Position, s.LinearVelocity, s.AtRest = s.Position.Add(vecmath.V3(0, 1, 0)), vecmath.V3(0, 0, float64(k+1)), false
		if err := hg.SetObject(1, s); err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Second / 60)
		if err := host.Update(now, func(_ int, d []byte) { sent = append(sent, append([]byte(nil), d...)) }); err != nil {
			t.Fatal(err)
		}
	}
	if len(sent) != 2 {
		t.Fatalf("%d packets", len(sent))
	}
	want := guest.q.body(host.cur[1]) // the newer packet's
	if err := guest.Receive(now, sent[1]); err != nil {
		t.Fatal(err)
	}
	if err := guest.Receive(now, sent[0]); err != nil {
		t.Fatal(err)
	}
	for k := 0; guest.Counters().Corrections == 0; k++ {
		if k == 30 {
			t.Fatal("nothing played back in half a second")
		}
		if got := gg.Object(1); got == want {
			t.Fatal("applied before its playback time")
		}
		now = now.Add(time.Second / 60)
		if err := guest.Update(now, func([]byte) {}); err != nil {
			t.Fatal(err)
		}
	}
	if v := gg.Object(1).LinearVelocity.Z; v < 1.5 {
		t.Fatalf("the older packet's state was played (velocity %v, the newer's is 2)", v)
	}
	for range 30 {
		now = now.Add(time.Second / 60)
		if err := guest.Update(now, func([]byte) {}); err != nil {
			t.Fatal(err)
		}
	}
	if c := guest.Counters(); c.Late == 0 || c.Malformed != 0 || c.Corrections != 1 {
		t.Fatalf("late %d malformed %d corrections %d, want some, 0, 1", c.Late, c.Malformed, c.Corrections)
	}
}

func TestSequenceExtension(t *testing.T) {
	var l link
	for _, c := range []struct {
		seq  reliable.Sequence
		want uint32
	}{{65534, 65535}, {65535, 65536}, {0, 65537}, {65533, 65534}, {1, 65538}, {200, 65737}} {
		l.extend(c.seq)
		if l.inExt != c.want {
			t.Fatalf("sequence %d extended to %d, want %d", c.seq, l.inExt, c.want)
		}
	}
	if l.ext != 65737 {
		t.Fatalf("newest %d", l.ext)
	}
}
