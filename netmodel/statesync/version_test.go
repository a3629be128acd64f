package statesync

import (
	"errors"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/vecmath"
)

// TestOneGuestCannotWrapTheHostsVersions: guest 1 claims a cube 160
// times in one frame, each claim 250 ahead of the one before (each within
// MaxSequenceLead of the host's version as it moves on). The host takes
// claims worth at most MaxSequenceLead in that second and counts the rest
// as forged (or stale), so its version stays within reach of the honest guests'.
func TestOneGuestCannotWrapTheHostsVersions(t *testing.T) {
	f := newForger(t)
	f.reach(2)
	_, _, start := f.host.Authority(2)
	v := start
	before := f.host.Counters()
	for range 160 {
		v.Auth += 250
		if err := f.send(packet{player: 1, present: 2, updates: []update{f.claim(2, v, f.moved(2, vecmath.V3(0, 1, 0)))}}); err != nil && !errors.Is(err, ErrFlood) {
			t.Fatal(err)
		}
	}
	_, _, now := f.host.Authority(2)
	if lead := now.lead(start); lead > f.host.cfg.MaxSequenceLead {
		t.Fatalf("the host's version moved %d on in one frame (%v -> %v)", lead, start, now)
	}
	// Those more than half the sequence space ahead read as older: stale;
	// those past floodBurst in one frame are not read.
	c := f.host.Counters()
	if forged, stale, flood := c.Forged-before.Forged, c.Stale-before.Stale, c.Flood-before.Flood; forged+stale+flood != 159 || c.Accepted-before.Accepted != 1 {
		t.Fatalf("%d claims forged, %d stale, %d unread, %d accepted; want 159 refused, 1 taken", forged, stale, flood, c.Accepted-before.Accepted)
	}
	// A second later the budget is back: one more honest claim is taken.
	for range 61 {
		f.now = f.now.Add(time.Second / 60)
		if err := f.host.Update(f.now, func(int, []byte) {}); err != nil {
			t.Fatal(err)
		}
	}
	_, _, now = f.host.Authority(2)
	next := Version{now.Own, now.Auth + 1}
	if err := f.send(packet{player: 1, present: 2, updates: []update{f.claim(2, next, f.moved(2, vecmath.V3(0, 1, 0)))}}); err != nil {
		t.Fatal(err)
	}
	if _, _, got := f.host.Authority(2); got != next {
		t.Fatalf("an honest claim after the budget's second was refused: %v, want %v", got, next)
	}
}

// guestOf returns a guest seated on host, and a function that runs both
// for n steps, the host's packets delivered at once.
func guestOf(t *testing.T, host *Host, cubes int) (*Guest, func(n int)) {
	t.Helper()
	now := simmatch.Epoch
	cfg := DefaultConfig()
	cfg.Player = 1
	guest, err := NewGuest(cfg, newToy(1, cubes), now)
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Join(now, 0); err != nil {
		t.Fatal(err)
	}
	return guest, func(n int) {
		for range n {
			now = now.Add(time.Second / 60)
			if err := host.Update(now, func(_ int, d []byte) { _ = guest.Receive(now, d) }); err != nil {
				t.Fatal(err)
			}
			if err := guest.Update(now, func(d []byte) { _ = host.Receive(now, 0, d) }); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestGuestTakesTheHostsVersionWhenItDisagrees: a guest whose version of
// a cube is half the sequence space from the host's (wrapped by someone)
// takes the host's at its first update; one whose version is a little
// ahead, a claim the host never heard of, takes the host's after
// Config.Resync.
func TestGuestTakesTheHostsVersionWhenItDisagrees(t *testing.T) {
	host, err := NewHost(DefaultConfig(), newToy(0, 3))
	if err != nil {
		t.Fatal(err)
	}
	guest, run := guestOf(t, host, 3)
	run(30)
	guest.objs[0].ver = Version{Own: 30000}
	guest.objs[1].ver = Version{Auth: 3} // ahead by 3, as nobody's
	run(30)
	if _, _, v := guest.Authority(0); v != host.objs[0].ver {
		t.Fatalf("wrapped: the guest kept %v, the host has %v", v, host.objs[0].ver)
	}
	if _, _, v := guest.Authority(1); v == host.objs[1].ver {
		t.Fatal("a claim a little ahead was given up at once")
	}
	run(int(guest.cfg.Resync/guest.cfg.TimeStep) + 30)
	if _, _, v := guest.Authority(1); v != host.objs[1].ver {
		t.Fatalf("after %v the guest kept %v, the host has %v", guest.cfg.Resync, v, host.objs[1].ver)
	}
	if c := guest.Counters(); c.Resynced != 2 {
		t.Fatalf("resynced %d, want 2", c.Resynced)
	}
}
