package scene

import (
	"errors"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/transport/netsim"
)

func TestOnePlayerSceneIsNew(t *testing.T) {
	a, _ := New(Pyramid10, DefaultConfig())
	b, err := NewLockstep(Pyramid10, DefaultConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	for tick := range 120 {
		a.Step(PlayMinute.At(tick))
		b.Step([]Input{PlayMinute.At(tick)})
		if a.Checksum() != b.Checksum() {
			t.Fatalf("tick %d: the one-player lockstep game differs from the scene", tick)
		}
	}
}

func TestTurnedScripts(t *testing.T) {
	in := Input{Up: true, Z: true}
	want := []Input{{Up: true, Z: true}, {Down: true, Z: true}, {Left: true, Z: true}, {Right: true, Z: true}}
	for p, w := range want {
		if got := (Script{{Ticks: 1, Input: in}}).Turned(p).At(0); got != w {
			t.Errorf("player %d: %+v, want %+v", p, got, w)
		}
	}
	// Every player starts on its own side and its script drives it toward
	// the centre.
	s, err := NewPlayers(Tower20, DefaultConfig(), 4)
	if err != nil {
		t.Fatal(err)
	}
	var before [MaxPlayers]float64
	for p, id := range s.Players {
		before[p] = s.State(id).Position.Length()
	}
	inputs := make([]Input, 4)
	for range 60 {
		for p := range inputs {
			inputs[p] = PlayerScript(p).At(0)
		}
		s.StepPlayers(inputs)
	}
	for p, id := range s.Players {
		if d := s.State(id).Position.Length(); d > before[p]-1 {
			t.Errorf("player %d: %.1f m from the centre after 1 s, started at %.1f", p, d, before[p])
		}
	}
}

// TestFourPlayersCubeWorld plays 4 players of the cube world (the small
// pyramid layout, to keep the test fast) over 100 ms RTT and 1 % loss,
// in lockstep and in rollback, and requires every client's reported
// checksums to equal the same bots played offline.
func TestFourPlayersCubeWorld(t *testing.T) {
	const players = 4
	for _, cfg := range []lockstep.Config{lockstep.DefaultConfig(), lockstep.DefaultRollbackConfig()} {
		srv, err := lockstep.NewServer[Input](cfg, simmatch.Epoch)
		if err != nil {
			t.Fatal(err)
		}
		cond := netsim.Conditions{Latency: 50 * time.Millisecond, Loss: 0.01}
		m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 9, Conditions: cond}}, srv)
		if err != nil {
			t.Fatal(err)
		}
		var clients []*lockstep.Client[Input, *Input]
		for range players {
			g, err := NewLockstep(Pyramid10, DefaultConfig(), players)
			if err != nil {
				t.Fatal(err)
			}
			c, err := lockstep.NewClient[Input](cfg, g, LockstepBot(), simmatch.Epoch)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Join(c); err != nil {
				t.Fatal(err)
			}
			clients = append(clients, c)
		}
		if err := m.Run(4 * time.Second); err != nil {
			t.Fatal(err)
		}
		ref, _ := NewLockstep(Pyramid10, DefaultConfig(), players)
		sums := map[lockstep.Tick]uint32{}
		inputs := make([]Input, players)
		for tick := lockstep.Tick(0); tick < clients[0].Tick()+60; tick++ {
			for p := range inputs {
				inputs[p] = PlayerBot(p)(tick)
			}
			ref.Step(inputs)
			sums[tick] = uint32(ref.Checksum())
		}
		for i, c := range clients {
			s := c.Stats()
			if s.Checksums < 3 || s.LastChecksum != sums[s.LastChecksumTick] {
				t.Fatalf("rollback %d, client %d: %d checksums, last of tick %d is %#x, offline %#x",
					cfg.Rollback, i, s.Checksums, s.LastChecksumTick, s.LastChecksum, sums[s.LastChecksumTick])
			}
		}
		if st := srv.Stats(m.Now()); st.Verified < 3 || st.Desync != nil {
			t.Fatalf("rollback %d: server verified %d ticks, desync %v", cfg.Rollback, st.Verified, st.Desync)
		}
	}
}

