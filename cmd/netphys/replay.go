package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/netmodel/lockstep/replay"
	"github.com/netphys/netphys/scene"
)

// replay: play a recorded match. A lockstep match of the cube world
// headless re-simulates every tick and compares every recorded checksum;
// a snapshot replay (predict, statesync, interp: replay_snap.go) decodes
// every snapshot and compares its checksum. With --http either plays in
// the viewer with pause, speed and seek (replay_view.go). --record-sample
// writes a scripted lockstep match of the given length instead, the
// figure of the docs.

func init() {
	register(&command{
		name:    "replay",
		summary: "verify a recorded match (lockstep bit for bit; predict, statesync, interp snapshot by snapshot), or play it in the viewer with --http; --record-sample writes a lockstep one",
		args:    "FILE",
		setup:   setupReplay,
	})
}

// cubeWorld is the Header.Game of the cube world's replays.
const cubeWorld = scene.ReplayGame

func setupReplay(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
	httpAddr := fs.String("http", "", "play in the viewer served on this `address` (such as 127.0.0.1:8080) with pause, speed and seek, instead of verifying headless")
	speed := fs.Float64("speed", 1, "with --http: the starting speed, 0.25 to 8")
	sample := fs.Duration("record-sample", 0, "instead of reading FILE, record a scripted match of this length (4 bots playing their scripted minute over and over) to --out, then verify it")
	out := fs.String("out", "", "with --record-sample: the `file` to write")
	layoutName := fs.String("layout", scene.Cubes900.String(), "with --record-sample: the layout (cubes900, tower20, pyramid10)")
	players := fs.Int("players", 4, "with --record-sample: players, 1 to 4")
	sumEvery := fs.Int("sum-every", 1, "with --record-sample: a checksum every this many ticks (1: each tick, 4 bytes a tick)")
	return func(ctx context.Context, args []string) error {
		w := stdoutOf(fs)
		if *sample != 0 {
			if len(args) > 0 {
				return fmt.Errorf("replay --record-sample writes --out and reads no FILE: %q is extra", args)
			}
			if *sample < 0 || *out == "" {
				return fmt.Errorf("replay --record-sample %v: want a positive length and --out FILE", *sample)
			}
			if *players < 1 || *players > lockstep.MaxPlayers || *sumEvery < 1 || *sumEvery > 65535 {
				return fmt.Errorf("replay --record-sample: --players %d (want 1 to 4), --sum-every %d (want 1 to 65535)", *players, *sumEvery)
			}
			layout, err := scene.ParseLayout(*layoutName)
			if err != nil {
				return err
			}
			start := time.Now()
			if err := recordSample(ctx, *out, layout, *players, *sample, lockstep.Tick(*sumEvery)); err != nil {
				return err
			}
			fmt.Fprintf(w, "recorded %v of %s with %d players to %s in %v\n", *sample, layout, *players, *out, time.Since(start).Round(time.Second))
			args = []string{*out}
		}
		if len(args) != 1 {
			return errors.New("replay: give one FILE (a replay written by serve --record or replay --record-sample)")
		}
		if *speed < 0.25 || *speed > 8 {
			return fmt.Errorf("--speed %v: want 0.25 to 8", *speed)
		}
		snap, err := isSnapshotReplay(args[0])
		if err != nil {
			return err
		}
		if snap {
			rep, err := readSnapshotReplay(args[0])
			if err != nil {
				return err
			}
			if *httpAddr != "" {
				return playSnapshotReplay(ctx, w, rep, *httpAddr, *speed)
			}
			return verifySnapshotReplay(w, args[0], rep)
		}
		rep, err := readReplay(args[0])
		if err != nil {
			return err
		}
		if *httpAddr != "" {
			return playReplay(ctx, w, rep, *httpAddr, *speed)
		}
		return verifyReplay(ctx, w, args[0], rep)
	}
}

