package statesync

import (
	"errors"
	"testing"
	"time"
)

// TestFloodIsRefusedUnread: the hostile guest sends a hundred packets a
// frame, each with its avatar. The host read every one (a decode, the
// avatar judged, every claim judged and queued for playback): a hundred
// times an honest guest's work, bought with a few kilobytes. It now
// reads at most floodBurst at once and floodRate a step, and counts the
// rest as a flood; the honest guests play on.
func TestFloodIsRefusedUnread(t *testing.T) {
	cfg := DefaultConfig()
	host, _, m, _, _, x := hostileMatch(t, cfg)
	if err := m.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	x.attack = func(x *hostile) []packet { return make([]packet, 100) }
	before, steps := host.Counters(), host.Tick()
	if err := m.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	c := host.Counters()
	stepped := int(host.Tick() - steps)
	// the two honest guests' packets and digests, and what the hostile may send
	most := 2*(stepped+10) + floodBurst + floodRate*stepped
	if got := int(c.PacketsReceived - before.PacketsReceived); got > most {
		t.Errorf("the host read %d packets in %d steps, more than %d", got, stepped, most)
	}
	if c.Flood-before.Flood < uint64(90*stepped) {
		t.Errorf("%d datagrams counted as a flood in %d steps of 100", c.Flood-before.Flood, stepped)
	}
	if err := host.Receive(m.Now(), 2, []byte{0}); !errors.Is(err, ErrFlood) {
		t.Errorf("a datagram over the rate: %v, want ErrFlood", err)
	}
	// honest guests are never refused
	for slot := range 2 {
		if n := host.Implausible(slot); n != 0 {
			t.Errorf("guest %d: %d implausible", slot+1, n)
		}
	}
}