// BenchmarkLockstepResimulatedTick is what one re-simulated tick of a
// rollback costs in the 900-cube world with 4 players busy with their
// scripts: a save and a step (bench lockstep multiplies it by the
// re-simulations of a session).
func BenchmarkLockstepResimulatedTick(b *testing.B) {
	g, err := NewLockstep(Cubes900, DefaultConfig(), 4)
	if err != nil {
		b.Fatal(err)
	}
	inputs := make([]Input, 4)
	play := func(tick int) {
		for p := range inputs {
			inputs[p] = PlayerScript(p).At(tick)
		}
		g.Step(inputs)
	}
	const warm = 300
	for tick := range warm {
		play(tick)
	}
	g.Save(0)
	n := 0
	for b.Loop() {
		if n == 30 { // stay in the busy part of the script
			g.Load(0)
			n = 0
		}
		g.Save(1)
		play(warm + n)
		n++
	}
}

// TestLockstepStateBytes plays the 4 players' scripts on the 900-cube
// world, writes its state as bytes at tick 150, restores them into a
// freshly built world and steps both on with the same inputs: the
// checksums are equal at once and after every step. Bytes of another
// layout and truncated bytes are refused, the world unchanged.
func TestLockstepStateBytes(t *testing.T) {
	const players = 4
	a, err := NewLockstep(Cubes900, DefaultConfig(), players)
	if err != nil {
		t.Fatal(err)
	}
	inputs := make([]Input, players)
	step := func(g *Lockstep, tick int) {
		for p := range inputs {
			inputs[p] = PlayerBot(p)(lockstep.Tick(tick))
		}
		g.Step(inputs)
	}
	for tick := range 150 {
		step(a, tick)
	}
	b, err := a.MarshalState()
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewLockstep(Cubes900, DefaultConfig(), players)
	if err != nil {
		t.Fatal(err)
	}
	fresh := c.Checksum()
	if err := c.UnmarshalState(b[:len(b)-1]); !errors.Is(err, physics.ErrSnapshot) {
		t.Fatalf("truncated state: %v, want physics.ErrSnapshot", err)
	}
	other, _ := NewLockstep(Pyramid10, DefaultConfig(), players)
	if err := other.UnmarshalState(b); !errors.Is(err, physics.ErrSnapshot) {
		t.Fatalf("the 900-cube world's state into the pyramid: %v, want physics.ErrSnapshot", err)
	}
	if c.Checksum() != fresh {
		t.Fatal("a refused state changed the world")
	}
	if err := c.UnmarshalState(b); err != nil {
		t.Fatal(err)
	}
	if c.Checksum() != a.Checksum() {
		t.Fatalf("restored checksum %#x, want %#x", c.Checksum(), a.Checksum())
	}
	for tick := 150; tick < 300; tick++ {
		step(a, tick)
		step(c, tick)
		if c.Checksum() != a.Checksum() {
			t.Fatalf("tick %d: restored world %#x, original %#x", tick, c.Checksum(), a.Checksum())
		}
	}
	t.Logf("state of the 900-cube world at tick 150: %d bytes", len(b))
}

// FuzzLockstepUnmarshalState feeds bytes to a pyramid world's
// UnmarshalState: an error wrapping physics.ErrSnapshot or a restored
// world, never a panic.
func FuzzLockstepUnmarshalState(f *testing.F) {
	g, err := NewLockstep(Pyramid10, DefaultConfig(), 2)
	if err != nil {
		f.Fatal(err)
	}
	for range 30 {
		g.Step(make([]Input, 2))
	}
	b, _ := g.MarshalState()
	f.Add(b)
	f.Add(b[:40])
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := NewLockstep(Pyramid10, DefaultConfig(), 2)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.UnmarshalState(b); err != nil && !errors.Is(err, physics.ErrSnapshot) {
			t.Fatalf("error %v does not wrap physics.ErrSnapshot", err)
		}
	})
}

