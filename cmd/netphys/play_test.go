package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/netphys/netphys/internal/syncbuf"
)

func TestRuntimeCommandsRefuseBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"play", "--bot"}, "connect token"},
		{[]string{"play", "--http", "", "--token", "x"}, "--bot"},
		{[]string{"play", "--model", "nope", "--bot"}, "unknown model"},
		{[]string{"play", "--players", "0", "--bot"}, "--players"},
		{[]string{"play", "--bot", "--ticks", "-1", "--token", "x"}, "negative"},
		{[]string{"play", "--bot", "--token", "not a token"}, "token"},
		{[]string{"demo", "--model", "nope", "--headless"}, "unknown model"},
		{[]string{"demo", "--model", "nope", "--headless", "--loss", "150%"}, "150%"},
		{[]string{"serve", "--model", "nope", "--key", strings.Repeat("ab", 32)}, "unknown model"},
		{[]string{"serve", "--admin", "127.0.0.1:0", "--key", strings.Repeat("ab", 32)}, "give --rooms"},
		{[]string{"serve", "--rooms", "--http", "127.0.0.1:0", "--key", strings.Repeat("ab", 32)}, "no viewer"},
		{[]string{"serve", "--rooms", "--model", "statesync", "--players", "99", "--key", strings.Repeat("ab", 32)}, "--players 99"},
		{[]string{"token", "--match", "m 1", "--key", strings.Repeat("ab", 32)}, "letters"},
		{[]string{"token", "--match", "m", "--user-data", "x", "--key", strings.Repeat("ab", 32)}, "not both"},
	} {
		var out strings.Builder
		err := run(context.Background(), c.args, &out)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want one mentioning %q", c.args, err, c.want)
		}
	}
}

func TestRuntimeHelpNamesTheModelFlags(t *testing.T) {
	for _, cmd := range []string{"serve", "play", "demo"} {
		var out strings.Builder
		run(context.Background(), []string{cmd, "--help"}, &out)
		for _, flag := range []string{"-model", "-players"} {
			if !strings.Contains(out.String(), flag) {
				t.Errorf("%s --help lacks %s:\n%s", cmd, flag, out.String())
			}
		}
	}
}

// TestLockstepMatchBetweenProcesses is issue 9's separate-process check:
// `serve --model lockstep` and four `play --model lockstep --bot`
// processes on loopback; every player stops after the same tick and
// prints the checksum of its world there, and the four checksums are
// equal.
func TestLockstepMatchBetweenProcesses(t *testing.T) {
	processTest(t)
	const players, ticks = 4, 240
	outs, serveOut := processMatch(t, players, ticks, "--model", "lockstep", "--layout", "tower20")
	sameChecksum(t, ticks, outs)
	if !strings.Contains(serveOut, "verified equal") || !strings.Contains(serveOut, "player 4") {
		t.Errorf("server summary lacks the verified checksums or a player")
	}
}

// processMatch runs the program, built once per test binary, as a server
// and players × `play --bot --ticks ticks` processes on loopback, with the
// match flags (model, layout) and --players (unless the flags hold it) added
// to each. It waits for
// every player, stops the server with SIGINT as Ctrl-C would, requires
// every process to exit cleanly, and returns their outputs.
func processMatch(t *testing.T, players, ticks int, match ...string) (playerOuts []string, serveOut string) {
	t.Helper()
	p := newProcs(t, 90*time.Second)
	if !slices.Contains(match, "--players") { // statesync's table counts the host
		match = append(match, "--players", fmt.Sprint(players))
	}
	serve, serveBuf := p.serve(nil, match...)
	plays := make([]*exec.Cmd, players)
	outs := make([]*syncbuf.Buffer, players)
	for i := range plays {
		tok := p.token(i + 1)
		plays[i] = p.command(append([]string{"play", "--token-file", tok, "--bot", "--http", "", "--ticks", fmt.Sprint(ticks),
			"--linger", "1s", "--report", "0"}, match...)...)
		outs[i] = p.start(plays[i])
	}
	for i, pl := range plays {
		err := pl.Wait()
		t.Logf("player process %d:\n%s", i, outs[i])
		if err != nil {
			t.Fatalf("player process %d: %v", i, err)
		}
		playerOuts = append(playerOuts, outs[i].String())
	}
	if err := serve.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := serve.Wait(); err != nil {
		t.Errorf("serve: %v\n%s", err, serveBuf.String())
	}
	t.Logf("server:\n%s", serveBuf.String())
	return playerOuts, serveBuf.String()
}

// The program, built once for the tests that run it as processes.
var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

func buildProgram(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "netphys-test"); buildErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(buildDir, "netphys"), ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(buildDir, "netphys")
}

func TestMain(m *testing.M) {
	raiseParallel()
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

var checksumLine = regexp.MustCompile(`checksum\s+tick (\d+) (0x[0-9a-f]{16})`)

// freeUDPAddr returns a loopback UDP address nothing is bound to now.
func freeUDPAddr(t *testing.T) string {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().String()
}
