package predict

import (
	"errors"
	"testing"
)

// TestReconnectingResetsNoLimit: a client that leaves and comes back with
// its client id every 10 ticks (netcode lets it reconnect with the same
// token in a round trip or two) gets its character back, and with it
// what it had left of its rewind budget and of its packet rate, not a
// fresh bucket of each. It sends, every tick, a changed input for the
// oldest tick of the window (the costliest rewind) and, after each
// return, a burst of packets. Before, each return refilled both: the
// server re-simulated a whole window every 10 ticks (about 12 times the
// ResimBudget) and took a burst of packets per return.
func TestReconnectingResetsNoLimit(t *testing.T) {
	s, err := NewServer[tinyInput, *tinyInput](testConfig(), newTinyGame(2), t0)
	if err != nil {
		t.Fatal(err)
	}
	const id = 77
	if err := s.JoinClient(t0, 0, id); err != nil {
		t.Fatal(err)
	}
	now := runTo(t, s, 200)
	start := s.Counters()
	rc := newRawClient(t)
	const ticks, every = 300, 10
	for i := range ticks {
		if i%every == every-1 {
			s.Leave(now, 0)
			if err := s.JoinClient(now, 0, id); err != nil {
				t.Fatal(err)
			}
			if !s.Present(0) || s.Waiting(0) {
				t.Fatalf("tick %d: the character did not come back to its client", s.Tick())
			}
			rc = newRawClient(t)
			for range 2 * packetBurst {
				if err := rc.send(t, s, now, 0, inputs(s.Tick(), right)); err != nil && !errors.Is(err, ErrFlood) {
					t.Fatal(err)
				}
			}
		}
		old := s.Tick() - Tick(s.window)
		in := tinyInput{MoveX: int8(i%2*100 - 50)}
		if err := rc.send(t, s, now, 0, inputs(old, in)); err != nil && !errors.Is(err, ErrFlood) {
			t.Fatal(err)
		}
		now = runTo(t, s, s.Tick()+1)
	}
	c := s.Counters()
	resim := c.ResimTicks - start.ResimTicks
	packets := c.Packets - start.Packets
	budget := float64(s.window) + ticks*s.cfg.ResimBudget
	rate := packetBurst + ticks*packetRate
	t.Logf("%d returns: %d ticks re-simulated (budget %v), %d rewinds refused; %d packets taken (limit %d), %d refused",
		ticks/every, resim, budget, c.RewindsDenied-start.RewindsDenied, packets, rate, c.FloodPackets-start.FloodPackets)
	if float64(resim) > budget || c.RewindsDenied == start.RewindsDenied {
		t.Fatalf("%d ticks re-simulated in %d ticks, the budget allows %v", resim, ticks, budget)
	}
	if packets > uint64(rate) {
		t.Fatalf("%d packets taken in %d ticks, the rate limit allows %d", packets, ticks, rate)
	}
}
