package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
)

func TestEveryCommandHasHelp(t *testing.T) {
	if len(commands) < 7 {
		t.Fatalf("%d commands registered, want at least 7", len(commands))
	}
	for name, c := range commands {
		var out strings.Builder
		args := append(strings.Fields(name), "--help")
		err := run(context.Background(), args, &out)
		if !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%s --help: err %v, want flag.ErrHelp", name, err)
		}
		if !strings.Contains(out.String(), "usage: netphys "+name) || !strings.Contains(out.String(), c.summary) {
			t.Errorf("%s --help printed:\n%s", name, out.String())
		}
	}
}

func TestTopLevelHelpListsCommands(t *testing.T) {
	if err := run(context.Background(), nil, io.Discard); !errors.Is(err, errNoCommand) {
		t.Fatalf("no command: err %v, want errNoCommand (exit status 2)", err)
	}
	for _, args := range [][]string{{"--help"}, {"help"}} {
		var out strings.Builder
		if err := run(context.Background(), args, &out); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		for name := range commands {
			if !strings.Contains(out.String(), name) {
				t.Errorf("%q: command list misses %q", args, name)
			}
		}
	}
	var out strings.Builder
	if err := run(context.Background(), []string{"bench"}, &out); err != nil || !strings.Contains(out.String(), "bench physics") {
		t.Fatalf("bench alone: %v\n%s", err, out.String())
	}
}

func TestUnknownCommandIsAnError(t *testing.T) {
	var out strings.Builder
	for _, args := range [][]string{{"nope"}, {"bench", "nope"}} {
		if err := run(context.Background(), args, &out); err == nil || !strings.Contains(err.Error(), "unknown command") {
			t.Errorf("%q: err %v, want unknown command", args, err)
		}
	}
}

// TestBadFlagValuesAreErrors: bad values fail before anything runs or
// prints, with a message naming the flag.
func TestBadFlagValuesAreErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"demo", "--loss", "150%", "--headless"}, "--loss"},
		{[]string{"demo", "--loss", "5", "--headless"}, "write 5%"},
		{[]string{"demo", "--layout", "castle", "--headless"}, "castle"},
		{[]string{"demo", "--rate", "0", "--headless"}, "--rate 0"},
		{[]string{"demo", "--rate", "1000", "--headless"}, "--rate 1000"},
		{[]string{"demo", "--duration", "-5s", "--headless"}, "--duration -5s"},
		{[]string{"demo", "--model", "statesync", "--players", "1", "--headless"}, "--players 1"},
		{[]string{"demo", "--model", "statesync", "--players", "5", "--headless"}, "--players 5"},
		{[]string{"netsim", "--forward", "127.0.0.1:1", "--bandwidth", "fast"}, "--bandwidth"},
		{[]string{"netsim", "--forward", "127.0.0.1:1", "--stats", "-1s"}, "--stats"},
		{[]string{"token", "--new-key", "extra"}, `token takes no arguments, only flags: ["extra"] is extra`},
		{[]string{"serve", "--key", strings.Repeat("ab", 32), "--listen", "127.0.0.1:99999"}, "--listen 127.0.0.1:99999: port 99999 is out of range"},
		{[]string{"serve", "--key", strings.Repeat("ab", 32), "--listen", "localhost:4000"}, "--listen localhost:4000: give an IP address and port"},
		{[]string{"serve", "--key", strings.Repeat("ab", 32), "--model", "bogus"}, `unknown model "bogus" (known: echo, interp, lockstep, predict, statesync)`},
		{[]string{"serve", "--key", strings.Repeat("ab", 32), "--model", "predict", "--players", "20"}, "--players 20: model predict plays 1 to 16 players"},
		{[]string{"serve", "--key", strings.Repeat("ab", 32), "--model", "lockstep", "--players", "5"}, "--players 5: model lockstep plays 1 to 4 players"},
		{[]string{"play", "--model", "statesync", "--players", "5", "--token", "x"}, "--players 5: model statesync plays 2 to 4 players (its host plays 1 of them)"},
		{[]string{"demo", "--model", "state", "--players", "99", "--headless"}, "--players 99: the plain state demo"},
		{[]string{"demo", "--model", "bogus", "--headless"}, `unknown model "bogus" (known: state, interp, lockstep, predict, statesync)`},
	} {
		var out strings.Builder
		err := run(context.Background(), tt.args, &out)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err %v, want it to mention %q", tt.args, err, tt.want)
		}
		if out.Len() > 0 {
			t.Errorf("%q printed before failing:\n%s", tt.args, out.String())
		}
	}
}
