package predict

import (
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/vecmath"
)

// tinyControl walks player p in a square, jumps now and then, and shoots
// at the next player as the client shows it every 20 ticks.
func tinyControl(p int) Control[tinyInput] {
	return func(t Tick, v *View) tinyInput {
		dirs := [...][2]float64{{1, 0}, {0, 1}, {-1, 0}, {0, -1}}
		d := dirs[(int(t)/45+p)%4]
		in := makeTinyInput(d[0], d[1], 0, 0, int(t)%97 == 0, false)
		target := (p + 1) % len(v.Present)
		if int(t)%20 == p && v.Present[target] {
			to := v.Bodies[target].Position.Sub(v.Own.Position)
			yaw := vecmath.Atan2(to.X, to.Z)
			pitch := vecmath.Atan2(to.Y, vecmath.V3(to.X, 0, to.Z).Length())
			in = makeTinyInput(d[0], d[1], yaw, pitch, false, true)
		}
		return in
	}
}

type tinyMatch struct {
	m       *simmatch.Match
	server  *Server[tinyInput, *tinyInput]
	clients []*Client[tinyInput, *tinyInput]
}

func newTinyMatch(t *testing.T, cfg Config, players int, c netsim.Conditions) *tinyMatch {
	t.Helper()
	srv, err := NewServer[tinyInput, *tinyInput](cfg, newTinyGame(players), simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 7, Conditions: c}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	tm := &tinyMatch{m: m, server: srv}
	for p := 0; p < players; p++ {
		cl, err := NewClient[tinyInput, *tinyInput](cfg, newTinyGame(players), tinyControl(p), simmatch.Epoch)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Join(cl); err != nil {
			t.Fatal(err)
		}
		tm.clients = append(tm.clients, cl)
	}
	return tm
}

func TestTinyMatchPredictsWithoutMispredictions(t *testing.T) {
	for _, c := range []netsim.Conditions{
		{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02},
		// Jitter beyond what the clock margin absorbs: inputs arrive late,
		// the server rewinds, and the states it already sent (and their
		// delta baselines) change under the clients.
		{Latency: 75 * time.Millisecond, Jitter: 40 * time.Millisecond, Loss: 0.1},
	} {
		tm := newTinyMatch(t, DefaultConfig(), 2, c)
		if err := tm.m.Run(20 * time.Second); err != nil {
			t.Fatal(err)
		}
		sc := tm.server.Counters()
		t.Logf("%+v: server %+v", c, sc)
		// Inputs later than MaxLate are rare on a fair link (the clients
		// run ahead), and the copies every packet repeats until the ack
		// are not counted again.
		if sc.InputsTooOld > 2 {
			t.Errorf("%d inputs later than the max late", sc.InputsTooOld)
		}
		for i, cl := range tm.clients {
			st := cl.Stats()
			t.Logf("client %d tick %d (server %d) delay %d: %+v", i, cl.Tick(), tm.server.Tick(), cl.Delay(), st)
			// The players never touch: every misprediction would be the
			// model's fault, but for a guessed input the server rewound
			// over after sending its guess.
			if st.Compared < 500 || st.BadPackets != 0 || st.Mispredicted > sc.Rewinds*uint64(tm.server.window) {
				t.Errorf("client %d: %+v", i, st)
			}
		}
	}
}

