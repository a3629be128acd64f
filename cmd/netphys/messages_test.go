package main

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// closedUDPPort is a loopback UDP port nothing listens on (bound, then
// closed).
func closedUDPPort(t *testing.T) string {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	addr := c.LocalAddr().String()
	c.Close()
	return addr
}

// TestCLIMessages is the table of the messages: what each command
// said before and what it says now, run through run(...) as the binary
// does (main turns errNoCommand into exit 2, any other error into exit 1).
func TestCLIMessages(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key.hex")
	if err := os.WriteFile(keyFile, []byte(strings.Repeat("ab", 32)), 0o600); err != nil {
		t.Fatal(err)
	}
	closed := closedUDPPort(t)
	tokFile := filepath.Join(dir, "p1.token")
	if err := run(context.Background(), []string{"token", "--key-file", keyFile, "--servers", closed, "--client-id", "1", "--out", tokFile}, new(strings.Builder)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		args   []string
		before string   // what the command said before the fix
		want   []string // in the error now
		is     error    // and the error it wraps, if any
	}{
		{"no command", nil, "the usage, exit 0", []string{"no command given"}, errNoCommand},
		{"token with an extra argument", []string{"token", "--new-key", "extra"}, "a key, extra ignored", []string{`["extra"] is extra`}, nil},
		{"unknown command", []string{"plya"}, "-", []string{`unknown command "plya" (run netphys --help)`}, nil},
		{"play with no server", []string{"play", "--model", "lockstep", "--token-file", tokFile, "--bot", "--http", "", "--connect-timeout", "1s"},
			"play: context deadline exceeded", []string{"play: no answer from the server after ", "nothing listens at " + closed}, nil},
		{"load with no server", []string{"load", "--model", "lockstep", "--players", "2", "--clients", "2", "--key-file", keyFile, "--servers", closed, "--connect-timeout", "1s"},
			"context deadline exceeded (twice)", []string{"load: 2 of 2 clients could not connect; the first: no answer from the server after ", "nothing listens at " + closed}, nil},
		{"play without keys or bot", []string{"play", "--token-file", tokFile, "--http", ""}, "-", []string{"without --http the page's keys cannot drive the player: give --bot"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var out strings.Builder
			err := run(ctx, c.args, &out)
			if err == nil {
				t.Fatalf("netphys %q: no error, want one saying %q (before: %q)", c.args, c.want, c.before)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("netphys %q: error %v, want one saying %q (before: %q)", c.args, err, w, c.before)
				}
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Fatalf("netphys %q: error %v is not %v", c.args, err, c.is)
			}
		})
	}
}

// TestLoadServerCost: load reads the serve process's CPU time from
// /proc/pid/stat and prints it per client, rounded.
func TestLoadServerCost(t *testing.T) {
	// utime 250 and stime 50 ticks, after a command name with a space and a parenthesis.
	stat := "4242 (net (phys) x) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 50 0 0 20 0 8 0 100 0 0"
	cpu, err := parseProcCPU(stat)
	if err != nil || cpu != 3*time.Second {
		t.Fatalf("parseProcCPU: %v, %v; want 3s", cpu, err)
	}
	if _, err := parseProcCPU("4242 (x) S 1 2"); err == nil {
		t.Fatal("a short stat line was read")
	}
	var out strings.Builder
	printServerCost(&out, 3*time.Second, 10*time.Second, 64)
	if want := "server cost: 30 % of a core for 64 clients over 10s: 0.469 % of a core, 4688 µs of CPU per second, per client\n"; out.String() != want {
		t.Fatalf("server cost line\n%q, want\n%q", out.String(), want)
	}
	if _, err := processCPU(os.Getpid()); err != nil && !strings.Contains(err.Error(), "needs Linux") {
		t.Fatalf("processCPU of this process: %v", err)
	}
}
