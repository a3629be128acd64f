package match

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/internal/syncbuf"
	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/viewer"
)

// modelSides declares the commands' flags with defaults d, parses args
// and returns what a command would build from them.
func modelSides(t *testing.T, d Defaults, args ...string) (*Model, Sides, Setup) {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f := DeclareFlags(fs, d)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	m, s, err := f.Sides()
	if err != nil {
		t.Fatal(err)
	}
	setup, err := f.Setup(quiet)
	if err != nil {
		t.Fatal(err)
	}
	return m, s, setup
}

// The clock model is the tests' tiny model: the server counts ticks and
// sends the count to every player each frame; a player's world is the
// newest count it heard and the inputs its controls gave, and its checksum
// of tick t is the same function of t everywhere, so every player agrees.
type clockHost struct {
	tick int
	// failAt makes Update fail failAt ticks after the first Join (0: never).
	failAt, joined int
	// panicAt makes the game's step panic panicAt ticks after the first
	// Join (0: never): a bug in a game, as a rooms server must survive.
	panicAt int
	anyone  bool // a player joined
}

func (h *clockHost) Join(time.Time, int) error {
	if !h.anyone {
		h.anyone, h.joined = true, h.tick
	}
	return nil
}
func (h *clockHost) Leave(time.Time, int) {}
func (h *clockHost) Receive(_ time.Time, _ int, d []byte) error {
	if len(d) != 1 {
		return errors.New("clock: want one byte of input")
	}
	return nil
}
func (h *clockHost) Update(_ time.Time, send func(int, []byte)) error {
	h.step()
	if h.failAt > 0 && h.anyone && h.tick-h.joined >= h.failAt {
		return fmt.Errorf("clock: told to fail %d ticks after the first join", h.failAt)
	}
	for slot := range 8 {
		send(slot, binary.LittleEndian.AppendUint32(nil, uint32(h.tick)))
	}
	return nil
}

// step is the clock's game step.
func (h *clockHost) step() {
	h.tick++
	if h.panicAt > 0 && h.anyone && h.tick-h.joined >= h.panicAt {
		var bodies []int
		_ = bodies[h.tick] // the game's bug: an index out of range
	}
}

func (h *clockHost) Views(dst []viewer.View) []viewer.View { return dst }
func (h *clockHost) Figures(_ time.Time, dst []viewer.Figure) []viewer.Figure {
	return append(dst, viewer.Figure{Name: "server tick", Value: float64(h.tick)})
}
func (h *clockHost) Summary(_ time.Time, dst []Line) []Line {
	return append(dst, Line{"ticks", fmt.Sprint(h.tick)})
}

type clockPlayer struct {
	setup  PlayerSetup
	tick   int
	inputs int // ticks with a key held
	final  uint64
}

func clockSum(tick int) uint64 { return uint64(tick) * 0x9e3779b97f4a7c15 }

func (p *clockPlayer) Receive(_ time.Time, d []byte) error {
	if len(d) != 4 {
		return errors.New("clock: want a tick")
	}
	p.tick = max(p.tick, int(binary.LittleEndian.Uint32(d)))
	if t := p.setup.Ticks; t > 0 && p.tick >= t && p.final == 0 {
		p.final = clockSum(t)
	}
	return nil
}
func (p *clockPlayer) Update(_ time.Time, send func([]byte)) error {
	// A bot holds the right arrow every other second; the page's keys
	// are what they are, or the bot's once they autoplay.
	bot := viewer.Input(0)
	if p.tick/60%2 == 1 {
		bot = viewer.KeyRight
	}
	in := bot
	if k := p.setup.Keys; k != nil {
		if st := k.At(p.tick); !st.Auto {
			in = st.Held
		}
	}
	if in != 0 {
		p.inputs++
	}
	send([]byte{byte(in)})
	return nil
}
func (p *clockPlayer) Views(dst []viewer.View) []viewer.View {
	return append(dst, viewer.View{Name: "clock", Cubes: []viewer.Cube{{Position: [3]float32{float32(p.tick%600) / 60, 0.5, 0}, HalfExtents: [3]float32{0.5, 0.5, 0.5}, Player: true}}})
}
func (p *clockPlayer) Figures(_ time.Time, dst []viewer.Figure) []viewer.Figure {
	return append(dst, viewer.Figure{Name: "tick", Value: float64(p.tick)})
}
func (p *clockPlayer) Summary(_ time.Time, dst []Line) []Line {
	return append(dst, Line{"ticks", fmt.Sprint(p.tick)}, Line{"checksum", fmt.Sprintf("%#016x", p.final)})
}
func (p *clockPlayer) Done() bool { return p.setup.Ticks > 0 && p.tick >= p.setup.Ticks }
func (p *clockPlayer) Checksum() (int, uint64, bool) {
	t := p.tick / 10 * 10
	return t, clockSum(t), t > 0
}

