package predict

import (
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/vecmath"
)

// flat is a position on the ground plane: what the zero input keeps
// still in the tiny game (a jump in the air still lands).
func flat(v vecmath.Vec3) vecmath.Vec3 { return vecmath.V3(v.X, 0, v.Z) }

// watch runs the match for d, a frame at a time, and returns the largest
// step between two frames of body b as client c draws it.
func watch(t *testing.T, m *simmatch.Match, c *Client[tinyInput, *tinyInput], b int, d time.Duration) float64 {
	t.Helper()
	var last vecmath.Vec3
	jump := 0.0
	for i := range int(d / (time.Second / 60)) {
		if err := m.Run(time.Second / 60); err != nil {
			t.Fatal(err)
		}
		at := c.Rendered(nil)[b].Position
		if i > 0 {
			jump = max(jump, at.Sub(last).Length())
		}
		last = at
	}
	return jump
}

// TestPlayerComesBackToItsCharacter: four player characters, three
// clients at 60 ms and 2 % loss. Player 1's process dies 5 s in
// (Crash): the server guesses its controls for Grace, then it stands;
// 2 s later netcode's timeout makes it a Leave, and the character waits
// where it stands. A stranger joining meanwhile takes the free
// character 3, not the waiting one. Player 1 comes back with its client
// id on another slot 4 s later and gets character 1 back where it
// stood, without a spawn; player 0 draws it moving no further per frame
// than a player walks (no pop), and never stalls.
func TestPlayerComesBackToItsCharacter(t *testing.T) {
	cfg := DefaultConfig()
	// A fourth character, free.
	srv, err := NewServer[tinyInput, *tinyInput](cfg, newTinyGame(4), simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 7, Conditions: netsim.Conditions{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.02}}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	client := func(p int) *Client[tinyInput, *tinyInput] {
		c, err := NewClient[tinyInput, *tinyInput](cfg, newTinyGame(4), tinyControl(p), m.Now())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	var cs []*Client[tinyInput, *tinyInput]
	for p := range 3 {
		cs = append(cs, client(p))
		if _, err := m.Join(cs[p]); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("before: player 0 draws character 1 jump at most %.3f m in a frame", watch(t, m, cs[0], 1, 4*time.Second))
	g := srv.Game()
	m.Crash(1)
	if err := m.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	// Past Grace the server has it stand: its position holds.
	stood := flat(g.Body(1).Position)
	if err := m.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	if d := flat(g.Body(1).Position).Sub(stood).Length(); d != 0 {
		t.Fatalf("the silent player's character moved %.3f m after the grace", d)
	}
	id := m.ClientID(1)
	m.Leave(1)
	if err := m.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	stranger := client(3)
	if slot, err := m.Join(stranger); err != nil || slot != 1 {
		t.Fatalf("the stranger joined slot %d: %v", slot, err)
	}
	if p, _ := srv.Player(1); p != 3 || !srv.Waiting(1) || !srv.Present(1) {
		t.Fatalf("the stranger in slot 1 plays character %d; character 1 waiting %v, present %v", p, srv.Waiting(1), srv.Present(1))
	}
	if err := m.Run(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	if d := flat(g.Body(1).Position).Sub(stood).Length(); d != 0 {
		t.Fatalf("the waiting character moved %.3f m", d)
	}
	back := client(1)
	slot, err := m.JoinID(back, id)
	if err != nil || slot != 3 {
		t.Fatalf("came back in slot %d: %v", slot, err)
	}
	if p, _ := srv.Player(3); p != 1 || srv.Waiting(1) {
		t.Fatalf("the client back in slot 3 plays character %d, waiting %v", p, srv.Waiting(1))
	}
	// Spawned, the character would start at (2, 0, 0); it goes on from
	// where it stood.
	jump := watch(t, m, cs[0], 1, time.Second/6)
	if d := flat(g.Body(1).Position).Sub(stood).Length(); d > 10*tinySpeed/60 {
		t.Fatalf("the character is %.2f m from where it stood, 10 ticks after its player came back", d)
	}
	jump = max(jump, watch(t, m, cs[0], 1, 4*time.Second))
	if back.You() != 1 || flat(g.Body(1).Position).Sub(stood).Length() < 1 {
		t.Fatalf("the client back plays %d; the character is %v, stood at %v", back.You(), g.Body(1).Position, stood)
	}
	// Walking at 4 m/s is 7 cm a tick. The client back starts its clock
	// afresh, and its first inputs may come late: the server rewinds for
	// them, as for anyone's late inputs, rewriting at most MaxLate of
	// history, which player 0 sees as a correction of that much walking.
	// A spawn would move it metres.
	t.Logf("around the return: %.3f m in a frame", jump)
	if limit := float64(srv.late+1) * tinySpeed / 60; jump > limit {
		t.Fatalf("player 0 drew character 1 jump %.2f m in a frame around its return, more than %.2f", jump, limit)
	}
	c := srv.Counters()
	st, bs := cs[0].Stats(), back.Stats()
	t.Logf("server %+v; player 0 %+v; back %+v", c, st, bs)
	if c.Rejoins != 1 || c.Expired != 0 || st.Stalls != 0 || bs.Compared < 100 || bs.Mispredicted > 5 {
		t.Fatalf("rejoins %d, expired %d; player 0 stalled %d ticks; the player back compared %d ticks, %d mispredicted",
			c.Rejoins, c.Expired, st.Stalls, bs.Compared, bs.Mispredicted)
	}
}

// TestLeftCharacterStandsThenLeavesAfterTheGrace: a client that leaves
// cleanly (its inputs for the ticks ahead already at the server) stops
// moving at once: its character does not run on on its old controls.
// It does not come back: the character leaves the world at the end of
// the grace, and a new client then gets it, spawned afresh.
func TestLeftCharacterStandsThenLeavesAfterTheGrace(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RejoinGrace = 5 * time.Second
	tm := newTinyMatch(t, cfg, 2, netsim.Conditions{Latency: 50 * time.Millisecond})
	if err := tm.m.Run(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	g := tm.server.Game()
	tm.m.Leave(1)
	// The tick the Leave came in is stepped with what it had.
	if err := tm.m.Run(time.Second / 30); err != nil {
		t.Fatal(err)
	}
	at := flat(g.Body(1).Position)
	if err := tm.m.Run(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	if d := flat(g.Body(1).Position).Sub(at).Length(); d != 0 || !tm.server.Waiting(1) || !tm.server.Present(1) {
		t.Fatalf("after its player left, character 1 moved %.3f m; waiting %v, present %v", d, tm.server.Waiting(1), tm.server.Present(1))
	}
	if err := tm.m.Run(3500 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if tm.server.Waiting(1) || tm.server.Present(1) || tm.server.Counters().Expired != 1 {
		t.Fatalf("after the grace: waiting %v, present %v, %+v", tm.server.Waiting(1), tm.server.Present(1), tm.server.Counters())
	}
	c, err := NewClient[tinyInput, *tinyInput](cfg, newTinyGame(2), tinyControl(1), tm.m.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tm.m.JoinID(c, tm.m.ClientID(1)); err != nil {
		t.Fatal(err)
	}
	if err := tm.m.Run(time.Second / 30); err != nil {
		t.Fatal(err)
	}
	if p, _ := tm.server.Player(1); p != 1 || !tm.server.Present(1) || tm.server.Counters().Rejoins != 0 {
		t.Fatalf("too late: plays %d, present %v, %+v", p, tm.server.Present(1), tm.server.Counters())
	}
}

// TestFullWhileACharacterWaits: with every character played or waiting,
// a stranger is refused, naming the waiting one.
func TestFullWhileACharacterWaits(t *testing.T) {
	tm := newTinyMatch(t, DefaultConfig(), 2, netsim.Conditions{})
	if err := tm.m.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	tm.m.Leave(0)
	c, err := NewClient[tinyInput, *tinyInput](DefaultConfig(), newTinyGame(2), tinyControl(0), tm.m.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tm.m.Join(c); err == nil || err.Error() != "predict: every player's character is taken: 1 players in play, 1 characters waiting for their players to come back (at most 30s after they left)" {
		t.Fatalf("joined a full match: %v", err)
	}
}
