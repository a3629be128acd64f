package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sync"
	"time"

	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/viewer"
)

// README: model

// Pong registers itself with the runtime (package match), which then
// hosts it as it hosts netphys's own games: a server on UDP with netcode
// tokens (match.Serve, match.Start), players (match.Play), the demo of
// every player in one process (match.Demo), a viewer page per player, the
// summaries. Its one flag of its own says which lockstep it plays.
func init() {
	match.Register(&match.Model{
		Name:       "pong",
		Summary:    "two-player pong on rollback lockstep",
		Flags:      pongFlags,
		MaxPlayers: 2,
		Keys:       "the up and down arrows move your paddle",
	})
}

func pongFlags(fs *flag.FlagSet) func() (match.Sides, error) {
	pure := fs.Bool("pong-pure", false, "pong: pure lockstep (an input delay, no rollback) instead of rollback")
	return func() (match.Sides, error) {
		cfg, mode := lockstep.DefaultRollbackConfig(), "rollback"
		if *pure {
			cfg, mode = lockstep.DefaultConfig(), "pure lockstep"
		}
		return match.Sides{
			NewHost: func(s match.Setup) (match.Host, error) {
				c := cfg
				c.Players = s.Players
				srv, err := lockstep.NewServer[Paddle](c, s.Now)
				if err != nil {
					return nil, err
				}
				return &host{srv}, nil
			},
			NewPlayer: func(s match.PlayerSetup) (match.Player, error) {
				c := cfg
				c.Players = s.Players
				return newHostedPlayer(c, s)
			},
			// Server and players must play the same lockstep: the hello
			// compares "pong (rollback) for 2 players".
			Config: mode,
		}, nil
	}
}

// README: end

// host is the server's side: the lockstep relay, which shows no world.
type host struct {
	*lockstep.Server[Paddle, *Paddle]
}

func (h *host) Views(dst []viewer.View) []viewer.View { return dst }

func (h *host) Figures(now time.Time, dst []viewer.Figure) []viewer.Figure {
	st := h.Stats(now)
	return append(dst,
		viewer.Figure{Name: "session tick", Value: float64(st.Tick)},
		viewer.Figure{Name: "ticks verified", Value: float64(st.Verified)})
}

func (h *host) Summary(now time.Time, dst []match.Line) []match.Line {
	st := h.Stats(now)
	return append(dst, match.Line{Name: "checksums", Value: fmt.Sprintf("%d ticks verified equal across players", st.Verified)})
}

// README: player

// hostedPlayer is a player as the runtime runs it: the client and its
// game (player), what the runtime shows of it, and the checksum of the
// tick its match ends at, which every player must agree on.
type hostedPlayer struct {
	*player
	game  *checked
	keys  *match.Keys // nil: the bot plays
	ticks int         // match.PlayerSetup.Ticks
	cubes []viewer.Cube
}

func newHostedPlayer(cfg lockstep.Config, s match.PlayerSetup) (*hostedPlayer, error) {
	g := &checked{Pong: NewPong(), at: lockstep.Tick(s.Ticks)}
	hp := &hostedPlayer{player: &player{game: g.Pong, lag: int32(4 + 6*s.Slot)}, game: g, ticks: s.Ticks}
	if !s.Bot {
		hp.keys = s.Keys
	}
	var err error
	hp.client, err = lockstep.NewClient[Paddle](cfg, lockstep.Game[Paddle](g), hp.input, s.Now)
	return hp, err
}

// input is the paddle's move: the page's up and down arrows while a
// person plays, the bot's otherwise (and while the page's autoplay runs).
func (hp *hostedPlayer) input(t lockstep.Tick, v *lockstep.View) Paddle {
	if hp.keys != nil {
		if k := hp.keys.At(int(t)); !k.Auto {
			var p Paddle
			if k.Held.Has(viewer.KeyUp) {
				p.Move--
			}
			if k.Held.Has(viewer.KeyDown) {
				p.Move++
			}
			return p
		}
	}
	return Bot(hp.game.Pong, v.Player, hp.lag)
}

// README: end

func (hp *hostedPlayer) Receive(now time.Time, d []byte) error { return hp.client.Receive(now, d) }

// Update runs the client, then plays the goals no rollback can undo.
func (hp *hostedPlayer) Update(now time.Time, send func([]byte)) error {
	err := hp.client.Update(now, send)
	hp.present()
	return err
}

// Views draws the court for the viewer, in metres (the game counts
// millimetres): the two paddles, the player's own last, and the ball.
func (hp *hostedPlayer) Views(dst []viewer.View) []viewer.View {
	g := hp.game.Pong
	at := func(x, y int32) [3]float32 {
		return [3]float32{float32(x-width/2) / 1000, 0.5, float32(y-height/2) / 1000}
	}
	paddle := func(p int) viewer.Cube {
		x := int32(paddleX)
		if p == 1 {
			x = width - paddleX
		}
		return viewer.Cube{ID: uint32(p), Position: at(x, g.PaddleY[p]), Rotation: [4]float32{0, 0, 0, 1},
			HalfExtents: [3]float32{0.5, 0.5, paddleHalf / 1000}, Player: true}
	}
	me := max(hp.client.Player(), 0)
	hp.cubes = append(hp.cubes[:0], paddle(1-me), paddle(me), viewer.Cube{
		ID: 2, Position: at(g.BallX, g.BallY), Rotation: [4]float32{0, 0, 0, 1}, HalfExtents: [3]float32{0.5, 0.5, 0.5}})
	return append(dst, viewer.View{Cubes: hp.cubes, Overview: true})
}

