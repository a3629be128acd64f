package cubegames

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/netmodel/interp"
	snapreplay "github.com/netphys/netphys/netmodel/interp/replay"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/wire/snapshot"
)

// spectatorsFrom makes a host's slots from `from` on spectators, as the
// driver does for a client whose hello asks to watch (simmatch joins
// every client by Join).
type spectatorsFrom struct {
	match.Host
	from int
}

func (s *spectatorsFrom) Join(now time.Time, slot int) error {
	if slot >= s.from {
		return s.Host.(udpdrive.Spectated).Watch(now, slot)
	}
	return s.Host.Join(now, slot)
}

// spectatedMatch runs a match of model with `players` bot players and
// `spectators` spectators, over cond for d of virtual time, and returns
// the host, the players and the spectators.
func spectatedMatch(t *testing.T, model string, players, spectators int, cond netsim.Conditions, d time.Duration) (match.Host, []match.Player, []interpViewer) {
	t.Helper()
	m, sides, setup := modelSides(t, match.Defaults{Model: model, Players: players}, "--players", fmt.Sprint(players), "--layout", "tower20")
	setup.Now = simmatch.Epoch
	host, err := sides.NewHost(setup)
	if err != nil {
		t.Fatal(err)
	}
	clients := m.Clients(players)
	sm, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 7, Conditions: cond}}, &spectatorsFrom{Host: host, from: clients})
	if err != nil {
		t.Fatal(err)
	}
	var ps []match.Player
	var ss []interpViewer
	for i := range clients + spectators {
		p, err := sides.NewPlayer(match.PlayerSetup{Setup: match.Setup{Players: players, Now: sm.Now()}, Slot: i, Bot: true, Spectate: i >= clients})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sm.Join(p); err != nil {
			t.Fatal(err)
		}
		if i < clients {
			ps = append(ps, p)
			continue
		}
		_, isSpectator := p.(*spectator)
		_, isViewer := p.(*interpPlayer)
		if !isSpectator && !(model == "interp" && isViewer) {
			t.Fatalf("a spectator of %s is a %T", model, p)
		}
		ss = append(ss, p.(interpViewer))
	}
	if err := sm.Run(d); err != nil {
		t.Fatal(err)
	}
	return host, ps, ss
}

// TestSpectatorsNeverHoldPredictBack: 8 spectators on a 2-player predict
// match over 60 ms links, in virtual time: the players' match is bit for
// bit the one they play without spectators (the server's world, the
// players' counters), and every spectator decodes the snapshots the
// host's tap sent, drawing the world a few hundred ms behind the server.
func TestSpectatorsNeverHoldPredictBack(t *testing.T) {
	cond := netsim.Conditions{Latency: 30 * time.Millisecond}
	const d = 8 * time.Second
	alone, alonePlayers, _ := spectatedMatch(t, "predict", 2, 0, cond, d)
	host, players, specs := spectatedMatch(t, "predict", 2, 8, cond, d)
	if len(specs) != 8 {
		t.Fatalf("%d spectators", len(specs))
	}
	a, b := alone.(*match.Watched).Host.(*predictHost), host.(*match.Watched).Host.(*predictHost)
	if a.Tick() != b.Tick() {
		t.Fatalf("server at tick %d with spectators, %d without", b.Tick(), a.Tick())
	}
	for i := 0; i < a.arena.Bodies(); i++ {
		if a.arena.Body(i) != b.arena.Body(i) {
			t.Fatalf("body %d differs with spectators: %+v, without %+v", i, b.arena.Body(i), a.arena.Body(i))
		}
	}
	if a.Counters() != b.Counters() {
		t.Fatalf("server counters with spectators %+v, without %+v", b.Counters(), a.Counters())
	}
	for i := range players {
		pa, pb := alonePlayers[i].(*predictPlayer), players[i].(*predictPlayer)
		if pa.Stats() != pb.Stats() {
			t.Fatalf("player %d's stats with spectators %+v, without %+v", i, pb.Stats(), pa.Stats())
		}
	}
	checkSpectators(t, host.(*match.Watched).Tap().Server(), specs, d)
}

