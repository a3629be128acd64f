package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/tokenservice"
)

// TestRoomsHostMatchesOfEveryModelAtOnce is issue 27's rooms check: one
// `serve --rooms` process on one UDP port hosts, at once, three lockstep
// matches, two predict matches and a statesync table, each of separate
// `play --bot` processes whose tokens name their match (netphys token
// --match; the table's from the token service's match API), and a seventh lockstep match whose host panics on purpose
// (NETPHYS_TEST_PANIC_MATCH) two seconds in. Every player of the six
// ends as it would alone: the lockstep players of a match agree on their
// checksum, and since the bots play the same inputs in every match, the
// three matches agree with each other too; the predict players compare
// their predictions and the server commits hits; the statesync guests
// hear their host. The doomed match's players are told it failed; the
// server goes on, counts it in its metrics, and exits cleanly on SIGINT.
func TestRoomsHostMatchesOfEveryModelAtOnce(t *testing.T) {
	t.Parallel() // its processes mostly wait for their frames
	bin := buildProgram(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	netphys := func(env []string, args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = append(append(os.Environ(), "NETPHYS_LOG=warn"), env...)
		return cmd
	}
	key, err := netphys(nil, "token", "--new-key").Output()
	if err != nil {
		t.Fatal(err)
	}
	hexKey := strings.TrimSpace(string(key))
	addr := freeUDPAddr(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	metricsAddr := ln.Addr().String()
	ln.Close()

	var serveBuf bytes.Buffer
	serve := netphys([]string{"NETPHYS_TEST_PANIC_MATCH=doomed"}, "serve", "--rooms", "--listen", addr, "--key", hexKey, "--report", "0", "--metrics", metricsAddr)
	serve.Stdout, serve.Stderr = &serveBuf, &serveBuf
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if serve.Process != nil {
			serve.Process.Kill()
			serve.Wait()
		}
	}()

	type match struct {
		id, model, layout string
		players, clients  int // statesync: the host plays one of the players
		ticks             int
	}
	matches := []match{
		{"lock-1", "lockstep", "tower20", 2, 2, 180},
		{"lock-2", "lockstep", "tower20", 2, 2, 180},
		{"lock-3", "lockstep", "tower20", 2, 2, 180},
		{"pred-1", "predict", "", 2, 2, 300}, // the arena: a world of its own, named by none
		{"pred-2", "predict", "", 2, 2, 300},
		{"table", "statesync", "", 3, 2, 180},
		{"doomed", "lockstep", "tower20", 2, 2, 1200},
	}
	// The statesync table's tokens come from the token service's match
	// API, the others' from netphys token.
	backend := roomsBackend(t, hexKey, addr)
	type proc struct {
		cmd *exec.Cmd
		out *bytes.Buffer
	}
	plays := map[string][]proc{}
	id := 0
	for _, m := range matches {
		if m.id == "table" {
			backend.create(fmt.Sprintf(`{"id":%q,"model":%q,"layout":%q,"players":%d}`, m.id, m.model, m.layout, m.players))
		}
		for range m.clients {
			id++
			tok := filepath.Join(dir, fmt.Sprintf("token%d", id))
			if m.id == "table" {
				backend.token(m.id, id, tok)
			} else if out, err := netphys(nil, "token", "--key", hexKey, "--servers", addr, "--client-id", fmt.Sprint(id), "--out", tok,
				"--match", m.id, "--match-model", m.model, "--match-layout", m.layout, "--match-players", fmt.Sprint(m.players)).CombinedOutput(); err != nil {
				t.Fatalf("token: %v\n%s", err, out)
			}
			p := proc{netphys(nil, "play", "--token-file", tok, "--bot", "--http", "", "--ticks", fmt.Sprint(m.ticks), "--linger", "1s", "--report", "0",
				"--model", m.model, "--layout", m.layout, "--players", fmt.Sprint(m.players)), &bytes.Buffer{}}
			p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
			if err := p.cmd.Start(); err != nil {
				t.Fatal(err)
			}
			plays[m.id] = append(plays[m.id], p)
		}
	}
	// outs waits for the players of a match, which must all succeed or
	// all fail.
	outs := func(match string, ok bool) []string {
		t.Helper()
		var outs []string
		for i, p := range plays[match] {
			err := p.cmd.Wait()
			t.Logf("%s, player process %d:\n%s", match, i, p.out)
			if (err == nil) != ok {
				t.Fatalf("%s, player process %d exited with %v, want success %v", match, i, err, ok)
			}
			outs = append(outs, p.out.String())
		}
		return outs
	}

	var lockstepSum string
	for _, m := range []string{"lock-1", "lock-2", "lock-3"} {
		for i, out := range outs(m, true) {
			c := checksumLine.FindStringSubmatch(out)
			if c == nil || c[1] != "180" {
				t.Fatalf("%s, player %d printed no checksum of tick 180", m, i)
			}
			if lockstepSum == "" {
				lockstepSum = c[2]
			} else if c[2] != lockstepSum {
				t.Errorf("%s, player %d ended with checksum %s, another lockstep player with %s", m, i, c[2], lockstepSum)
			}
		}
	}
	compared := regexp.MustCompile(`mispredicted\s+\d+ of (\d+) ticks clear of contacts, \d+ of (\d+) near them`)
	for _, m := range []string{"pred-1", "pred-2"} {
		for i, out := range outs(m, true) {
			c := compared.FindStringSubmatch(out)
			if c == nil {
				t.Fatalf("%s, player %d printed no mispredictions", m, i)
			}
			if n := atoi(t, c[1]) + atoi(t, c[2]); n < 300/2 {
				t.Errorf("%s, player %d compared %d ticks of 300", m, i, n)
			}
		}
	}
	heard := regexp.MustCompile(`packets\s+\d+ sent, ([1-9]\d*) received, 0 malformed`)
	for i, out := range outs("table", true) {
		if !heard.MatchString(out) {
			t.Errorf("table, guest %d did not hear the host, or had packets refused", i)
		}
	}
	for i, out := range outs("doomed", false) {
		if !strings.Contains(out, "this match's host fails on purpose") {
			t.Errorf("doomed, player %d does not say its match failed", i)
		}
	}

	if serve.ProcessState != nil || serve.Process.Signal(syscall.Signal(0)) != nil {
		t.Fatalf("serve is not running after the matches:\n%s", serveBuf.String())
	}
	// The figures of the last second follow a scrape: wait for the last
	// match to close.
	var body string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		resp, err := http.Get("http://" + metricsAddr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		body = string(b)
		if strings.Contains(body, `netphys_rooms_matches_total{event="closed"} 7`) || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range []string{`netphys_rooms_matches_total{event="opened"} 7`, `netphys_rooms_matches_total{event="closed"} 7`,
		`netphys_rooms_matches_total{event="failed"} 1`, `netphys_match_refused_total{reason="match_failed"} 2`, "netphys_rooms_late_ticks_total"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if err := serve.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := serve.Wait(); err != nil {
		t.Errorf("serve: %v", err)
	}
	serve.Process = nil
	got := serveBuf.String()
	t.Logf("server:\n%s", got)
	for _, m := range matches {
		if !strings.Contains(got, "match "+m.id+" player 2 (client id") {
			t.Errorf("the server printed no summary of match %s with its second player", m.id)
		}
	}
	if n := strings.Count(got, "verified equal across players"); n < 3 {
		t.Errorf("%d lockstep matches verified their checksums, want 3", n)
	}
	hits := regexp.MustCompile(`[1-9]\d* hits committed`)
	for _, block := range strings.Split(got, "serve summary") {
		if strings.Contains(block, "  match pred-") && !hits.MatchString(block) {
			t.Errorf("a predict match's summary lacks committed hits:\n%s", block)
		}
	}
	if !strings.Contains(got, "failed             the server's model of this match failed (a bug: panic: NETPHYS_TEST_PANIC_MATCH") {
		t.Errorf("the doomed match's summary does not say it failed")
	}
}

// backend is a token service with the match API, in the test process.
type backend struct {
	t   *testing.T
	url string
}

// roomsBackend serves tokenservice.Matches for a server at addr with
// the key hexKey and the default protocol id.
func roomsBackend(t *testing.T, hexKey, addr string) *backend {
	t.Helper()
	k := keyFlags{hexKey: hexKey}
	key, err := k.key()
	if err != nil {
		t.Fatal(err)
	}
	h := &tokenservice.Handler{Params: netcode.DefaultTokenParams(), PrivateKey: key,
		Authenticate: func(r *http.Request) (uint64, []byte, error) {
			id, err := strconv.ParseUint(r.URL.Query().Get("player"), 10, 64)
			return id, nil, err
		}}
	if h.Params.ProtocolID, err = parseProtocolID(defaultProtocolID); err != nil {
		t.Fatal(err)
	}
	h.Params.ServerAddresses = []netip.AddrPort{netip.MustParseAddrPort(addr)}
	web := httptest.NewServer(&tokenservice.Matches{Tokens: h})
	t.Cleanup(web.Close)
	return &backend{t, web.URL}
}

func (b *backend) create(match string) {
	b.t.Helper()
	resp, err := http.Post(b.url+"/matches", "application/json", strings.NewReader(match))
	if err != nil {
		b.t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		b.t.Fatalf("create %s: HTTP %d %s", match, resp.StatusCode, body)
	}
}

// token writes player's token for match to file.
func (b *backend) token(match string, player int, file string) {
	b.t.Helper()
	resp, err := http.Post(fmt.Sprintf("%s/matches/%s/token?player=%d", b.url, match, player), "", nil)
	if err != nil {
		b.t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.t.Fatalf("token of %s: HTTP %d %s", match, resp.StatusCode, body)
	}
	if err := os.WriteFile(file, body, 0o600); err != nil {
		b.t.Fatal(err)
	}
}

// TestRoomsDrainOpensNoNewMatch: SIGTERM to `serve --rooms` while a
// match runs: a token naming a new match is refused, saying the server
// drains; the running match finishes (equal checksums) and serve then
// exits 0.
func TestRoomsDrainOpensNoNewMatch(t *testing.T) {
	t.Parallel() // its processes mostly wait for their frames
	bin := buildProgram(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	netphys := func(args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = append(os.Environ(), "NETPHYS_LOG=warn")
		return cmd
	}
	key, err := netphys("token", "--new-key").Output()
	if err != nil {
		t.Fatal(err)
	}
	hexKey := strings.TrimSpace(string(key))
	addr := freeUDPAddr(t)
	var serveBuf bytes.Buffer
	serve := netphys("serve", "--rooms", "--listen", addr, "--key", hexKey, "--report", "0")
	serve.Stdout, serve.Stderr = &serveBuf, &serveBuf
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if serve.Process != nil {
			serve.Process.Kill()
			serve.Wait()
		}
	}()
	play := func(id int, match string) (*exec.Cmd, *bytes.Buffer) {
		t.Helper()
		tok := filepath.Join(dir, fmt.Sprintf("token%d", id))
		if out, err := netphys("token", "--key", hexKey, "--servers", addr, "--client-id", fmt.Sprint(id), "--out", tok,
			"--match", match, "--match-model", "lockstep", "--match-layout", "tower20", "--match-players", "2").CombinedOutput(); err != nil {
			t.Fatalf("token: %v\n%s", err, out)
		}
		cmd := netphys("play", "--token-file", tok, "--bot", "--http", "", "--ticks", "300", "--linger", "1s", "--report", "0",
			"--model", "lockstep", "--layout", "tower20", "--players", "2")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &out
	}
	a, aOut := play(1, "running")
	b, bOut := play(2, "running")
	time.Sleep(2 * time.Second) // the match runs
	if err := serve.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	late, lateOut := play(3, "late")
	if err := late.Wait(); err == nil || !strings.Contains(lateOut.String(), "draining") {
		t.Errorf("the player of a new match during the drain: %v\n%s", err, lateOut)
	}
	var sums []string
	for i, p := range []*exec.Cmd{a, b} {
		out := []*bytes.Buffer{aOut, bOut}[i]
		if err := p.Wait(); err != nil {
			t.Fatalf("player %d of the running match: %v\n%s", i, err, out)
		}
		c := checksumLine.FindStringSubmatch(out.String())
		if c == nil || c[1] != "300" {
			t.Fatalf("player %d printed no checksum of tick 300:\n%s", i, out)
		}
		sums = append(sums, c[2])
	}
	if sums[0] != sums[1] {
		t.Errorf("checksums %v differ", sums)
	}
	if err := serve.Wait(); err != nil {
		t.Errorf("serve after the drain: %v\n%s", err, serveBuf.String())
	}
	serve.Process = nil
	if !strings.Contains(serveBuf.String(), "match running") {
		t.Errorf("serve printed no summary of the running match:\n%s", serveBuf.String())
	}
}
