package main

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestFourPlayersPushTheTowersAndConverge: over three seeds at 120 ms
// and 10 % loss, and one at 250 ms and 25 %, the guests push crates
// (the host saw them take authority), the towers are pushed over, and
// after play every guest holds the host's bits with everything at rest
// under the default authority within 10 s.
func TestFourPlayersPushTheTowersAndConverge(t *testing.T) {
	cases := []Options{
		{RTT: 120 * time.Millisecond, Loss: 0.1, Seed: 1},
		{RTT: 120 * time.Millisecond, Loss: 0.1, Seed: 2},
		{RTT: 120 * time.Millisecond, Loss: 0.1, Seed: 3},
		{RTT: 250 * time.Millisecond, Loss: 0.25, Seed: 4},
	}
	for _, o := range cases {
		o.Players, o.Towers, o.Height, o.Play, o.Settle = 4, 4, 5, 6*time.Second, 10*time.Second
		r, err := Run(o)
		if err != nil {
			t.Fatal(err)
		}
		if r.Taken == 0 || r.Moved < 10 {
			t.Errorf("%v / %.2f seed %d: guests took %d crates, %d of 20 moved", o.RTT, o.Loss, o.Seed, r.Taken, r.Moved)
		}
		if !r.Converged {
			t.Errorf("%v / %.2f seed %d: not converged within 10 s", o.RTT, o.Loss, o.Seed)
		}
		if r.Forged != 0 || len(r.UpKbps) != 3 || r.UpKbps[0] <= 0 || r.DownKbps[0] <= 0 {
			t.Errorf("%v / %.2f seed %d: %+v", o.RTT, o.Loss, o.Seed, r)
		}
	}
}

func TestTheSameSeedGivesTheSameFigures(t *testing.T) {
	o := Options{Players: 3, Towers: 2, Height: 4, Play: 4 * time.Second, Settle: 5 * time.Second, RTT: 200 * time.Millisecond, Loss: 0.1, Seed: 5}
	a, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("two runs of seed 5 differ:\n%+v\n%+v", a, b)
	}
}

func TestCommand(t *testing.T) {
	var out strings.Builder
	if err := command([]string{"-players", "2", "-play", "3s", "-settle", "5s"}, &out); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "guest 1:") || strings.Contains(s, "guest 2:") || !strings.Contains(s, "kbps down") {
		t.Fatalf("output:\n%s", s)
	}
	for _, args := range [][]string{{"-players", "5"}, {"-towers", "0"}, {"-height", "11"}, {"-play", "0s"}, {"-nosuchflag"}} {
		if err := command(args, &out); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