// checkSpectators: every spectator decoded nearly every snapshot, its
// newest as the server sent it, and draws the world at most half a
// second behind the server's tick (0.75 s).
func checkSpectators(t *testing.T, srv *interp.Server, specs []interpViewer, d time.Duration) {
	t.Helper()
	for i, s := range specs {
		k := s.Counters()
		_, shown, ok := s.View()
		n := interp.Number(srv.Tick() / 2)
		for s.Decoded(n) == nil && n > 0 {
			n--
		}
		sent, got := srv.Sent(n), s.Decoded(n)
		if !ok || k.Snapshots < uint64(d.Seconds()*30*0.8) || sent == nil || got == nil {
			t.Fatalf("spectator %d: %d snapshots, view %v, newest %d", i, k.Snapshots, ok, n)
		}
		for j := range sent.Cubes {
			if sent.Cubes[j] != got.Cubes[j] {
				t.Fatalf("spectator %d: snapshot %d object %d decoded %+v, sent %+v", i, n, j, got.Cubes[j], sent.Cubes[j])
			}
		}
		if i == 0 {
			t.Logf("spectator 0: %+v, showing tick %.1f of %d, render delay %v", k, shown, srv.Tick(), specs[0].(interface{ RenderDelay() time.Duration }).RenderDelay())
		}
		if behind := float64(srv.Tick()) - shown; behind < 0 || behind > 45 {
			t.Fatalf("spectator %d shows tick %.1f, the server is at %d", i, shown, srv.Tick())
		}
	}
}

// interpViewer is what the tests read of a spectator's interp client.
type interpViewer interface {
	Counters() interp.ClientCounters
	View() ([]snapshot.Cube, float64, bool)
	Decoded(interp.Number) *snapshot.Snapshot
}

// TestEightSpectatorsOfInterp: 8 spectators join a 2-viewer interp match
// by the driver's Watch, over 40 ms links losing 5 %; each decodes the
// server's snapshots as its viewers do.
func TestEightSpectatorsOfInterp(t *testing.T) {
	const d = 6 * time.Second
	host, players, specs := spectatedMatch(t, "interp", 2, 8, netsim.Conditions{Latency: 40 * time.Millisecond, Loss: 0.05}, d)
	if len(specs) != 8 || len(players) != 2 {
		t.Fatalf("%d spectators, %d players", len(specs), len(players))
	}
	for _, p := range players {
		specs = append(specs, p.(interpViewer))
	}
	checkSpectators(t, host.(*interpHost).Server, specs, d)
}

// TestStatesyncSpectators: 3 spectators of a table of three (the host's
// bot and two guests) decode the host's world, and draw its cubes and
// the three players' hands and heads.
func TestStatesyncSpectators(t *testing.T) {
	const d = 5 * time.Second
	host, players, specs := spectatedMatch(t, "statesync", 3, 3, netsim.Conditions{Latency: 20 * time.Millisecond}, d)
	if len(players) != 2 || len(specs) != 3 {
		t.Fatalf("%d guests, %d spectators", len(players), len(specs))
	}
	w := host.(*match.Watched)
	checkSpectators(t, w.Tap().Server(), specs, d)
	world := w.Host.(*statesyncHost).world
	views := specs[0].(*spectator).Views(nil)
	if len(views) != 1 || len(views[0].Cubes) != len(world.Cubes)+3*3 {
		t.Fatalf("the spectator draws %d views, %d objects; want the %d cubes and 3 players' 3 parts", len(views), len(views[0].Cubes), len(world.Cubes))
	}
}

