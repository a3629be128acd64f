package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/netphys/netphys/internal/cubegames"
	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/netmodel/statesync"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/viewer"
)

// hostileEnv names the token file of the hostile state sync guest: the
// test binary, run again with it set, plays that guest instead of running
// the tests (init below). The program itself has no such mode.
const hostileEnv = "NETPHYS_TEST_HOSTILE_GUEST_TOKEN"

func init() {
	if file := os.Getenv(hostileEnv); file != "" {
		if err := playHostileGuest(file); err != nil {
			fmt.Fprintln(os.Stderr, "hostile guest:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// The hostile's attack: from hostileFrom for hostileSteps steps of its
// clock it claims the top cube of the central tower, which it never
// touched, teleported 6 m sideways and launched at 60 m/s. Two seconds of
// claims stay well under the host's Config.MaxImplausible (600), so the
// host overrules them all and keeps the hostile seated.
const (
	hostileFrom, hostileSteps = 180, 120
	hostileTicks              = 600
)

// hostileVR is the VR table whose local player claims, in the attack's
// steps, a cube out of its reach at an impossible state: a client of its
// own, with a valid token, writing what an honest one never would.
type hostileVR struct {
	*scene.VR
	me     statesync.Player
	target int
	steps  int
}

func (h *hostileVR) attacking() bool {
	return h.steps >= hostileFrom && h.steps < hostileFrom+hostileSteps
}

// Step steps the world, then teleports and launches the target.
func (h *hostileVR) Step(mayGrab func(i int) bool) {
	h.VR.Step(mayGrab)
	h.steps++
	if !h.attacking() {
		return
	}
	s := h.VR.Object(h.target)
	s.Position = s.Position.Add(vecmath.V3(6, 0, 0))
	s.LinearVelocity, s.AtRest = vecmath.V3(60, 0, 0), false
	if err := h.VR.SetObject(h.target, s); err != nil {
		panic(err) // a finite state: the world takes it
	}
}

// Touches says the local player touches the target: it takes authority
// and sends the forged state.
func (h *hostileVR) Touches(objects func(a, b int), player func(p statesync.Player, i int)) {
	h.VR.Touches(objects, player)
	if h.attacking() {
		player(h.me, h.target)
	}
}

// hostileGuest is the hostile as the runtime's player: a real Guest on
// the hostile world, which shows nothing.
type hostileGuest struct {
	*statesync.Guest
	world *hostileVR
}

func (g *hostileGuest) Views(dst []viewer.View) []viewer.View { return dst }
func (g *hostileGuest) Figures(_ time.Time, dst []viewer.Figure) []viewer.Figure {
	return dst
}
func (g *hostileGuest) Summary(_ time.Time, dst []match.Line) []match.Line {
	return append(dst, match.Line{Name: "attack", Value: fmt.Sprintf("cube %d claimed teleported and launched for %d steps; %d of its claims overruled by the host", g.world.target, hostileSteps, g.Counters().Overruled)})
}
func (g *hostileGuest) Done() bool { return g.Tick() >= hostileTicks }

// playHostileGuest plays the hostile guest with the token in file in a
// `--model statesync --players 4` match and prints its summary.
func playHostileGuest(file string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	tok, err := transport.DecodeToken(raw)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("hostile", flag.ContinueOnError)
	models := match.DeclareFlags(fs, match.Defaults{Model: "statesync", Players: 4})
	if err := fs.Parse([]string{"--players", "4"}); err != nil {
		return err
	}
	m, sides, err := models.Sides()
	if err != nil {
		return err
	}
	setup, err := models.Setup(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		return err
	}
	cfg, vcfg := cubegames.StatesyncConfig(256)
	sides.NewPlayer = func(s match.PlayerSetup) (match.Player, error) {
		me := statesync.Player(s.Slot + 1)
		vr, err := scene.NewVR(vcfg, me, nil) // its hands stand still
		if err != nil {
			return nil, err
		}
		tower := vr.Tower(0)
		w := &hostileVR{VR: vr, me: me, target: tower[len(tower)-1]}
		gcfg := cfg
		gcfg.Player = me
		g, err := statesync.NewGuest(gcfg, w, s.Now)
		if err != nil {
			return nil, err
		}
		return &hostileGuest{Guest: g, world: w}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sum, err := match.Play(ctx, match.PlayConfig{Model: m, Sides: sides, Setup: setup, Token: tok, Bot: true, Linger: time.Second})
	sum.Print(os.Stdout)
	return err
}

// TestStatesyncHostileGuestProcess is issue 22's hostile guest between
// processes: a real `serve --model statesync --players 4`, two honest
// `play --bot` guests and a hostile guest (this test binary run again)
// whose valid token seats it like any other, and which claims the top
// cube of the central tower teleported 6 m away at 60 m/s, a cube it
// never touched. The host overrules every claim and its summary counts
// them against the hostile's seat with the reason; the honest guests,
// and the host of them, report their worlds bit for bit with the host's
// at the end; every process exits cleanly.
func TestStatesyncHostileGuestProcess(t *testing.T) {
	processTest(t)
	p := newProcs(t, 2*time.Minute)
	match := []string{"--model", "statesync", "--players", "4"}
	serve, serveOut := p.serve(nil, match...)
	var honest []proc
	for id := 1; id <= 2; id++ {
		honest = append(honest, p.run(nil, append(botArgs(p.token(id), 900, match...), "--linger", "4s")...))
	}
	hostileCmd := p.commandEnv([]string{hostileEnv + "=" + p.token(3)}, "-test.run=^$")
	hostileCmd.Path, hostileCmd.Args[0] = os.Args[0], os.Args[0] // the test binary, not the program
	hostile := proc{hostileCmd, p.start(hostileCmd)}

	err := hostile.cmd.Wait()
	t.Logf("hostile guest:\n%s", hostile.out)
	if err != nil {
		t.Fatalf("hostile guest: %v", err)
	}
	seat := regexp.MustCompile(`(?m)^  player (\d+)$`).FindStringSubmatch(hostile.out.String())
	if seat == nil {
		t.Fatal("the hostile guest printed no summary of its seat")
	}
	for i, pl := range honest {
		err := pl.cmd.Wait()
		t.Logf("honest guest %d:\n%s", i+1, pl.out)
		if err != nil {
			t.Fatalf("honest guest %d: %v", i+1, err)
		}
		if !guestAgreed.MatchString(pl.out.String()) {
			t.Errorf("honest guest %d printed no bit-for-bit agreement with the host", i+1)
		}
	}
	out := stopServe(t, serve, serveOut)
	m := regexp.MustCompile(`overruled\s+player ` + seat[1] + `: (\d+) claims physically impossible from the host's state`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the host's summary does not count the hostile player %s's claims as implausible", seat[1])
	}
	if n, _ := strconv.Atoi(m[1]); n < 10 {
		t.Errorf("%d of the hostile's claims overruled, want most of its %d steps'", n, hostileSteps)
	}
	for n := 1; n <= 3; n++ {
		if fmt.Sprint(n) == seat[1] {
			continue
		}
		if !hostAgreed(n).MatchString(out) {
			t.Errorf("the host's summary does not say honest player %d converged bit for bit", n)
		}
	}
}
