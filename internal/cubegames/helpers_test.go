package cubegames

import (
	"context"
	"flag"
	"log/slog"
	"strings"
	"testing"

	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/transport/netcode"
)

var quiet = slog.New(slog.DiscardHandler)

// modelSides declares the commands' flags with defaults d, parses args
// and returns what a command would build from them.
func modelSides(t *testing.T, d match.Defaults, args ...string) (*match.Model, match.Sides, match.Setup) {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f := match.DeclareFlags(fs, d)
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

// headlessDemo runs the demo with cfg, logs its summary, fails the test
// on an error, and requires the summary to contain every one of want.
func headlessDemo(t *testing.T, cfg match.DemoConfig, want ...string) string {
	t.Helper()
	s, err := match.Demo(context.Background(), cfg)
	var out strings.Builder
	s.Print(&out)
	t.Logf("\n%s", out.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(out.String(), w) {
			t.Errorf("summary lacks %q", w)
		}
	}
	return out.String()
}

// startServe runs Start with cfg until the test ends.
func startServe(t *testing.T, cfg match.ServeConfig) *match.Running {
	t.Helper()
	r, err := match.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Stop() })
	return r
}

// token is client id's connect token for r.
func token(t *testing.T, r *match.Running, id int) *netcode.ConnectToken {
	t.Helper()
	tok, err := r.Token(uint64(id))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}
