package lockstep

import (
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netsim"
)

// TestHoardingSpectatorIsNotSprayed: a spectator joins a running
// refereed session whose state takes 98 chunks, keeps sending its
// messages, and acknowledges none of the chunks. The server sends a
// chunk again only some time after it last sent it, twice as long with
// each try, and lets a spectator go whose snapshot acknowledgement has
// not moved for Timeout. Before, it cycled SnapshotBurst chunks (16 kB)
// to it every Update for as long as it kept talking: about 1 MB/s from
// one connection, for ever (players joining this way were dropped after
// Timeout; spectators never).
func TestHoardingSpectatorIsNotSprayed(t *testing.T) {
	const players, seconds = 2, 40
	cfg := DefaultConfig()
	cfg.Players = players
	srv, ref, m := refereedMatch(t, &cfg, 100_000, netsim.Config{Seed: 1, Conditions: netsim.Conditions{Latency: 20 * time.Millisecond}})
	for p := range players {
		g := newJoinable(players)
		g.pad = ref.pad
		c, err := NewClient[stick](cfg, g, bot(p), m.Now())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Join(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Run(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	g := newJoinable(players)
	g.pad = ref.pad
	spec, err := NewSpectator[stick](cfg, g, m.Now())
	if err != nil {
		t.Fatal(err)
	}
	spec.hoard = true
	slot, err := m.Join(spec)
	if err != nil {
		t.Fatal(err)
	}
	var released time.Duration
	for range (seconds - 2) * 60 {
		if err := m.Run(time.Second / 60); err != nil {
			t.Fatalf("at %v: %v", m.Elapsed(), err)
		}
		if code, reason, done := srv.Released(slot); done && released == 0 {
			released = m.Elapsed()
			t.Logf("at %v: %s: %s", released, code, reason)
			m.Leave(slot)
		}
	}
	down := m.Traffic(slot).DownBytes
	state, _ := ref.MarshalState()
	t.Logf("the spectator was sent %d kB in %d s (its snapshot is %d kB); let go at %v", down/1000, seconds-2, len(state)/1000, released)
	if released == 0 || released > 2*time.Second+cfg.Timeout+time.Second {
		t.Fatalf("the hoarding spectator was let go at %v", released)
	}
	// Each chunk of the window goes at 0, one round trip, 3, 7, 15 ...,
	// then every maxChunkWait: about 10 times in the 10 s of Timeout.
	if limit := uint64(12 * snapWindow * (snapshotChunk + 64)); down > limit {
		t.Fatalf("the hoarding spectator was sent %d bytes, more than 12 times the %d chunks in flight (%d)", down, snapWindow, limit)
	}
	if st := srv.Stats(m.Now()); st.WatchersDropped != 1 || st.Players[0].Reason != ReasonNone || st.Players[1].Reason != ReasonNone {
		t.Fatalf("%d spectators dropped, players' reasons %v and %v", st.WatchersDropped, st.Players[0].Reason, st.Players[1].Reason)
	}
}
