package lockstep

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/wire"
)

// rawStick has stick's layout without its range check, to forge inputs
// whose direction is out of range.
type rawStick struct {
	Dir   uint8
	Boost bool
}

func (s *rawStick) Serialize(st wire.Stream) error {
	if err := wire.SerializeBits(st, &s.Dir, 3); err != nil {
		return err
	}
	return wire.SerializeBool(st, &s.Boost)
}

func encodeClient[I comparable, P Input[I]](t *testing.T, m *clientMsg[I], window int) []byte {
	t.Helper()
	w := wire.NewWriter(make([]byte, maxMessage))
	if err := serializeClient[I, P](w, m, 2, 0, window, 0); err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), w.Bytes()...)
}

// runningMatch returns a 2-player match that has run for 2 s on a
// perfect network.
func runningMatch(t *testing.T, cfg Config) *match {
	x := newMatch(t, cfg, netsim.Conditions{}, 5)
	if err := x.m.Run(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	return x
}

func TestServerDropsForgedInputs(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Players, cfg.Window = 2, 200 // counts 201–255 fit the 8-bit field but exceed the window
	x := runningMatch(t, cfg)
	s := x.server
	now := x.m.Now()
	m := s.members[0]
	have, ack, acks := m.ring.have, m.ack, m.acks
	tick := s.sessionTick(now)
	sticks := func(first Tick, n int, dir uint8) clientMsg[rawStick] {
		r := run[rawStick]{first: first}
		for i := range n {
			r.inputs = append(r.inputs, rawStick{Dir: (dir + uint8(i)) % 5})
		}
		return clientMsg[rawStick]{acks: acks, inputs: r}
	}
	valid := sticks(have, 3, 1)
	cases := map[string]struct {
		msg  []byte
		want error
	}{
		"count beyond the window": {encodeClient[rawStick](t, ptr(sticks(have, 201, 1)), 255), ErrMalformed},
		"tick far ahead":          {encodeClient[rawStick](t, ptr(sticks(tick+200, 1, 1)), 200), ErrForged},
		"gap before the ticks":    {encodeClient[rawStick](t, ptr(sticks(have+1, 3, 1)), 200), ErrForged},
		"tick far behind":         {encodeClient[rawStick](t, ptr(sticks(have-Tick(cfg.Buffer)-10, 3, 1)), 200), ErrForged},
		"ack of unsent inputs": {encodeClient[rawStick](t, &clientMsg[rawStick]{
			acks: [MaxPlayers]Tick{0, s.members[1].ring.have + 5}, inputs: valid.inputs}, 200), ErrForged},
		"checksum off the grid": {encodeClient[rawStick](t, &clientMsg[rawStick]{
			acks: acks, inputs: valid.inputs, reports: []report{{tick: 61, sum: 1}}}, 200), ErrForged},
		"checksum of an unknown tick": {encodeClient[rawStick](t, &clientMsg[rawStick]{
			acks: acks, inputs: valid.inputs, reports: []report{{tick: 60 * (s.allHave()/60 + 1), sum: 1}}}, 200), ErrForged},
	}
	// Direction 7 needs the raw encoder: the real one refuses to write it.
	bad := sticks(have, 3, 1)
	bad.inputs.inputs[1].Dir = 7
	cases["input out of range"] = struct {
		msg  []byte
		want error
	}{encodeClient[rawStick](t, &bad, 200), ErrMalformed}
	good := encodeClient[rawStick](t, &valid, 200)
	for i := range len(good) - 1 {
		cases[fmt.Sprintf("truncated to %d bytes", i)] = struct {
			msg  []byte
			want error
		}{good[:i], ErrMalformed}
	}
	rejected := m.stats.Rejected
	for name, c := range cases {
		err := s.handle(now, 0, m, c.msg)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
		rejected++
		if m.ring.have != have || m.ack != ack || m.acks != acks || m.stats.Rejected != rejected {
			t.Fatalf("%s: applied (have %d→%d, ack %d→%d, rejected %d)", name, have, m.ring.have, ack, m.ack, m.stats.Rejected)
		}
	}
	if s.desync != nil {
		t.Fatalf("a forged checksum stopped the session: %v", s.desync)
	}
	if got := s.Refusals(nil); len(got) != 2 || got[0] != (Refusal{"rejected_message", uint64(len(cases))}) || got[1] != (Refusal{"rejoin_held_off", 0}) {
		t.Fatalf("Refusals %v after %d rejected messages", got, len(cases))
	}
	if err := s.handle(now, 0, m, good); err != nil || m.ring.have != have+3 {
		t.Fatalf("the valid message: %v, have %d→%d", err, have, m.ring.have)
	}
}

func ptr[T any](v T) *T { return &v }

func TestClientDropsForgedInputs(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Players = 3
	x := runningMatch(t, cfg)
	c := x.clients[0]
	now := x.m.Now()
	var haves [MaxPlayers]Tick
	for p := range haves {
		haves[p] = c.rings[p].have
	}
	base := func() serverMsg[stick] {
		m := serverMsg[stick]{players: 3, you: 0, state: stateRunning, ack: c.serverHas}
		for p := 1; p < 3; p++ {
			m.runs[p] = run[stick]{first: haves[p], inputs: []stick{{Dir: 1}, {Dir: 2}}}
		}
		return m
	}
	encode := func(m serverMsg[stick]) []byte {
		w := wire.NewWriter(make([]byte, maxMessage))
		if err := serializeServer[stick](w, &m, cfg.Window, &[MaxPlayers]Tick{}); err != nil {
			t.Fatal(err)
		}
		return append([]byte(nil), w.Bytes()...)
	}
	cases := map[string]serverMsg[stick]{}
	m := base()
	m.players = 2
	cases["player count"] = m
	m = base()
	m.you = 1
	cases["another player's messages"] = m
	m = base()
	m.runs[2].first = haves[2] + 1
	cases["gap"] = m
	m = base()
	m.runs[1].first = haves[1] + Tick(cfg.Buffer)
	cases["beyond the buffer"] = m
	m = base()
	m.runs[1].first = haves[1] - Tick(cfg.Buffer) - 5
	cases["far behind"] = m
	m = base()
	m.ack = c.rings[0].have + 1
	cases["ack of unsent inputs"] = m
	m = base()
	m.departed[1], m.left[1] = true, haves[1]-1
	cases["left before inputs we hold"] = m
	m = base()
	m.departed[2], m.left[2] = true, haves[2]+1
	cases["inputs after it left"] = m
	for name, msg := range cases {
		if err := c.handle(now, encode(msg)); !errors.Is(err, ErrForged) {
			t.Errorf("%s: %v, want ErrForged", name, err)
		}
		for p := range haves {
			if c.rings[p].have != haves[p] {
				t.Fatalf("%s: player %d's inputs applied", name, p)
			}
		}
	}
	if c.Stats().Rejected != uint64(len(cases)) {
		t.Fatalf("rejected %d of %d", c.Stats().Rejected, len(cases))
	}
	if err := c.handle(now, encode(base())); err != nil || c.rings[1].have != haves[1]+2 {
		t.Fatalf("the valid message: %v", err)
	}
}

// TestDatagramNoise feeds garbage through Receive on both sides: every
// datagram is dropped with an error and the session goes on.
func TestDatagramNoise(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Players = 2
	x := runningMatch(t, cfg)
	now := x.m.Now()
	for _, d := range [][]byte{nil, {0}, {0xff, 1, 2, 3, 4, 5}, make([]byte, 2000)} {
		if err := x.server.Receive(now, 0, d); err == nil {
			t.Errorf("server accepted %x", d)
		}
		if err := x.clients[1].Receive(now, d); err == nil {
			t.Errorf("client accepted %x", d)
		}
	}
	if err := x.server.Receive(now, 7, []byte{0}); !errors.Is(err, ErrForged) {
		t.Errorf("datagram from an unknown slot: %v", err)
	}
	if err := x.m.Run(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	x.check(t)
}

func FuzzClientMessage(f *testing.F) {
	for _, m := range []clientMsg[stick]{
		{},
		{acks: [MaxPlayers]Tick{0, 70, 75, 70}, inputs: run[stick]{first: 60, inputs: []stick{{1, false}, {1, false}, {4, true}}}, reports: []report{{60, 0xdeadbeef}}},
		{acks: [MaxPlayers]Tick{0, 70, 70, 70}, snap: true, snapOf: 130, snapAck: snapAck{have: 12, mask: 0x5}, verdict: verdictBad},
		{acks: [MaxPlayers]Tick{0, 70, 70, 70}, source: true, src: srcChunk{tick: 120, total: 1500, index: 1, data: make([]byte, 1500-snapshotChunk)}},
		{acks: [MaxPlayers]Tick{0, 70, 70, 70}, source: true, src: srcChunk{tick: 180}},
		{watch: true, acks: [MaxPlayers]Tick{66, 70, 70, 70}},
	} {
		w := wire.NewWriter(make([]byte, maxMessage))
		if err := serializeClient[stick](w, &m, 4, 0, 255, 0); err != nil {
			f.Fatal(err)
		}
		f.Add(append([]byte(nil), w.Bytes()...), int32(60))
	}
	f.Fuzz(func(t *testing.T, d []byte, near int32) {
		var m clientMsg[stick]
		if serializeClient[stick](wire.NewReader(d), &m, 4, 0, 255, Tick(near)) != nil {
			return
		}
		var size wire.Measurer
		if err := serializeClient[stick](&size, &m, 4, 0, 255, 0); err != nil {
			t.Fatalf("a decoded message does not encode: %v", err)
		}
		w := wire.NewWriter(make([]byte, maxMessage))
		if err := serializeClient[stick](w, &m, 4, 0, 255, 0); err != nil || len(w.Bytes()) != size.Bytes() {
			t.Fatalf("encode: %v, %d bytes, measured %d", err, len(w.Bytes()), size.Bytes())
		}
		var again clientMsg[stick]
		if err := serializeClient[stick](wire.NewReader(w.Bytes()), &again, 4, 0, 255, Tick(near)); err != nil {
			t.Fatal(err)
		}
		if again.acks != m.acks || again.inputs.first != m.inputs.first || len(again.inputs.inputs) != len(m.inputs.inputs) || len(again.reports) != len(m.reports) ||
			again.snap != m.snap || again.snapAck != m.snapAck || again.watch != m.watch || again.snapOf != m.snapOf || again.verdict != m.verdict ||
			again.source != m.source || again.src.tick != m.src.tick || again.src.total != m.src.total || again.src.index != m.src.index || string(again.src.data) != string(m.src.data) {
			t.Fatalf("round trip %+v → %+v", m, again)
		}
		for i := range m.inputs.inputs {
			if again.inputs.inputs[i] != m.inputs.inputs[i] {
				t.Fatalf("input %d: %+v → %+v", i, m.inputs.inputs[i], again.inputs.inputs[i])
			}
		}
		for i := range m.reports {
			if again.reports[i] != m.reports[i] {
				t.Fatalf("report %d: %+v → %+v", i, m.reports[i], again.reports[i])
			}
		}
	})
}

func FuzzServerMessage(f *testing.F) {
	seed := serverMsg[stick]{players: 3, you: 1, state: stateStopped, clockMs: -40, ack: 9,
		desync: DesyncError{Tick: 120, A: 0, B: 2}, source: true, request: srcRequest{tick: 240, ack: snapAck{have: 3, mask: 0x9}}}
	seed.runs[0] = run[stick]{first: 5, inputs: []stick{{2, true}, {2, true}}}
	seed.runs[2] = run[stick]{first: 7, inputs: []stick{{0, false}}}
	dropped := serverMsg[stick]{players: 4, you: 3, state: stateDropped, reason: ReasonDesync, reasonTick: 300}
	joining := serverMsg[stick]{players: 3, you: 2, joining: true, clockMs: 2000,
		chunk: snapChunk{from: 100, back: 180, ack: 190, total: 12 + 32*5 + 1500, sum: 0xfeed, index: 1, data: make([]byte, 12+32*5+1500-snapshotChunk)}}
	watcher := seed
	watcher.state, watcher.watcher = stateRunning, true
	watcher.runs[1] = run[stick]{first: 6, inputs: []stick{{3, false}}}
	for _, m := range []serverMsg[stick]{{players: 2}, seed, dropped, joining, watcher} {
		w := wire.NewWriter(make([]byte, maxMessage))
		if err := serializeServer[stick](w, &m, 255, &[MaxPlayers]Tick{}); err != nil {
			f.Fatal(err)
		}
		f.Add(append([]byte(nil), w.Bytes()...))
	}
	near := &[MaxPlayers]Tick{5, 6, 7, 8}
	f.Fuzz(func(t *testing.T, d []byte) {
		var m serverMsg[stick]
		if serializeServer[stick](wire.NewReader(d), &m, 255, near) != nil {
			return
		}
		w := wire.NewWriter(make([]byte, maxMessage))
		if err := serializeServer[stick](w, &m, 255, near); err != nil {
			t.Fatalf("a decoded message does not encode: %v", err)
		}
		var again serverMsg[stick]
		if err := serializeServer[stick](wire.NewReader(w.Bytes()), &again, 255, near); err != nil {
			t.Fatal(err)
		}
		if again.players != m.players || again.you != m.you || again.state != m.state || again.clockMs != m.clockMs ||
			again.ack != m.ack || again.desync != m.desync || again.reason != m.reason || again.reasonTick != m.reasonTick ||
			again.joining != m.joining || again.watcher != m.watcher || again.chunk.from != m.chunk.from || again.chunk.back != m.chunk.back ||
			again.chunk.total != m.chunk.total || again.chunk.index != m.chunk.index || string(again.chunk.data) != string(m.chunk.data) ||
			again.chunk.sum != m.chunk.sum || again.source != m.source || again.request != m.request {
			t.Fatalf("round trip %+v → %+v", m, again)
		}
		for p := range m.players {
			a, b := m.runs[p], again.runs[p]
			if p == m.you || len(a.inputs) == 0 {
				continue
			}
			if a.first != b.first || len(a.inputs) != len(b.inputs) {
				t.Fatalf("player %d's run %+v → %+v", p, a, b)
			}
			for i := range a.inputs {
				if a.inputs[i] != b.inputs[i] {
					t.Fatalf("player %d's input %d: %+v → %+v", p, i, a.inputs[i], b.inputs[i])
				}
			}
		}
		for p := range m.players {
			if p != m.you && m.state != stateLobby && (again.departed[p] != m.departed[p] || m.departed[p] && again.left[p] != m.left[p]) {
				t.Fatalf("player %d departed %v at %d → %v at %d", p, m.departed[p], m.left[p], again.departed[p], again.left[p])
			}
		}
		// The client never panics on it, valid or not.
		cfg := DefaultConfig()
		cfg.Players = 3
		c, _ := NewClient[stick](cfg, newParticles(3), bot(0), time.Time{})
		_ = c.handle(time.Time{}, d)
		// Nor a client that takes late joins.
		cfg.MaxSnapshotBytes = 1 << 20
		j := newJoinable(3)
		j.pad = 1500
		c, _ = NewClient[stick](cfg, j, bot(0), time.Time{})
		_ = c.handle(time.Time{}, d)
		_ = c.Update(time.Time{}, func([]byte) {})
		// Nor a spectator.
		c, _ = NewSpectator[stick](cfg, j, time.Time{})
		_ = c.handle(time.Time{}, d)
		_ = c.Update(time.Time{}, func([]byte) {})
	})
}