// TestServeRecordsSnapshotReplays: predict's, statesync's and interp's
// hosts with Setup.Record write the match's snapshots, which verify and
// draw (ReplayDrawer) as many objects as the match's world.
func TestServeRecordsSnapshotReplays(t *testing.T) {
	for _, tt := range []struct {
		model   string
		players int
		drawn   int // objects drawn at the end
	}{
		{"predict", 2, 2 + 24},
		{"statesync", 2, 0}, // the VR table's cubes and avatars: checked below
		{"interp", 1, 21},   // tower20's 20 cubes and the player
	} {
		t.Run(tt.model, func(t *testing.T) {
			m, sides, setup := modelSides(t, match.Defaults{Model: tt.model, Players: tt.players}, "--players", fmt.Sprint(tt.players), "--layout", "tower20")
			setup.Now, setup.Record = simmatch.Epoch, t.TempDir()
			host, err := sides.NewHost(setup)
			if err != nil {
				t.Fatal(err)
			}
			sm, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 1}}, host)
			if err != nil {
				t.Fatal(err)
			}
			for slot := range m.Clients(tt.players) {
				p, err := sides.NewPlayer(match.PlayerSetup{Setup: setup, Slot: slot, Bot: true})
				if err != nil {
					t.Fatal(err)
				}
				sm.Join(p)
			}
			if err := sm.Run(3 * time.Second); err != nil {
				t.Fatal(err)
			}
			if err := host.(io.Closer).Close(); err != nil {
				t.Fatal(err)
			}
			files, _ := filepath.Glob(filepath.Join(setup.Record, tt.model+"-*.replay"))
			if len(files) != 1 {
				t.Fatalf("replays: %v", files)
			}
			f, err := os.Open(files[0])
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rep, err := snapreplay.Read(f)
			if err != nil {
				t.Fatal(err)
			}
			if n, err := snapreplay.Verify(rep); err != nil || n < 85 {
				t.Fatalf("%d snapshots verified: %v", n, err)
			}
			draw, err := ReplayDrawer(rep.Header)
			if err != nil {
				t.Fatal(err)
			}
			p, err := snapreplay.NewPlayback(rep)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.SeekTick(p.Ticks()); err != nil {
				t.Fatal(err)
			}
			cubes := draw(p.View(), nil)
			want := tt.drawn
			if tt.model == "statesync" {
				want = rep.Header.Objects - 3*2 // two of the four seats empty
			}
			if len(cubes) != want {
				t.Fatalf("%d objects drawn, want %d", len(cubes), want)
			}
		})
	}
}

// spectatorsFirst makes the host's lowest slots spectators: they connect
// before the players.
type spectatorsFirst struct {
	match.Host
	below int
}

func (s *spectatorsFirst) Join(now time.Time, slot int) error {
	if slot < s.below {
		return s.Host.(udpdrive.Spectated).Watch(now, slot)
	}
	return s.Host.Join(now, slot)
}

// TestSpectatorsFirstTakeNoSeat: three spectators connect to a 2-player
// predict match before its players, taking the driver's slots 0 to 2;
// the players, in slots 3 and 4, are seated as players 0 and 1 and play,
// and a third player finds the arena full.
func TestSpectatorsFirstTakeNoSeat(t *testing.T) {
	_, sides, setup := modelSides(t, match.Defaults{Model: "predict", Players: 2}, "--players", "2")
	setup.Now = simmatch.Epoch
	host, err := sides.NewHost(setup)
	if err != nil {
		t.Fatal(err)
	}
	sm, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 2, Conditions: netsim.Conditions{Latency: 20 * time.Millisecond}}}, &spectatorsFirst{Host: host, below: 3})
	if err != nil {
		t.Fatal(err)
	}
	var players []*predictPlayer
	for slot := range 5 {
		p, err := sides.NewPlayer(match.PlayerSetup{Setup: setup, Slot: slot, Bot: true, Spectate: slot < 3})
		if err != nil {
			t.Fatal(err)
		}
		if pp, ok := p.(*predictPlayer); ok {
			players = append(players, pp)
		}
		if _, err := sm.Join(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := sm.Run(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	for i, p := range players {
		if !p.Started() || p.You() != i || p.Stats().Ticks < 100 {
			t.Fatalf("player in slot %d: started %v, seat %d, %d ticks predicted", 3+i, p.Started(), p.You(), p.Stats().Ticks)
		}
	}
	if err := host.Join(sm.Now(), 5); err == nil {
		t.Fatal("a third player seated in a 2-player arena")
	}
}