func init() {
	Register(&Model{Name: "clock", Summary: "the runtime tests' tiny model", Flags: func(fs *flag.FlagSet) func() (Sides, error) {
		fail := fs.Bool("clock-fail", false, "clock: refuse to build a host")
		failAt := fs.Int("clock-fail-at", 0, "clock: the host's Update fails this many ticks after the first join")
		return func() (Sides, error) {
			return Sides{
				NewHost: func(s Setup) (Host, error) {
					if *fail {
						return nil, errors.New("clock: told to fail")
					}
					h := &clockHost{failAt: *failAt}
					if s.World == clockPanicWorld {
						h.panicAt = 30
					}
					return h, nil
				},
				NewPlayer: func(s PlayerSetup) (Player, error) { return &clockPlayer{setup: s}, nil },
			}, nil
		}
	}})
}

// clockPanicWorld is the clock's world whose game step panics half a
// second after the first player joined (a match's world is its token's
// under serve --rooms).
const clockPanicWorld = "panic-step"

var quiet = slog.New(slog.DiscardHandler)

// clockSides parses args as a command would and returns the clock model.
func clockSides(t *testing.T, args ...string) (*Model, Sides, int) {
	t.Helper()
	m, s, setup := modelSides(t, Defaults{Model: "clock", Players: 3}, args...)
	return m, s, setup.Players
}