// TestLockstepLateJoin: in a refereed 2-player session of the pyramid
// world over 100 ms and 1 % loss, player 1 leaves at 3 s and a new client
// takes its seat at 4 s from the referee's state; at 9 s both players'
// checksums agree with the referee's on every tick after the join.
func TestLockstepLateJoin(t *testing.T) {
	const players = 2
	cfg := lockstep.DefaultRollbackConfig()
	cfg.Players = players
	cfg.MaxSnapshotBytes = 8 << 20
	cfg.RejoinGrace = 0 // the seat is not held for the player who left: a new client takes it
	srv, err := lockstep.NewServer[Input](cfg, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := NewLockstep(Pyramid10, DefaultConfig(), players)
	if err := srv.SetReferee(ref); err != nil {
		t.Fatal(err)
	}
	cond := netsim.Conditions{Latency: 50 * time.Millisecond, Loss: 0.01}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 2, Conditions: cond}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	clients := make([]*lockstep.Client[Input, *Input], players)
	join := func() int {
		g, _ := NewLockstep(Pyramid10, DefaultConfig(), players)
		c, err := lockstep.NewClient[Input](cfg, g, LockstepBot(), m.Now())
		if err != nil {
			t.Fatal(err)
		}
		slot, err := m.Join(c)
		if err != nil {
			t.Fatal(err)
		}
		clients[slot] = c
		return slot
	}
	join()
	join()
	for f := 0; f < 9*60; f++ {
		switch f {
		case 3 * 60:
			m.Leave(1)
		case 4 * 60:
			join()
		}
		if err := m.Run(time.Second / 60); err != nil {
			t.Fatalf("at %v: %v", m.Elapsed(), err)
		}
	}
	st := srv.Stats(m.Now())
	js := clients[1].Stats()
	if st.LateJoins != 1 || st.Desync != nil || st.Drops[lockstep.ReasonDesync] > 0 || js.CaughtUp == 0 || js.Checksums < 3 {
		t.Fatalf("%d late joins, desync %v, %d desync drops; joiner caught up after %v, %d checksums reported",
			st.LateJoins, st.Desync, st.Drops[lockstep.ReasonDesync], js.CaughtUp, js.Checksums)
	}
	if a, b := clients[0].Stats(), js; a.LastChecksumTick == b.LastChecksumTick && a.LastChecksum != b.LastChecksum {
		t.Fatalf("tick %d: checksums %#x and %#x", a.LastChecksumTick, a.LastChecksum, b.LastChecksum)
	}
	t.Logf("state %d bytes of tick %d, joined at %d, caught up %v after connecting; %d ticks verified", js.SnapshotBytes, js.JoinedFrom, js.JoinedAt, js.CaughtUp, st.Verified)
}

// TestLockstepStateRestoresAtEveryTick: the tower world's state taken
// before any tick of a 4-player match (player 4 idle for a while, as a
// killed player's seat) restores into a fresh world that then steps
// bit-identically. Between ticks 459 and 473 the world holds a pair the
// broadphase met twice, hence two contacts and two apart pairs of the
// same key: such states were refused ("contacts out of order"), and a
// late joiner or spectator seated then never played.
func TestLockstepStateRestoresAtEveryTick(t *testing.T) {
	const players, from, to, ahead = 4, 440, 500, 30
	inputs := func(tick int) []Input {
		in := make([]Input, players)
		for p := range players {
			if p != 3 || tick <= 150 || tick >= 400 {
				in[p] = PlayerScript(p).At(tick)
			}
		}
		return in
	}
	a, err := NewLockstep(Tower20, DefaultConfig(), players)
	if err != nil {
		t.Fatal(err)
	}
	var states [][]byte
	var sums []uint64
	for tick := range to + ahead {
		if tick >= from && tick < to {
			b, err := a.MarshalState()
			if err != nil {
				t.Fatal(err)
			}
			states = append(states, b)
		}
		a.Step(inputs(tick))
		sums = append(sums, a.Checksum())
	}
	for i, b := range states {
		start := from + i
		c, err := NewLockstep(Tower20, DefaultConfig(), players)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.UnmarshalState(b); err != nil {
			t.Fatalf("the state before tick %d: %v", start, err)
		}
		for tick := start; tick < start+ahead; tick++ {
			c.Step(inputs(tick))
			if c.Checksum() != sums[tick] {
				t.Fatalf("restored before tick %d: tick %d differs", start, tick)
			}
		}
	}
}
