package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/netphys/netphys/match"
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
// three matches agree with each other and with a lone match of the same
// bots on a plain `serve` beside them; the predict players compare
// their predictions and the server commits hits; the statesync guests
// converge on their host's world bit for bit, as a lone table's do
// (TestStatesyncProcessesConvergeBitForBit). The doomed match's players
// are told it failed; the server goes on, counts it in its metrics, and
// exits cleanly on SIGINT. Each of the six recorded its own replay
// (serve --record: DIR/match-ID/), which netphys replay verifies.
func TestRoomsHostMatchesOfEveryModelAtOnce(t *testing.T) {
	processTest(t)
	p := newProcs(t, 2*time.Minute)
	hexKey, addr := p.hexKey, p.addr
	metricsAddr := freeTCPAddr(t)

	record := t.TempDir()
	serve, serveBuf := p.serve([]string{"NETPHYS_TEST_PANIC_MATCH=doomed"}, "--rooms", "--metrics", metricsAddr, "--record", record)

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
		// As long as the lone table of TestStatesyncProcessesConvergeBitForBit,
		// whose bots have stacked their cubes by then, with its linger.
		{"table", "statesync", "", 3, 2, 900},
		{"doomed", "lockstep", "tower20", 2, 2, 1200},
	}
	// The statesync table's tokens come from the token service's match
	// API, the others' from netphys token.
	backend := roomsBackend(t, hexKey, addr)
	plays := map[string][]proc{}
	id := 0
	for _, m := range matches {
		if m.id == "table" {
			backend.create(fmt.Sprintf(`{"id":%q,"model":%q,"layout":%q,"players":%d}`, m.id, m.model, m.layout, m.players))
		}
		for range m.clients {
			id++
			var tok string
			if m.id == "table" {
				tok = filepath.Join(p.dir, fmt.Sprintf("table%d", id))
				backend.token(m.id, id, tok)
			} else {
				tok = p.token(id, "--match", m.id, "--match-model", m.model, "--match-layout", m.layout, "--match-players", fmt.Sprint(m.players))
			}
			args := botArgs(tok, m.ticks, "--model", m.model, "--layout", m.layout, "--players", fmt.Sprint(m.players))
			if m.model == "statesync" {
				args = append(args, "--linger", "4s") // the table comes to rest
			}
			plays[m.id] = append(plays[m.id], p.run(nil, args...))
		}
	}
	// outs waits for the players of a match, which must all succeed or
	// all fail.
	outs := func(match string, ok bool) []string {
		t.Helper()
		var outs []string
		for i, p := range plays[match] {
			outs = append(outs, p.wait(t, fmt.Sprintf("%s, player process %d", match, i), ok))
		}
		return outs
	}

	// The live per-match figures, read while the table plays (15 s):
	// its two guests, traffic both ways and its CPU per tick above zero.
	tableFigure := func(body, name, labels string) float64 {
		m := regexp.MustCompile(regexp.QuoteMeta(name+"{"+labels) + `match="table",model="statesync"\} (\S+)`).FindStringSubmatch(body)
		if m == nil {
			return 0
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(250 * time.Millisecond) {
		body, _ := tryMetricsPage(t, metricsAddr) // "" while serve does not listen yet
		if tableFigure(body, "netphys_room_players", "") == 2 && tableFigure(body, "netphys_room_kbps", `direction="down",`) > 0 &&
			tableFigure(body, "netphys_room_kbps", `direction="up",`) > 0 {
			if tableFigure(body, "netphys_room_cpu_per_tick_seconds", "") <= 0 {
				t.Errorf("the table's live figures lack its CPU per tick:\n%s", body)
			}
			if !strings.Contains(body, `netphys_room_late_ticks_total{match="table",model="statesync"}`) || !strings.Contains(body, `netphys_room_failed{match="table",model="statesync"} 0`) {
				t.Errorf("the table's live figures lack its late ticks or its failed flag:\n%s", body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the table's two players never showed in the live figures within a minute:\n%s", body)
		}
	}

	var lockstepOuts []string // lock-1's two players, then lock-2's, then lock-3's
	for _, m := range []string{"lock-1", "lock-2", "lock-3"} {
		lockstepOuts = append(lockstepOuts, outs(m, true)...)
	}
	lockstepSum := sameChecksum(t, 180, lockstepOuts)
	compared := regexp.MustCompile(`mispredicted\s+\d+ of (\d+) ticks clear of contacts, \d+ of (\d+) near them`)
	for _, m := range []string{"pred-1", "pred-2"} {
		for i, out := range outs(m, true) {
			c := compared.FindStringSubmatch(out)
			if c == nil {
				t.Fatalf("%s, player %d printed no mispredictions", m, i)
			}
			// A quarter, where a lone match's test wants half: the one
			// goroutine of the rooms steps seven matches here, the table's
			// host for 15 s among them, and on a loaded machine (a whole
			// cmd/netphys run at load 14) it sent the predict players
			// fewer states to compare with (104-117 of 300 ticks).
			if n := atoi(t, c[1]) + atoi(t, c[2]); n < 300/4 {
				t.Errorf("%s, player %d compared %d ticks of 300", m, i, n)
			}
		}
	}
	// The lone lockstep match the three must equal: a plain serve of its
	// own, the same bots, while the table plays on (not beside the
	// predict matches, which a loaded machine starves first).
	alone := newProcs(t, 2*time.Minute)
	lockstep := []string{"--model", "lockstep", "--layout", "tower20", "--players", "2"}
	alone.serve(nil, lockstep...)
	var alonePlays []proc
	for id := 1; id <= 2; id++ {
		alonePlays = append(alonePlays, alone.run(nil, botArgs(alone.token(id), 180, lockstep...)...))
	}
	if aloneSum := sameChecksum(t, 180, waitAll(t, alonePlays)); aloneSum != lockstepSum {
		t.Errorf("the rooms' lockstep matches ended with checksum %s, the same bots alone with %s", lockstepSum, aloneSum)
	}
	heard := regexp.MustCompile(`packets\s+\d+ sent, ([1-9]\d*) received, 0 malformed`)
	for i, out := range outs("table", true) {
		if !heard.MatchString(out) {
			t.Errorf("table, guest %d did not hear the host, or had packets refused", i)
		}
		if m := guestAgreed.FindStringSubmatch(out); m == nil || atoi(t, m[3]) < 2 {
			t.Errorf("table, guest %d did not converge on the host's world bit for bit (agreement %q)", i, m)
		}
	}
	for i, out := range outs("doomed", false) {
		if !strings.Contains(out, "this match's host fails on purpose") {
			t.Errorf("doomed, player %d does not say its match failed", i)
		}
	}

	serveRunning(t, serve, serveBuf, "after the matches")
	// The figures of the last second follow a scrape: wait for the last
	// match to close.
	var body string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		body = metricsPage(t, metricsAddr)
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
	got := stopServe(t, serve, serveBuf)
	for _, m := range matches {
		if !strings.Contains(got, "match "+m.id+" player 2 (client id") {
			t.Errorf("the server printed no summary of match %s with its second player", m.id)
		}
	}
	for n := 1; n <= 2; n++ {
		if !hostAgreed(n).MatchString(got) {
			t.Errorf("the table's summary does not say player %d converged bit for bit", n)
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
	// Each match recorded its own replay in its own directory, and each
	// of the six verifies (lockstep bit for bit, the others snapshot by
	// snapshot).
	for _, m := range matches[:6] {
		files, err := filepath.Glob(filepath.Join(record, "match-"+m.id, "*.replay"))
		if err != nil || len(files) != 1 {
			t.Errorf("match %s recorded %v (%v), want one replay in %s", m.id, files, err, filepath.Join(record, "match-"+m.id))
			continue
		}
		if out, err := p.command("replay", files[0]).CombinedOutput(); err != nil {
			t.Errorf("netphys replay %s: %v\n%s", files[0], err, out)
		}
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
	processTest(t)
	p := newProcs(t, time.Minute)
	admin := freeTCPAddr(t)
	serve, serveBuf := p.serve(nil, "--rooms", "--admin", admin)
	play := func(id int, match string) proc {
		t.Helper()
		tok := p.token(id, "--match", match, "--match-model", "lockstep", "--match-layout", "tower20", "--match-players", "2")
		return p.run(nil, botArgs(tok, 300, "--model", "lockstep", "--layout", "tower20", "--players", "2")...)
	}
	running := []proc{play(1, "running"), play(2, "running")}
	// The match runs once both its players are in it (the admin API
	// says), however slow the machine: a drain before that has no match
	// to finish.
	for deadline := time.Now().Add(30 * time.Second); roomJoined(t, admin, "running") < 2; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the match's two players did not join within 30 s:\n%s", serveBuf)
		}
	}
	if err := serve.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	late := play(3, "late")
	if err := late.cmd.Wait(); err == nil || !strings.Contains(late.out.String(), "draining") {
		t.Errorf("the player of a new match during the drain: %v\n%s", err, late.out)
	}
	sameChecksum(t, 300, waitAll(t, running))
	if err := serve.Wait(); err != nil {
		t.Errorf("serve after the drain: %v\n%s", err, serveBuf.String())
	}
	if !strings.Contains(serveBuf.String(), "match running") {
		t.Errorf("serve printed no summary of the running match:\n%s", serveBuf.String())
	}
}

// roomJoined is how many players the match id of a rooms server has
// joined, as its admin API at addr lists it (0: not open yet).
func roomJoined(t *testing.T, addr, id string) int {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/matches")
	if err != nil {
		return 0 // not listening yet
	}
	defer resp.Body.Close()
	var rooms []match.RoomInfo
	if err := json.NewDecoder(resp.Body).Decode(&rooms); err != nil {
		t.Fatalf("the admin API's list: %v", err)
	}
	for _, r := range rooms {
		if r.ID == id {
			return r.Joined
		}
	}
	return 0
}

// freeTCPAddr is a loopback TCP address nothing listens on.
func freeTCPAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestDrainTimeoutTellsThePlayers: SIGTERM to `serve` and to `serve
// --rooms` while a lockstep match of two bots runs far longer than
// --drain: serve exits 0 once the drain runs out, and the players cut
// off are told why (match.StoppedReason), not left to time out.
func TestDrainTimeoutTellsThePlayers(t *testing.T) {
	processTest(t)
	lockstep := []string{"--model", "lockstep", "--layout", "tower20", "--players", "2"}
	for _, rooms := range []bool{false, true} {
		p := newProcs(t, time.Minute)
		admin := freeTCPAddr(t)
		args := []string{"--drain", "500ms", "--admin", admin, "--rooms"}
		var tok []string // netphys token's flags
		if rooms {
			tok = []string{"--match", "long", "--match-model", "lockstep", "--match-layout", "tower20", "--match-players", "2"}
		} else {
			args = append([]string{"--drain", "500ms"}, lockstep...)
		}
		serve, serveBuf := p.serve([]string{"NETPHYS_LOG=info"}, args...)
		var plays []proc
		for id := 1; id <= 2; id++ {
			plays = append(plays, p.run(nil, botArgs(p.token(id, tok...), 3000, lockstep...)...))
		}
		// Both players in the match, however slow the machine: the admin
		// API says so with --rooms, the server's log without.
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if rooms && roomJoined(t, admin, "long") == 2 || !rooms && strings.Count(serveBuf.String(), "serve: player joined") == 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("rooms %v: the match's two players did not join within 30 s:\n%s", rooms, serveBuf)
			}
		}
		if err := serve.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := serve.Wait(); err != nil {
			t.Errorf("rooms %v: serve after the drain ran out: %v\n%s", rooms, err, serveBuf)
		}
		if !strings.Contains(serveBuf.String(), "drain: timed out: exiting") {
			t.Errorf("rooms %v: serve did not say its drain timed out:\n%s", rooms, serveBuf)
		}
		for i, pl := range plays {
			if err := pl.cmd.Wait(); err == nil || !strings.Contains(pl.out.String(), match.StoppedReason) {
				t.Errorf("rooms %v, player %d: %v, want a failure saying %q:\n%s", rooms, i, err, match.StoppedReason, pl.out)
			}
		}
	}
}