func TestDemoRunsEveryPlayerOverUDP(t *testing.T) {
	m, sides, players := clockSides(t)
	var status bytes.Buffer
	v := viewer.New(viewer.Config{Logger: quiet})
	defer v.Close()
	s, err := Demo(context.Background(), DemoConfig{
		Model: m, Sides: sides, Setup: Setup{Players: players, Logger: quiet},
		Conditions: netsim.Conditions{Latency: 10 * time.Millisecond, Loss: 0.05}, Seed: 1,
		Viewer: v, Duration: 1500 * time.Millisecond, Status: &status, StatusEvery: 500 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	s.Print(&out)
	t.Log(out.String())
	for _, want := range []string{"player 1 (keys)", "player 2 (bot)", "player 3 (bot)", "ticks compared across players", "all equal", "up  ", "dropped"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	if !strings.Contains(status.String(), "| 3 players: up ") || !strings.Contains(status.String(), "down ") || !strings.Contains(status.String(), ", tick ") {
		t.Errorf("status lines lack the players' figures:\n%s", status.String())
	}
}

func TestDemoReportsAHostThatCannotBeBuilt(t *testing.T) {
	m, sides, players := clockSides(t, "--clock-fail")
	_, err := Demo(context.Background(), DemoConfig{Model: m, Sides: sides, Setup: Setup{Players: players, Logger: quiet}})
	if err == nil || !strings.Contains(err.Error(), "told to fail") {
		t.Fatalf("err %v", err)
	}
}

func TestServePlaysMatchesInARow(t *testing.T) {
	m, sides, _ := clockSides(t)
	var status, logs syncbuf.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	srv := startServe(t, ServeConfig{Model: m, Sides: sides, Setup: Setup{Players: 2, Logger: logger},
		Status: &status, Report: 300 * time.Millisecond})
	// Two matches of two players, one after the other: each player stops
	// after the same tick with the same checksum, and the server, once
	// both players of a match left, prints its summary and starts the next.
	const ticks = 60
	want := fmt.Sprintf("%#016x", clockSum(ticks))
	for match := range 2 {
		results := make(chan string, 2)
		for id := range 2 {
			tok := token(t, srv, 10*match+id+1)
			go func() {
				s, err := Play(context.Background(), PlayConfig{Model: m, Sides: sides, Setup: Setup{Players: 2, Logger: quiet},
					Token: tok, Bot: true, Ticks: ticks, Linger: 100 * time.Millisecond})
				var out strings.Builder
				s.Print(&out)
				if err != nil {
					out.WriteString("error: " + err.Error())
				}
				results <- out.String()
			}()
		}
		for range 2 {
			if out := <-results; !strings.Contains(out, "checksum") || !strings.Contains(out, want) {
				t.Errorf("match %d: player summary lacks checksum %s:\n%s", match+1, want, out)
			}
		}
		deadline := time.Now().Add(10 * time.Second)
		for strings.Count(status.String(), "serve summary") <= match && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if _, err := srv.Stop(); err != nil {
		t.Error(err)
	}
	out := status.String()
	if n := strings.Count(out, "serve summary"); n != 2 || strings.Count(out, "player 1") != 2 || strings.Count(out, "player 2") != 2 {
		t.Errorf("server printed %d match summaries, want 2 with both players:\n%s", n, out)
	}
	// The first report with a player in it already shows its traffic.
	if m := regexp.MustCompile(`up_per_player="([^"]+)"`).FindStringSubmatch(logs.String()); m == nil || strings.HasPrefix(m[1], "0 ") {
		t.Errorf("the first report with player 1 shows no traffic:\n%s", logs.String())
	}
}

// TestServeOutlivesAFailedMatch: a host whose Update fails ends its
// match, not Serve: its players get the error, and the next match plays.
func TestServeOutlivesAFailedMatch(t *testing.T) {
	m, sides, _ := clockSides(t, "--clock-fail-at", "60")
	var status syncbuf.Buffer
	srv := startServe(t, ServeConfig{Model: m, Sides: sides, Setup: Setup{Players: 2, Logger: quiet}, Status: &status})
	play := func(id, ticks int) chan error {
		tok := token(t, srv, id)
		done := make(chan error, 1)
		go func() {
			_, err := Play(context.Background(), PlayConfig{Model: m, Sides: sides, Setup: Setup{Players: 2, Logger: quiet},
				Token: tok, Bot: true, Ticks: ticks, Linger: 100 * time.Millisecond})
			done <- err
		}()
		return done
	}
	// The first match fails a second after its first player joined: both
	// players hear why.
	first := []chan error{play(1, 100000), play(2, 100000)}
	for i, done := range first {
		err := <-done
		var r *udpdrive.RefusedError
		if !errors.As(err, &r) || !r.Joined || !strings.Contains(r.Reason, "clock: told to fail 60 ticks after the first join") {
			t.Fatalf("player %d of the failed match: %v", i+1, err)
		}
	}
	// The next match plays to its end.
	for i, done := range []chan error{play(3, 20), play(4, 20)} {
		if err := <-done; err != nil {
			t.Fatalf("player %d of the next match: %v", i+1, err)
		}
	}
	select {
	case <-srv.Done():
		_, err := srv.Stop()
		t.Fatalf("Serve returned %v during the matches", err)
	default:
	}
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(status.String(), "serve summary") < 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if out := status.String(); !strings.Contains(out, "told to fail") || !strings.Contains(out, "match_failed 2") {
		t.Errorf("the failed match's summary lacks its error or its byes:\n%s", out)
	}
}

func TestPlayNeedsControls(t *testing.T) {
	m, sides, _ := clockSides(t)
	if _, err := Play(context.Background(), PlayConfig{Model: m, Sides: sides}); !errors.Is(err, ErrNoControls) {
		t.Fatalf("err %v", err)
	}
}

func TestAgreementComparesTicksEveryPlayerReported(t *testing.T) {
	a := newAgreement(2)
	a.note(0, 60, 1)
	a.note(0, 60, 1) // twice: still waits for player 1
	a.note(1, 60, 1)
	a.note(1, 60, 1)
	a.note(0, 60, 1) // every player again: compared once
	a.note(1, 60, 1)
	a.note(0, 120, 2)
	a.note(1, 120, 3)
	a.note(1, 120+agreeRing, 4) // overwrites nothing compared twice
	if a.compared != 2 || a.differ != 1 || a.first != 120 || a.newest != 120 {
		t.Fatalf("%+v", *a)
	}
}

func TestUnknownModel(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f := DeclareFlags(fs, Defaults{Model: "nope", Players: 2})
	if _, _, err := f.Sides(); !errors.Is(err, ErrModel) {
		t.Fatalf("err %v", err)
	}
}

// TestRoomsKnowNoBuiltinModel: the command runs its built-in models
// itself, never in a room; a token naming one is not told it is known.
func TestRoomsKnowNoBuiltinModel(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f := DeclareFlags(fs, Defaults{Model: "echo", Players: 2, Builtin: []string{"echo"}})
	if _, _, err := f.Sides(); err == nil || !strings.Contains(err.Error(), "known: echo") {
		t.Fatalf("--model echo: %v, want the built-in named known", err)
	}
	_, _, err := f.SidesOf("echo", 2)
	if !errors.Is(err, ErrModel) || strings.Contains(err.Error(), "echo,") {
		t.Fatalf("a room of model echo: %v, want unknown without echo among the known", err)
	}
}

func TestKeysAutoPlayWhileNoKeyIsHeld(t *testing.T) {
	v := viewer.New(viewer.Config{Logger: quiet})
	defer v.Close()
	k := &Keys{Viewer: v, AutoPlay: 60}
	for tick := 100; tick < 400; tick++ {
		got := k.At(tick)
		want := KeyState{} // no page holds a key
		if tick >= 160 {
			want = KeyState{Auto: true, Since: tick - 160}
		}
		if got != want {
			t.Fatalf("tick %d: %+v, want %+v", tick, got, want)
		}
	}
	if (&Keys{Viewer: v}).At(1000) != (KeyState{}) {
		t.Fatal("keys without AutoPlay played")
	}
}

// startServe runs Start with cfg until the test ends.
func startServe(t *testing.T, cfg ServeConfig) *Running {
	t.Helper()
	r, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Stop() })
	return r
}

// token is client id's connect token for r.
func token(t *testing.T, r *Running, id int) *netcode.ConnectToken {
	t.Helper()
	tok, err := r.Token(uint64(id))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestPlayEndsAfterItsDuration: a player without Ticks plays for its
// Duration, lingers, and returns its summary, whose lines Value reads.
func TestPlayEndsAfterItsDuration(t *testing.T) {
	m, sides, _ := clockSides(t)
	srv := startServe(t, ServeConfig{Model: m, Sides: sides, Setup: Setup{Players: 1, Logger: quiet}})
	s, err := Play(context.Background(), PlayConfig{Model: m, Sides: sides, Setup: Setup{Players: 1, Logger: quiet},
		Token: token(t, srv, 1), Bot: true, Duration: 500 * time.Millisecond, Linger: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ticks, ok := s.Value("player 1", "ticks")
	if n, err := strconv.Atoi(ticks); !ok || err != nil || n < 1 {
		t.Fatalf("player 1's ticks: %q, %v", ticks, ok)
	}
	if _, ok := s.Value("player 1", "no such line"); ok {
		t.Fatal("Value found a line the summary does not have")
	}
}
