package predict

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// rawClient sends hand-made input packets, as a forging client would.
type rawClient struct {
	ep  *reliable.Endpoint
	buf []byte
}

func newRawClient(t *testing.T) *rawClient {
	ep, err := reliable.NewEndpoint(reliable.DefaultConfig(), t0)
	if err != nil {
		t.Fatal(err)
	}
	return &rawClient{ep: ep, buf: make([]byte, 4096)}
}

// send delivers p to the server's slot at now.
func (r *rawClient) send(t *testing.T, s *Server[tinyInput, *tinyInput], now time.Time, slot int, p *inputPacket[tinyInput, *tinyInput]) error {
	t.Helper()
	w := wire.NewWriter(r.buf)
	if err := p.Serialize(w); err != nil {
		t.Fatal(err)
	}
	_, ds, err := r.ep.SendPacket(now, w.Bytes())
	if err != nil || len(ds) != 1 {
		t.Fatal(err, len(ds))
	}
	return s.Receive(now, slot, ds[0])
}

func inputs(first Tick, in ...tinyInput) *inputPacket[tinyInput, *tinyInput] {
	p := &inputPacket[tinyInput, *tinyInput]{first: first, count: len(in)}
	copy(p.inputs[:], in)
	return p
}

// testConfig is the default but for MaxLate: the whole window, so that
// the tests can rewind as far as the window goes.
func testConfig() Config {
	cfg := DefaultConfig()
	cfg.MaxLate = cfg.Window
	return cfg
}