func TestClientReconcilesAndSmoothsAServerCorrection(t *testing.T) {
	tm := newTinyMatch(t, DefaultConfig(), 2, netsim.Conditions{Latency: 50 * time.Millisecond})
	if err := tm.m.Run(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	c := tm.clients[0]
	before := c.Stats()
	if before.Mispredicted != 0 {
		t.Fatalf("mispredicted before the correction: %+v", before)
	}
	// The authority moves player 0 a metre, as a push the client could
	// not foresee would.
	g := tm.server.Game()
	b := g.Body(0)
	b.Position.X++
	if err := g.SetBody(0, b); err != nil {
		t.Fatal(err)
	}
	for c.Stats().Reconciles == before.Reconciles || c.Stats().Mispredicted == 0 {
		if err := tm.m.Run(time.Second / 60); err != nil {
			t.Fatal(err)
		}
	}
	st := c.Stats()
	if st.Mispredicted != 1 || st.CorrectionMax < 0.9 || st.CorrectionMax > 1.1 {
		t.Fatalf("after the correction: %+v", st)
	}
	drawn := c.Rendered(nil)[0].Position
	predicted := c.Game().Body(0).Position
	if jump := predicted.Sub(drawn).Length(); jump < 0.5 {
		t.Fatalf("correction drawn at once: drawn %v, predicted %v", drawn, predicted)
	}
	if err := tm.m.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	if c.offset.Length() > 0.01 {
		t.Fatalf("correction still %v after a second", c.offset)
	}
	if st := c.Stats(); st.Mispredicted != 1 {
		t.Fatalf("mispredicted again after reconciling: %+v", st)
	}
}

func TestClientDropsGarbage(t *testing.T) {
	tm := newTinyMatch(t, DefaultConfig(), 1, netsim.Conditions{})
	if err := tm.m.Run(time.Second / 2); err != nil {
		t.Fatal(err)
	}
	c := tm.clients[0]
	for _, d := range [][]byte{nil, {0}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}} {
		if err := c.Receive(tm.m.Now(), d); err == nil {
			t.Fatalf("accepted %x", d)
		}
	}
	// A well-formed datagram of the connection whose payload is not a
	// state packet.
	ep, err := reliable.NewEndpoint(reliable.DefaultConfig(), tm.m.Now())
	if err != nil {
		t.Fatal(err)
	}
	_, ds, err := ep.SendPacket(tm.m.Now(), []byte{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Receive(tm.m.Now(), ds[0]); err == nil {
		t.Fatal("accepted a payload that is no state")
	}
	if c.Stats().BadPackets != 4 {
		t.Fatalf("stats %+v", c.Stats())
	}
}

// A client that starts behind the server's newest state (its process was
// busy while states queued up) predicts on from there instead of stalling.
func TestClientStartingBehindTheNewestStateCatchesUp(t *testing.T) {
	srv := testServer(t)
	var queued [][]byte
	send := func(_ int, d []byte) { queued = append(queued, append([]byte(nil), d...)) }
	now := t0
	for i := 0; i < 10; i++ {
		now = srv.deadline(srv.Tick())
		if err := srv.Update(now, send); err != nil {
			t.Fatal(err)
		}
	}
	c, err := NewClient[tinyInput, *tinyInput](DefaultConfig(), newTinyGame(2), tinyControl(0), t0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range queued {
		if err := c.Receive(now, d); err != nil {
			t.Fatal(err)
		}
	}
	if c.Tick() >= srv.Tick() {
		t.Fatalf("client at %d, server at %d: not behind", c.Tick(), srv.Tick())
	}
	for i := 0; i < 30; i++ {
		now = now.Add(time.Second / 60)
		if err := c.Update(now, func([]byte) {}); err != nil {
			t.Fatal(err)
		}
	}
	if st := c.Stats(); c.Tick() < srv.Tick()+20 || st.Stalls != 0 {
		t.Fatalf("client at %d after half a second, server at %d: %+v", c.Tick(), srv.Tick(), st)
	}
}

// A client far from the server starts with its inputs arriving later
// than MaxLate (before the first ack it guesses a 100 ms round trip):
// they are dropped, but their lateness still reaches the client in the
// lead reports, so it jumps its clock ahead and plays.
func TestAFarClientCatchesUpThoughItsFirstInputsAreTooLate(t *testing.T) {
	cfg := DefaultConfig()
	cfg.TickRate = 30
	tm := newTinyMatch(t, cfg, 2, netsim.Conditions{Latency: 150 * time.Millisecond, Loss: 0.1})
	if err := tm.m.Run(20 * time.Second); err != nil {
		t.Fatal(err)
	}
	sc := tm.server.Counters()
	t.Logf("server %+v", sc)
	if sc.InputsTooOld == 0 || sc.InputsTooOld > 100 || sc.InputsIdle > 100 || sc.Shots < 50 {
		t.Fatalf("server %+v", sc)
	}
	for i, cl := range tm.clients {
		if st := cl.Stats(); st.Compared < 400 {
			t.Errorf("client %d: %+v", i, st)
		}
	}
}