func (hp *hostedPlayer) Figures(_ time.Time, dst []viewer.Figure) []viewer.Figure {
	st := hp.client.Stats()
	return append(dst,
		viewer.Figure{Name: "tick", Value: float64(st.Tick)},
		viewer.Figure{Name: "rollbacks", Value: float64(st.Rollbacks)},
		viewer.Figure{Name: "goals", Value: float64(len(hp.played))})
}

func (hp *hostedPlayer) Summary(_ time.Time, dst []match.Line) []match.Line {
	st := hp.client.Stats()
	var score [2]int
	for _, g := range hp.played {
		score[g.Scorer]++
	}
	dst = append(dst,
		match.Line{Name: "ticks", Value: fmt.Sprintf("%d simulated, %d confirmed", st.Tick, st.Confirmed)},
		match.Line{Name: "score", Value: fmt.Sprintf("%d:%d", score[0], score[1])})
	if hp.game.have {
		dst = append(dst, match.Line{Name: "checksum", Value: fmt.Sprintf("tick %d %#016x", hp.game.at, hp.game.sum)})
	}
	return append(dst, match.Line{Name: "rollbacks", Value: fmt.Sprintf("%d, at most %d ticks re-simulated in a frame", st.Rollbacks, st.MaxResimulated)})
}

// Done: the state after the match's last tick is final once every input
// before it is known.
func (hp *hostedPlayer) Done() bool {
	return hp.ticks > 0 && hp.game.have && hp.client.Stats().Confirmed >= lockstep.Tick(hp.ticks)
}

// Checksum is the newest checksum the client reported, for the demo's
// comparison across players (match.Checksummer).
func (hp *hostedPlayer) Checksum() (int, uint64, bool) {
	st := hp.client.Stats()
	return int(st.LastChecksumTick), uint64(st.LastChecksum), st.Checksums > 0
}

// checked is the game with the checksum of its state once it has stepped
// at ticks: the last computed, which a rollback computes again.
type checked struct {
	*Pong
	at   lockstep.Tick
	sum  uint64
	have bool
}

func (c *checked) Step(inputs []Paddle) {
	c.Pong.Step(inputs)
	if c.Tick == c.at {
		c.sum, c.have = c.Pong.Checksum(), true
	}
}

// Hosted is a match the runtime hosted: the server's summary of it and
// each player's.
type Hosted struct {
	Server  match.Summary
	Players []match.Summary
}

// RunHosted plays a match of bots to tick ticks the way separate
// processes would, in this one: the runtime hosts the model sides builds
// (match.Start: a netcode server on loopback UDP with a key of its own)
// and every player connects to it with its connect token (match.Play).
func RunHosted(ctx context.Context, m *match.Model, sides match.Sides, setup match.Setup, ticks int) (Hosted, error) {
	// README: hosted
	ended := make(chan match.Summary, 1)
	srv, err := match.Start(ctx, match.ServeConfig{Model: m, Sides: sides, Setup: setup,
		Ended: func(s match.Summary) { ended <- s }})
	if err != nil {
		return Hosted{}, err
	}
	h := Hosted{Players: make([]match.Summary, setup.Players)}
	errs := make([]error, setup.Players)
	var wg sync.WaitGroup
	for i := range h.Players {
		tok, err := srv.Token(uint64(1 + i))
		if err != nil {
			srv.Stop()
			return Hosted{}, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.Players[i], errs[i] = match.Play(ctx, match.PlayConfig{Model: m, Sides: sides, Setup: setup,
				Token: tok, Bot: true, Ticks: ticks, Linger: 500 * time.Millisecond})
		}()
	}
	wg.Wait()
	// The match is over once every player has left: the server says so
	// with its summary, and goes on waiting for the next match's players.
	select {
	case h.Server = <-ended:
	case <-srv.Done():
	case <-time.After(15 * time.Second):
		errs = append(errs, errors.New("pong: the server did not see the players leave"))
	}
	_, err = srv.Stop()
	// README: end
	return h, errors.Join(append(errs, err)...)
}

// Check returns an error unless every player played to the same tick with
// the same checksum, and the server verified ticks of the match.
func (h *Hosted) Check() error {
	var want string
	for _, p := range h.Players {
		if len(p.Sections) != 1 {
			return fmt.Errorf("pong: a player's summary has %d sections", len(p.Sections))
		}
		sum, ok := p.Value(p.Sections[0].Name, "checksum")
		if !ok || want != "" && sum != want {
			return fmt.Errorf("pong: %s's checksum %q, the first player's %q", p.Sections[0].Name, sum, want)
		}
		want = sum
	}
	if v, ok := h.Server.Value("server", "checksums"); !ok || v[0] == '0' {
		return fmt.Errorf("pong: the server verified no tick: %q", v)
	}
	return nil
}