// testServer is a 60 Hz server of the tiny game with player 0 joined,
// configured by testConfig.
func testServer(t *testing.T) *Server[tinyInput, *tinyInput] {
	t.Helper()
	s, err := NewServer[tinyInput, *tinyInput](testConfig(), newTinyGame(2), t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Join(t0, 0); err != nil {
		t.Fatal(err)
	}
	return s
}

// runTo steps s until its world is at tick n.
func runTo(t *testing.T, s *Server[tinyInput, *tinyInput], n Tick) time.Time {
	t.Helper()
	var now time.Time
	for s.Tick() < n {
		now = s.deadline(s.Tick())
		if err := s.Update(now, func(int, []byte) {}); err != nil {
			t.Fatal(err)
		}
	}
	return now
}

var right = tinyInput{MoveX: MoveMax}

func TestLateInputRewindsToTheSameStateAsOnTime(t *testing.T) {
	onTime, late := testServer(t), testServer(t)
	rc := newRawClient(t)
	if err := rc.send(t, onTime, t0, 0, inputs(5, right, right, right)); err != nil {
		t.Fatal(err)
	}
	runTo(t, onTime, 20)
	now := runTo(t, late, 20)
	rc = newRawClient(t)
	if err := rc.send(t, late, now, 0, inputs(5, right, right, right)); err != nil {
		t.Fatal(err)
	}
	runTo(t, late, 21)
	runTo(t, onTime, 21)
	c := late.Counters()
	if c.Rewinds != 1 || c.ResimTicks != 20-5 || c.InputsLate != 3 {
		t.Fatalf("counters %+v", c)
	}
	if a, b := late.Game().Body(0), onTime.Game().Body(0); a != b {
		t.Fatalf("rewound to %+v, on time %+v", a, b)
	}
	// The inputs from tick 8 on were guessed as the last one: still right.
	if late.Game().Body(0).Position.X <= float64(2*0)+1 {
		t.Fatalf("player did not move: %+v", late.Game().Body(0))
	}
}

func TestSameInputAsTheGuessNeedsNoRewind(t *testing.T) {
	s := testServer(t)
	now := runTo(t, s, 20)
	rc := newRawClient(t)
	if err := rc.send(t, s, now, 0, inputs(5, tinyInput{}, tinyInput{Yaw: 100})); err != nil {
		t.Fatal(err)
	}
	runTo(t, s, 22)
	if c := s.Counters(); c.Rewinds != 0 || c.InputsLate != 2 {
		t.Fatalf("counters %+v", c)
	}
}

func TestInputsOutsideTheWindowAreDroppedAndCounted(t *testing.T) {
	s := testServer(t)
	now := runTo(t, s, 100)
	window, ahead := Tick(s.window), Tick(s.ahead)
	rc := newRawClient(t)
	for _, p := range []*inputPacket[tinyInput, *tinyInput]{
		inputs(100-window-1, right),              // past the window
		inputs(100+ahead+1, right),               // too far ahead
		inputs(100-window-1+(1<<31), right),      // wrapped far away
		inputs(100+ahead-1, right, right, right), // the last one too far ahead
	} {
		if err := rc.send(t, s, now, 0, p); err != nil {
			t.Fatal(err)
		}
	}
	runTo(t, s, 101)
	c := s.Counters()
	if c.InputsTooOld != 1 || c.InputsTooNew != 3 || c.Rewinds != 0 || c.InputsLate != 0 {
		t.Fatalf("counters %+v", c)
	}
}

func TestRewindsNeverGoBeyondTheWindowNorTheBudget(t *testing.T) {
	s := testServer(t)
	rc := newRawClient(t)
	now := runTo(t, s, 200)
	// A client that sends, every tick, a changed input for the oldest tick
	// of the window: the worst it can do.
	for i := 0; i < 100; i++ {
		old := s.Tick() - Tick(s.window)
		in := tinyInput{MoveX: int8(i%2*100 - 50)}
		if err := rc.send(t, s, now, 0, inputs(old, in)); err != nil {
			t.Fatal(err)
		}
		now = runTo(t, s, s.Tick()+1)
	}
	c := s.Counters()
	budget := float64(s.window) + 100*s.cfg.ResimBudget
	if float64(c.ResimTicks) > budget || c.RewindsDenied == 0 {
		t.Fatalf("%d ticks re-simulated by %d rewinds (budget %v), %d refused", c.ResimTicks, c.Rewinds, budget, c.RewindsDenied)
	}
	if c.ResimTicks > c.Rewinds*uint64(s.window) {
		t.Fatalf("a rewind went beyond the window: %+v", c)
	}
}

func TestForgedInputsAreDroppedOrCappedAndCounted(t *testing.T) {
	s := testServer(t)
	rc := newRawClient(t)
	for _, forged := range []tinyInput{
		{MoveX: -128, MoveZ: -128}, // longer than a full move
		{MoveX: 127, MoveZ: 127},   // a diagonal speed hack
		{Pitch: math.MaxInt16},     // beyond the vertical
	} {
		// Serialize writes the bits a forging client would send; the
		// server's read rejects them.
		if err := rc.send(t, s, t0, 0, inputs(1, forged)); !errors.Is(err, wire.ErrInvalid) {
			t.Fatalf("%+v: %v", forged, err)
		}
	}
	// Lag compensation beyond the cap is judged at the cap.
	if err := rc.send(t, s, t0, 0, inputs(1, tinyInput{Shoot: true, Behind: 255, Yaw: 1 << 14})); err != nil {
		t.Fatal(err)
	}
	c := s.Counters()
	if c.BadPackets != 3 || c.BehindClamped != 1 || c.Packets != 1 || s.frameAt(1).inputs[0].Behind != 255 {
		t.Fatalf("counters %+v", c)
	}
}

func TestMalformedInputPacketsAreDroppedAndCounted(t *testing.T) {
	s := testServer(t)
	rc := newRawClient(t)
	good := encodeInputPacket(t, inputs(1, right, right))
	for _, payload := range [][]byte{good[:len(good)-1], append(good, 0xff), {}} {
		_, ds, err := rc.ep.SendPacket(t0, payload)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Receive(t0, 0, ds[0]); err == nil {
			t.Fatalf("accepted payload %x", payload)
		}
	}
	if c := s.Counters(); c.BadPackets != 3 || c.Packets != 0 || s.frameAt(1).received[0] {
		t.Fatalf("counters %+v", c)
	}
}

func TestInputFloodIsRateLimited(t *testing.T) {
	s := testServer(t)
	rc := newRawClient(t)
	var floods int
	for i := 0; i < 1000; i++ {
		if err := rc.send(t, s, t0, 0, inputs(1, right)); errors.Is(err, ErrFlood) {
			floods++
		}
	}
	c := s.Counters()
	if floods < 1000-packetBurst || c.FloodPackets != uint64(floods) || c.Packets > packetBurst {
		t.Fatalf("%d refused, counters %+v", floods, c)
	}
}

func TestHitsAreCommittedWhenTheyLeaveTheWindow(t *testing.T) {
	s := testServer(t)
	if err := s.Join(t0, 1); err != nil {
		t.Fatal(err)
	}
	rc := newRawClient(t)
	// Player 0 spawns at x = 0 and player 1 at x = 2: shoot along +X.
	shot := tinyInput{Shoot: true, Yaw: 1 << 14}
	if err := rc.send(t, s, t0, 0, inputs(3, shot)); err != nil {
		t.Fatal(err)
	}
	runTo(t, s, 3+Tick(s.window))
	if got := s.TakeCommitted(nil); len(got) != 0 {
		t.Fatalf("committed %v inside the window", got)
	}
	runTo(t, s, 3+Tick(s.window)+1)
	got := s.TakeCommitted(nil)
	if len(got) != 1 || got[0] != (Hit{Tick: 3, Shooter: 0, Target: 1}) {
		t.Fatalf("committed %v", got)
	}
}

func TestLagCompensationAimsAtThePast(t *testing.T) {
	s := testServer(t)
	if err := s.Join(t0, 1); err != nil {
		t.Fatal(err)
	}
	rc, rc1 := newRawClient(t), newRawClient(t)
	// Player 1 walks away along +Z from tick 14; at tick 30 it is 1.07 m
	// from where player 0 aims (along +X, at its spawn).
	if err := rc1.send(t, s, t0, 1, inputs(14, tinyInput{MoveZ: MoveMax})); err != nil {
		t.Fatal(err)
	}
	now := runTo(t, s, 29)
	shotNow := tinyInput{Shoot: true, Yaw: 1 << 14}
	shotPast := tinyInput{Shoot: true, Yaw: 1 << 14, Behind: 17}
	if err := rc.send(t, s, now, 0, inputs(30, shotNow, shotPast)); err != nil {
		t.Fatal(err)
	}
	runTo(t, s, 33+Tick(s.window))
	got := s.TakeCommitted(nil)
	if len(got) != 1 || got[0].Tick != 31 {
		t.Fatalf("committed %v, want only the shot that looked 17 ticks back", got)
	}
}

func TestLeaveParksThePlayerAndRejoinStartsClean(t *testing.T) {
	s := testServer(t)
	rc := newRawClient(t)
	if err := rc.send(t, s, t0, 0, inputs(1, right, right)); err != nil {
		t.Fatal(err)
	}
	runTo(t, s, 10)
	s.Leave(t0, 0)
	runTo(t, s, 11)
	if s.Present(0) || s.Game().Body(0).Position.Y != -10 {
		t.Fatalf("left player still in: %+v", s.Game().Body(0))
	}
	if err := s.Receive(t0, 0, []byte{1, 2, 3}); !errors.Is(err, ErrSlot) {
		t.Fatalf("datagram from a left slot: %v", err)
	}
	if err := s.Join(t0, 0); err != nil {
		t.Fatal(err)
	}
	runTo(t, s, 20)
	if b := s.Game().Body(0); !s.Present(0) || b.Position.X != 0 {
		t.Fatalf("rejoined player moved by the old client's inputs: %+v", b)
	}
	if err := s.Join(t0, 0); !errors.Is(err, ErrJoined) {
		t.Fatalf("joined twice: %v", err)
	}
}

// watchedGame is the tiny game that records the steps made while
// re-simulating; escapingGame adds putting an escaped body back at the
// origin, at rest.
type watchedGame struct {
	*tinyGame
	resim      bool
	resimSteps int
	escaped    []int
}

func (g *watchedGame) Resimulating(on bool) { g.resim = on }
func (g *watchedGame) Step(in []tinyInput) {
	if g.resim {
		g.resimSteps++
	}
	g.tinyGame.Step(in)
}

type escapingGame struct{ *watchedGame }

func (g escapingGame) Escaped(i int, err error) {
	g.escaped = append(g.escaped, i)
	g.s.bodies[i] = wire.BodyState{Rotation: vecmath.QuatIdentity, AtRest: true}
}

func TestTheGameKnowsWhichStepsAreResimulated(t *testing.T) {
	g := &watchedGame{tinyGame: newTinyGame(2)}
	s, err := NewServer[tinyInput](DefaultConfig(), g, t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Join(t0, 0); err != nil {
		t.Fatal(err)
	}
	now := runTo(t, s, 20)
	if g.resimSteps != 0 {
		t.Fatalf("%d steps re-simulated before any late input", g.resimSteps)
	}
	rc := newRawClient(t)
	if err := rc.send(t, s, now, 0, inputs(15, right)); err != nil {
		t.Fatal(err)
	}
	runTo(t, s, 21)
	if c := s.Counters(); c.Rewinds != 1 || g.resimSteps != 5 || g.resim {
		t.Fatalf("%d steps re-simulated, still resimulating %v: %+v", g.resimSteps, g.resim, c)
	}
}

func TestABodyOutsideTheSpecIsAnErrorOrPutBackNeverClamped(t *testing.T) {
	for _, escaper := range []bool{false, true} {
		w := &watchedGame{tinyGame: newTinyGame(2)}
		var g Game[tinyInput] = w
		if escaper {
			g = escapingGame{w}
		}
		s, err := NewServer[tinyInput](DefaultConfig(), g, t0)
		if err != nil {
			t.Fatal(err)
		}
		runTo(t, s, 5)
		// The ball flies off at 100 m/s, beyond the spec's ±32 m/s.
		w.s.bodies[2].LinearVelocity = vecmath.V3(100, 0, 0)
		err = s.Update(s.deadline(s.Tick()), func(int, []byte) {})
		c := s.Counters()
		switch {
		case !escaper && (!errors.Is(err, ErrOutOfSpec) || c.OutOfSpec != 1):
			t.Fatalf("without an Escaper: %v, %+v", err, c)
		case escaper && (err != nil || c.OutOfSpec != 1 || len(w.escaped) != 1 || w.escaped[0] != 2):
			t.Fatalf("with an Escaper: %v, %+v, escaped %v", err, c, w.escaped)
		case escaper && s.Game().Body(2).Position != (vecmath.Vec3{}):
			t.Fatalf("escaped ball left at %v", s.Game().Body(2).Position)
		}
	}
}

// lagCompServer is a tiny-game server with both players in; player 1
// walks away along +Z from tick 14, so that a shot along +X from player
// 0's spawn hits it only if judged at tick 14 or before (at tick 22 it is
// 0.53 m from the aim, beyond its 0.5 m radius).
func lagCompServer(t *testing.T, cfg Config) *Server[tinyInput, *tinyInput] {
	t.Helper()
	s, err := NewServer[tinyInput](cfg, newTinyGame(2), t0)
	if err != nil {
		t.Fatal(err)
	}
	for p := 0; p < 2; p++ {
		if err := s.Join(t0, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := newRawClient(t).send(t, s, t0, 1, inputs(14, tinyInput{MoveZ: MoveMax})); err != nil {
		t.Fatal(err)
	}
	return s
}

// Issue 21, case 6: shots stamped long before they arrive, claiming the
// whole cap, used to be judged the cap before their stamp: window + cap
// in all. The rewind a shot gets is now capped from the server's tick.
func TestLateShotsAreNeverJudgedFurtherBackThanTheCapFromTheServersTick(t *testing.T) {
	cfg := testConfig()
	cap := cfg.ticks(cfg.MaxRewind) // 18 ticks
	// Twenty shots stamped 13..32, each claiming the full cap (so judged
	// at ticks up to 14, where the target still stood), sent at tick 70:
	// 38 to 57 ticks late, inside the window.
	s := lagCompServer(t, cfg)
	now := runTo(t, s, 70)
	var shots []tinyInput
	for i := 0; i < 20; i++ {
		shots = append(shots, tinyInput{Shoot: true, Yaw: 1 << 14, Behind: uint8(cap)})
	}
	if err := newRawClient(t).send(t, s, now, 0, inputs(13, shots...)); err != nil {
		t.Fatal(err)
	}
	runTo(t, s, 72+Tick(s.window))
	got := s.TakeCommitted(nil)
	if c := s.Counters(); len(got) != 0 || c.ShotsTooLate != 20 || c.InputsLate != 20 {
		t.Fatalf("committed %v; %+v", got, c)
	}
	// A shot stamped 30 that arrives at tick 40 claiming the cap is judged
	// 18 ticks before 40, at 22, not at 12: a miss.
	s = lagCompServer(t, cfg)
	now = runTo(t, s, 40)
	if err := newRawClient(t).send(t, s, now, 0, inputs(30, tinyInput{Shoot: true, Yaw: 1 << 14, Behind: uint8(cap)})); err != nil {
		t.Fatal(err)
	}
	runTo(t, s, 42+Tick(s.window))
	if got, c := s.TakeCommitted(nil), s.Counters(); len(got) != 0 || c.BehindClamped != 1 || c.Shots != 1 {
		t.Fatalf("committed %v; %+v", got, c)
	}
	// The same shot sent on time, claiming 16 ticks, is judged at 14: a hit.
	s = lagCompServer(t, cfg)
	if err := newRawClient(t).send(t, s, t0, 0, inputs(30, tinyInput{Shoot: true, Yaw: 1 << 14, Behind: 16})); err != nil {
		t.Fatal(err)
	}
	runTo(t, s, 32+Tick(s.window))
	if got := s.TakeCommitted(nil); len(got) != 1 || got[0] != (Hit{Tick: 30, Shooter: 0, Target: 1}) {
		t.Fatalf("on time: committed %v", got)
	}
}

// Issue 21, case 9: a player whose client went silent (dead, not yet
// timed out) used to run on with its last controls until the timeout.
// Now its ghost repeats them for Grace, then stands still.
func TestASilentPlayersGhostStopsAfterTheGrace(t *testing.T) {
	s := testServer(t)
	held := make([]tinyInput, 30)
	for i := range held {
		held[i] = right
	}
	if err := newRawClient(t).send(t, s, t0, 0, inputs(1, held...)); err != nil {
		t.Fatal(err)
	}
	grace := Tick(s.grace) // 15 ticks
	runTo(t, s, 31)
	last := s.Game().Body(0).Position
	runTo(t, s, 31+grace)
	coasted := s.Game().Body(0).Position
	runTo(t, s, 31+grace+1)
	stopped := s.Game().Body(0).Position
	runTo(t, s, 600)
	if end := s.Game().Body(0).Position; coasted.X <= last.X || end != stopped || stopped.X-last.X > float64(grace+1)*tinySpeed*tinyDT+1e-9 {
		t.Fatalf("last input at x = %v, %v after the grace, %v a tick later, %v ten seconds later", last.X, coasted.X, stopped.X, end.X)
	}
	if c := s.Counters(); c.InputsIdle != 600-31-uint64(grace) {
		t.Fatalf("counters %+v", c)
	}
}

func TestRefusalsNameEveryCounterOnce(t *testing.T) {
	c := ServerCounters{BadPackets: 1, FloodPackets: 2, InputsTooOld: 3, InputsTooNew: 4, RewindsDenied: 5,
		ShotsTooLate: 6, BehindClamped: 7, ShotsRefused: 8, InputsIdle: 9}
	seen := map[string]bool{}
	var sum uint64
	for _, r := range c.Refusals(nil) {
		if seen[r.Reason] || r.Reason == "" {
			t.Fatalf("reason %q twice or empty", r.Reason)
		}
		seen[r.Reason] = true
		sum += r.Count
	}
	if len(seen) != 9 || sum != 45 {
		t.Fatalf("%d reasons summing to %d", len(seen), sum)
	}
}