// readReplay reads a replay of the cube world.
func readReplay(path string) (*replay.Replay[scene.Input], error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rep, err := replay.Read[scene.Input](f)
	if err != nil {
		if rep != nil && rep.Ticks() > 0 {
			return nil, fmt.Errorf("%s: %w (the file reads up to tick %d; a recording cut short by a crash ends between chunks)", path, err, rep.Ticks())
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if rep.Header.Game != cubeWorld {
		return nil, fmt.Errorf("%s: a replay of %q: this program plays the %s", path, rep.Header.Game, cubeWorld)
	}
	if rep.Ticks() == 0 {
		return nil, fmt.Errorf("%s: the replay holds no tick", path)
	}
	return rep, nil
}

// newCubeWorld builds the starting state of a replay's match.
func newCubeWorld(h replay.Header) (*scene.Lockstep, error) {
	layout, err := scene.ParseLayout(h.Variant)
	if err != nil {
		return nil, fmt.Errorf("replay: variant %q: %w", h.Variant, err)
	}
	return scene.NewLockstep(layout, scene.DefaultConfig(), h.Players)
}

// verifyReplay re-simulates the replay and compares every checksum.
func verifyReplay(ctx context.Context, w io.Writer, path string, rep *replay.Replay[scene.Input]) error {
	g, err := newCubeWorld(rep.Header)
	if err != nil {
		return err
	}
	h := rep.Header
	fmt.Fprintf(w, "replay %s: %s %s %s, %d players, recorded by %s\n", path, h.Model, h.Game, h.Variant, h.Players, orNone(h.Party))
	p := replay.NewPlayback(rep, lockstep.Game[scene.Input](g), 0)
	for !p.Done() {
		if p.Tick()%600 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		p.Step()
	}
	minutes := rep.Seconds() / 60
	fmt.Fprintf(w, "ticks: %d (%v at %.0f Hz)\n", rep.Ticks(), time.Duration(rep.Seconds()*float64(time.Second)).Round(time.Millisecond), 1/h.TickDuration.Seconds())
	fmt.Fprintf(w, "file: %d bytes, %.2f kB per minute\n", rep.Size, float64(rep.Size)/1000/minutes)
	checked, agreed, first := p.Checked()
	if first != nil {
		fmt.Fprintf(w, "checksums: %d of %d agree; the first that differs is tick %d (re-simulated %#08x, recorded %#08x)\n", agreed, checked, first.Tick, first.Got, first.Want)
		return fmt.Errorf("replay %s does not re-simulate bit for bit from tick %d: another build or machine, or not a recording of this game (netphys desync compares two recordings)", path, first.Tick)
	}
	fmt.Fprintf(w, "checksums: %d of %d agree\n", agreed, checked)
	if len(rep.States) > 0 {
		fmt.Fprintf(w, "states kept: %d (netphys desync compares them)\n", len(rep.States))
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(unnamed)"
	}
	return s
}

// sampleNote is the Header.Note of --record-sample's matches.
const sampleNote = "replay --record-sample: scene.PlayerScript(p) played in a loop by every player"

// recordSample writes a scripted match of the cube world: every player
// plays its scripted minute (scene.PlayerScript) over and over, stepped
// offline through the recorder's wrapped game, as a server's referee
// steps the confirmed ticks.
func recordSample(ctx context.Context, path string, layout scene.Layout, players int, d time.Duration, sumEvery lockstep.Tick) error {
	cfg := lockstep.DefaultConfig()
	cfg.Players = players
	h := replay.NewHeader(cfg, cubeWorld, layout.String(), "sample")
	h.Note, h.SumEvery = sampleNote, sumEvery
	world, err := scene.NewLockstep(layout, scene.DefaultConfig(), players)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	rec, err := replay.NewRecorder[scene.Input](bw, h)
	if err != nil {
		f.Close()
		return err
	}
	game := rec.Wrap(world)
	scripts := make([]scene.Script, players)
	for p := range scripts {
		scripts[p] = scene.PlayerScript(p)
	}
	inputs := make([]scene.Input, players)
	ticks := int(d / cfg.TickDuration)
	for t := range ticks {
		if t%600 == 0 && ctx.Err() != nil {
			f.Close()
			return ctx.Err()
		}
		for p, sc := range scripts {
			inputs[p] = sc.At(t % sc.Len())
		}
		game.Step(inputs)
	}
	err = errors.Join(rec.Close(), bw.Flush())
	return errors.Join(err, f.Close())
}
