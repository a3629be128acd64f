package main

import (
	"context"
	"flag"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/match"
)

func TestAMinuteAt120msAnd5PercentLoss(t *testing.T) {
	var out strings.Builder
	r, err := Run(context.Background(), Options{Duration: time.Minute, RTT: 120 * time.Millisecond, Loss: 0.05, Seed: 1, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
	a, b := r.Played[0], r.Played[1]
	if len(a) < 3 || len(b) < len(a)-1 || len(b) > len(a)+1 {
		t.Fatalf("goals announced: %v and %v; want a few, the same on both sides", a, b)
	}
	for i := 1; i < len(a); i++ {
		if a[i].Tick <= a[i-1].Tick {
			t.Fatalf("goal %d announced again or out of order: %v", i, a)
		}
	}
	if r.Rollbacks[0] == 0 || r.Rollbacks[1] == 0 || r.Verified < 50 {
		t.Fatalf("rollbacks %v, %d ticks verified: the match did not play on predictions", r.Rollbacks, r.Verified)
	}
	if n := strings.Count(out.String(), "goal for"); n != len(a)+len(b) {
		t.Fatalf("%d goal lines for %d goals:\n%s", n, len(a)+len(b), out.String())
	}
}

func TestTheSameSeedPlaysTheSameMatch(t *testing.T) {
	opts := Options{Duration: 20 * time.Second, RTT: 200 * time.Millisecond, Loss: 0.1, Seed: 3}
	r1, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r1, r2) {
		t.Fatalf("two runs of seed 3 differ:\n%+v\n%+v", r1, r2)
	}
}

func TestTwoSecondsOverUDP(t *testing.T) {
	r, err := Run(context.Background(), Options{Duration: 2 * time.Second, UDP: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestCommand(t *testing.T) {
	var out strings.Builder
	if err := command([]string{"-duration", "20s", "-rtt", "80ms", "-loss", "0.02"}, &out); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "goal for player") || !strings.Contains(s, "checksums compared by the server") {
		t.Fatalf("output:\n%s", s)
	}
	for _, args := range [][]string{{"-duration", "0s"}, {"-loss", "1"}, {"-nosuchflag"}} {
		if err := command(args, &out); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

// TestHostedByTheRuntime: pong, registered with the runtime as any game
// is, played by the runtime's server and two players over UDP on loopback
// with netcode tokens, to tick 240: both players end with the same
// checksum of tick 240, the server verified ticks of the match and
// printed its summary when the players left.
func TestHostedByTheRuntime(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	models := match.DeclareFlags(fs, match.Defaults{Model: "pong", Players: 2})
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	m, sides, err := models.Sides()
	if err != nil {
		t.Fatal(err)
	}
	setup, err := models.Setup(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	h, err := RunHosted(context.Background(), m, sides, setup, 240)
	var out strings.Builder
	h.Server.Print(&out)
	for _, p := range h.Players {
		p.Print(&out)
	}
	t.Logf("\n%s", out.String())
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Check(); err != nil {
		t.Fatal(err)
	}
	if sum, _ := h.Players[0].Value(h.Players[0].Sections[0].Name, "checksum"); !strings.HasPrefix(sum, "tick 240 0x") {
		t.Errorf("checksum line %q, want tick 240's", sum)
	}
	if agree := match.Agreement(m, sides, setup); agree != "pong (rollback) for 2 players" {
		t.Errorf("agreement %q", agree)
	}
}

func TestHostedCommand(t *testing.T) {
	var out strings.Builder
	if err := command([]string{"-hosted", "-pong-pure", "-duration", "3s"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"serve summary: model pong", "ticks verified equal across players", "play summary: model pong", "checksum           tick 180 0x"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
