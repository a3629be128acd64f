package lockstep

import (
	"errors"
	"testing"
	"time"
)

// TestUnreadableJoinerIsRefusedWithTheReason: a client set up for 2
// players knocking at a running 4-player session with a free seat (late
// join on) sends messages the server cannot read. The client stops with
// an error naming both counts; the server lets it go after Timeout as a
// refused late joiner with the reason, not as the player who left that
// slot before it ("left the session"), so that the driver counts it and
// tells it why.
func TestUnreadableJoinerIsRefusedWithTheReason(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxSnapshotBytes = 1 << 20
	srv, m, slots := runningJoinable(t, cfg, true)
	m.Leave(slots[3])
	if err := m.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	two := cfg
	two.Players = 2
	c, err := NewClient[stick](two, newJoinable(2), bot(0), m.Now())
	if err != nil {
		t.Fatal(err)
	}
	odd := &player{Client: c}
	slot, err := m.Join(odd)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(cfg.Timeout - 500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if _, _, done := srv.Released(slot); done {
		t.Fatal("the joiner was let go before Timeout")
	}
	reason := refusedWith(t, srv, m, slot, "sent no message it could read for 10s")
	if !errors.Is(odd.err, ErrConfig) {
		t.Fatalf("the 2-player client ended with %v", odd.err)
	}
	if st := srv.Stats(m.Now()); st.LateJoins != 0 || st.Joining != 0 || st.Disconnected != 0 {
		t.Fatalf("server: %d late joins, %d joining, %d dropped", st.LateJoins, st.Joining, st.Disconnected)
	}
	t.Log(reason)
}
