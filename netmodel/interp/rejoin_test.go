package interp_test

import (
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/wire/snapshot"
)

// TestClientBackGetsTheWorldAtOnce: at 10 snapshots a second, client 1's
// process dies and comes back (a new client, the same id) between two
// snapshots. The server sends it the newest snapshot, coded whole, at
// its next Update instead of up to 100 ms later, and nothing more to
// client 0; the client back draws the server's world.
func TestClientBackGetsTheWorldAtOnce(t *testing.T) {
	const n, frame = 6, time.Second / 60
	cfg := interp.DefaultConfig()
	cfg.PPS = 10
	srv, err := interp.NewServer(cfg, &orbits{n: n}, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 5, Conditions: netsim.Conditions{Latency: 40 * time.Millisecond}}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	client := func() *interp.Client {
		c, err := interp.NewClient(cfg, n, m.Now())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if _, err := m.Join(client()); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Join(client()); err != nil {
		t.Fatal(err)
	}
	run := func(d time.Duration) {
		t.Helper()
		if err := m.Run(d); err != nil {
			t.Fatal(err)
		}
	}
	run(2 * time.Second)
	m.Crash(1)
	run(time.Second)
	id := m.ClientID(1)
	m.Leave(1)
	// Two frames past a snapshot: the next is 4 frames away.
	run(2 * frame)
	if srv.Tick()%6 != 2 {
		t.Fatalf("tick %d: the test wants to join two ticks past a snapshot", srv.Tick())
	}
	back := client()
	if slot, err := m.JoinID(back, id); err != nil || slot != 1 {
		t.Fatalf("came back in slot %d: %v", slot, err)
	}
	before := m.Traffic(0).DownPackets
	run(frame)
	if got := m.Traffic(1).DownPackets; got != 1 || m.Traffic(0).DownPackets != before {
		t.Fatalf("in the frame after the return: %d packets to the client back (want 1), %d more to client 0 (want 0)", got, m.Traffic(0).DownPackets-before)
	}
	run(time.Second)
	truth := make([]snapshot.Cube, n)
	for range 120 {
		run(frame)
		view, tick, ok := back.View()
		if !ok {
			t.Fatalf("the client back draws nothing a second after its return: %+v", back.Counters())
		}
		orbitState(n, tick, truth)
		for k := range view {
			if e := view[k].Position.Sub(truth[k].Position).Length(); e > 0.1 {
				t.Fatalf("the client back draws object %d %.3f m from the truth at tick %.2f", k, e, tick)
			}
		}
	}
	if c := back.Counters(); c.Dropped != 0 || c.Snapshots < 20 {
		t.Fatalf("the client back: %+v", c)
	}
}
