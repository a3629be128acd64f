package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/netphys/netphys/internal/syncbuf"
	"github.com/netphys/netphys/transport/agones"
	"github.com/netphys/netphys/transport/agones/agonestest"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/tokenservice"
)

// The fleet's labels, as deploy/fleet.yaml gives them.
var testFleet = map[string]string{"agones.dev/fleet": "netphys", "netphys.dev/model": "echo"}

// sdkGateway is the SDK server a scenario runs against: agonestest.Fake
// here, agonestest.Real in agones_real_test.go.
type sdkGateway interface {
	URL() string
	Allocate(labels, annotations map[string]string) error
	Healths() int
}

// TestServeAgonesShutdownAfterTheMatch: `serve --agones` against the fake
// SDK server goes Ready, is Allocated by the token service for match m-1,
// hosts its two players (tokens from the token service), then Shutdown
// and exits 0; health pings flow throughout.
func TestServeAgonesShutdownAfterTheMatch(t *testing.T) {
	processTest(t)
	againstFake(t, agonesShutdownScenario, "Scheduled", "Ready", "Allocated", "Shutdown")
}

// TestServeAgonesReadyAgainAndSIGTERMDrains: with --agones-after-match
// ready the server takes a second match after the first, and SIGTERM in
// the middle of that one lets it finish, then exits 0.
func TestServeAgonesReadyAgainAndSIGTERMDrains(t *testing.T) {
	processTest(t)
	againstFake(t, agonesReadyDrainScenario, "Scheduled", "Ready", "Allocated", "Ready", "Allocated")
}

// TestServeAgonesLockstepMatch: the same with a network model: serve
// --agones --model lockstep hosts two `play --bot` processes whose tokens
// come from the token service's allocation, then Shutdown and exit 0.
func TestServeAgonesLockstepMatch(t *testing.T) {
	processTest(t)
	againstFake(t, agonesLockstepScenario, "Scheduled", "Ready", "Allocated", "Shutdown")
}

// againstFake runs scenario against a fake SDK server of the test fleet
// and checks the GameServer states it went through.
func againstFake(t *testing.T, scenario func(*testing.T, string, sdkGateway), states ...string) {
	f := agonestest.New(4, testFleet)
	defer f.Close()
	addr := freeUDPAddr(t)
	f.SetAddress(netip.MustParseAddrPort(addr))
	scenario(t, addr, f)
	if h := f.History(); !slices.Equal(h, states) {
		t.Errorf("GameServer states: %v, want %v", h, states)
	}
}

// TestServeDrainTimesOut: plain serve (no Agones) on SIGTERM waits for
// the running match at most --drain, then exits 0 all the same.
func TestServeDrainTimesOut(t *testing.T) {
	processTest(t)
	h := startServe(t, freeUDPAddr(t), nil, "--drain", "300ms")
	tok := h.token(t, "")
	player := h.player(t, tok, 1000) // 10 s of echoes: far longer than the drain
	h.waitConnected(t)
	h.signal(t, syscall.SIGTERM)
	h.waitExit(t)
	player.Process.Kill()
	player.Wait()
	h.wantLog(t, `msg="drain: no new matches; the running match may finish" players=1`, `msg="drain: timed out: exiting" players_cut_off=1`)
}

// TestServeSIGTERMIdleAndSecondSignal: with no match running SIGTERM
// exits at once; during a drain a second signal does too; both exit 0.
func TestServeSIGTERMIdleAndSecondSignal(t *testing.T) {
	processTest(t)
	idle := startServe(t, freeUDPAddr(t), nil)
	idle.waitLog(t, "msg=serving")
	idle.signal(t, syscall.SIGTERM)
	idle.waitExit(t)
	idle.wantLog(t, `msg="drain: exiting" reason=signal players_cut_off=0`)

	h := startServe(t, freeUDPAddr(t), nil, "--drain", "1m")
	player := h.player(t, h.token(t, ""), 1000)
	h.waitConnected(t)
	h.signal(t, syscall.SIGTERM)
	h.waitLog(t, "drain: no new matches")
	h.signal(t, os.Interrupt)
	h.waitExit(t)
	player.Process.Kill()
	player.Wait()
	h.wantLog(t, `msg="drain: a second signal: exiting now" players_cut_off=1`)
}

// serveHarness is one `serve` process with its token service.
type serveHarness struct {
	bin, key, addr string
	dir            string
	cmd            *exec.Cmd
	out            *syncbuf.Buffer
	tokens         *httptest.Server
	gw             sdkGateway
	sdk            *agones.Client
	exited         chan error
}

// startServe starts `serve` on a free port with args, and a token
// service: with a gateway, one that allocates through a fake of Agones'
// allocation endpoint; without, one naming the server directly.
func startServe(t *testing.T, addr string, gw sdkGateway, args ...string) *serveHarness {
	t.Helper()
	h := &serveHarness{bin: buildProgram(t), key: strings.Repeat("5a", 32), addr: addr, dir: t.TempDir(),
		out: &syncbuf.Buffer{}, gw: gw, exited: make(chan error, 1)}
	args = append([]string{"serve", "--listen", h.addr, "--key", h.key, "--report", "0"}, args...)
	th := &tokenservice.Handler{Params: netcode.DefaultTokenParams(),
		Authenticate: func(r *http.Request) (uint64, []byte, error) {
			var id uint64
			_, err := fmt.Sscan(r.URL.Query().Get("player"), &id)
			return id, nil, err
		}}
	copy(th.PrivateKey[:], bytes.Repeat([]byte{0x5a}, 32))
	if _, err := fmt.Sscan(defaultProtocolID, &th.Params.ProtocolID); err != nil {
		t.Fatal(err)
	}
	ap := netip.MustParseAddrPort(h.addr)
	if gw != nil {
		args = append(args, "--agones", "--agones-sdk", gw.URL(), "--agones-health", "100ms")
		h.sdk = agones.New(gw.URL())
		allocSrv := httptest.NewServer(&agonestest.Allocator{GameServer: gw, Name: "netphys-test", Labels: testFleet, Address: ap})
		t.Cleanup(allocSrv.Close)
		alloc := &tokenservice.Allocator{URL: allocSrv.URL + "/apis/allocation.agones.dev/v1/namespaces/default/gameserverallocations",
			Selectors: []map[string]string{{"agones.dev/fleet": "netphys"}}}
		th.Servers = alloc.ForMatch(func(r *http.Request) (string, error) { return r.URL.Query().Get("match"), nil })
	} else {
		th.Params.ServerAddresses = []netip.AddrPort{ap}
	}
	h.tokens = httptest.NewServer(th)
	t.Cleanup(h.tokens.Close)
	h.cmd = exec.Command(h.bin, args...)
	h.cmd.Env = append(os.Environ(), "NETPHYS_LOG=info")
	h.cmd.Stdout, h.cmd.Stderr = h.out, h.out
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { h.exited <- h.cmd.Wait() }()
	t.Cleanup(func() {
		h.cmd.Process.Kill()
		if t.Failed() || testing.Verbose() {
			t.Logf("serve's output:\n%s", h.out.String())
		}
	})
	return h
}

// token asks the token service for a token of the next player of match
// and writes it to a file.
var playerIDs struct {
	sync.Mutex
	next int
}

func (h *serveHarness) token(t *testing.T, match string) string {
	t.Helper()
	playerIDs.Lock()
	playerIDs.next++
	id := playerIDs.next
	playerIDs.Unlock()
	code, body := httpGet(t, fmt.Sprintf("%s/token?player=%d&match=%s", h.tokens.URL, id, match))
	if code != http.StatusOK {
		t.Fatalf("token for player %d of match %q: HTTP %d %s", id, match, code, body)
	}
	file := filepath.Join(h.dir, fmt.Sprintf("player%d.token", id))
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// player starts `connect` with the token: count echoes at 100 a second.
func (h *serveHarness) player(t *testing.T, token string, count int) *exec.Cmd {
	t.Helper()
	return h.run(t, "connect", "--token-file", token, "--count", fmt.Sprint(count), "--rate", "100")
}

// run starts the program with args, logging warnings and errors only;
// it is killed at the end of the test if it has not been waited for.
func (h *serveHarness) run(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	c := exec.Command(h.bin, args...)
	c.Env = append(os.Environ(), "NETPHYS_LOG=warn")
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c.ProcessState == nil {
			c.Process.Kill()
			c.Wait()
		}
	})
	return c
}

func (h *serveHarness) waitPlayers(t *testing.T, players ...*exec.Cmd) {
	t.Helper()
	for i, p := range players {
		if err := p.Wait(); err != nil {
			t.Fatalf("player %d: %v\n%s", i, err, p.Stdout)
		}
	}
}

// waitLog waits until serve's output holds s.
func (h *serveHarness) waitLog(t *testing.T, s string) {
	t.Helper()
	h.waitCount(t, s, 1)
}

// waitCount waits until serve's output holds s n times.
func (h *serveHarness) waitCount(t *testing.T, s string, n int) {
	t.Helper()
	waitOutput(t, h.out, s, n)
}

// waitConnected waits until a client is connected (serve logs it).
func (h *serveHarness) waitConnected(t *testing.T) {
	t.Helper()
	h.waitLog(t, "client connected")
}

func (h *serveHarness) signal(t *testing.T, s os.Signal) {
	t.Helper()
	if err := h.cmd.Process.Signal(s); err != nil {
		t.Fatal(err)
	}
}

// waitExit waits for serve to exit by itself and wants exit status 0.
func (h *serveHarness) waitExit(t *testing.T) {
	t.Helper()
	select {
	case err := <-h.exited:
		if err != nil {
			t.Fatalf("serve exited with %v, want 0", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not exit within 30 s")
	}
}

func (h *serveHarness) wantLog(t *testing.T, want ...string) {
	t.Helper()
	out := h.out.String()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("serve's log lacks %q", w)
		}
	}
}

// agonesShutdownScenario: Ready, allocated for m-1 by the token service,
// two players, Shutdown, exit 0.
func agonesShutdownScenario(t *testing.T, addr string, gw sdkGateway) {
	h := startServe(t, addr, gw)
	h.waitLog(t, "agones: ready")
	h.wantLog(t, `msg="agones: public address" addr=`+addr)
	healths := gw.Healths()
	t1, t2 := h.token(t, "m-1"), h.token(t, "m-1")
	p1, p2 := h.player(t, t1, 150), h.player(t, t2, 150)
	h.waitLog(t, "agones: allocated")
	h.waitPlayers(t, p1, p2)
	h.waitExit(t)
	h.wantLog(t, `msg="agones: allocated" gameserver=netphys-test match_id=m-1`,
		`msg="agones: player joined"`, `msg="agones: shutdown: exiting"`)
	if n := strings.Count(h.out.String(), `msg="agones: player joined"`); n != 2 {
		t.Errorf("%d players joined, want 2", n)
	}
	// 100 ms pings over the 1.5 s match: a few at least.
	if got := gw.Healths() - healths; got < 5 {
		t.Errorf("%d health pings during the match, want 5 or more", got)
	}
}

// agonesReadyDrainScenario: match m-1, Ready again, match m-2 with
// SIGTERM in its middle: it finishes, serve exits 0.
func agonesReadyDrainScenario(t *testing.T, addr string, gw sdkGateway) {
	h := startServe(t, addr, gw, "--agones-after-match", "ready", "--drain", "20s")
	h.waitLog(t, "agones: ready")
	p := h.player(t, h.token(t, "m-1"), 100)
	h.waitPlayers(t, p)
	h.waitLog(t, "agones: ready for the next match")
	// The watch saw Ready again. (It may never show the first Ready: an
	// allocation a few ms after it can reach the watch first.)
	h.waitLog(t, "state=Ready was=Allocated")
	p = h.player(t, h.token(t, "m-2"), 300) // 3 s
	h.waitCount(t, `msg="agones: allocated"`, 2)
	h.waitCount(t, `msg="agones: player joined"`, 2)
	h.signal(t, syscall.SIGTERM)
	h.waitLog(t, "drain: no new matches")
	healths := gw.Healths()
	h.waitPlayers(t, p)
	h.waitExit(t)
	h.wantLog(t, `match_id=m-1`, `match_id=m-2`, `msg="drain: no new matches; the running match may finish" players=1`,
		`msg="drain: the match is over: exiting"`)
	if strings.Contains(h.out.String(), "players_cut_off") {
		t.Error("the drain cut a player off")
	}
	if gw.Healths() <= healths {
		t.Error("no health ping during the drain")
	}
	if out := p.Stdout.(*bytes.Buffer).String(); !strings.Contains(out, "300") {
		t.Errorf("the drained match's player did not report its 300 payloads:\n%s", out)
	}
}

// serveAgonesInProcess runs serve --agones with the flags more in this
// process against a fake fleet until ctx ends, and returns once the
// GameServer is Ready: the fake, serve's address and its result.
func serveAgonesInProcess(ctx context.Context, t *testing.T, key string, more ...string) (*agonestest.Fake, string, <-chan error) {
	t.Helper()
	addr := freeUDPAddr(t)
	f := agonestest.New(2, testFleet)
	t.Cleanup(f.Close)
	f.SetAddress(netip.MustParseAddrPort(addr))
	served := make(chan error, 1)
	go func() {
		served <- run(ctx, append([]string{"serve", "--agones", "--agones-sdk", f.URL(), "--agones-health", "50ms",
			"--listen", addr, "--key", key, "--report", "0"}, more...), io.Discard)
	}()
	for f.State() != agones.StateReady {
		select {
		case <-f.Changed():
		case err := <-served:
			t.Fatalf("serve ended before Ready: %v", err)
		}
	}
	return f, addr, served
}

// TestServeAgonesInProcess runs serve --agones and a player through run,
// in this process, so that the race detector (.ci/run's -race over
// ./cmd/...) sees the lifecycle's goroutines: Ready, allocation, the
// player in the List, Shutdown, and run returning nil by itself.
func TestServeAgonesInProcess(t *testing.T) {
	key := strings.Repeat("3c", 32)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f, addr, served := serveAgonesInProcess(ctx, t, key)
	if err := f.Allocate(nil, map[string]string{tokenservice.MatchAnnotation: "m-9"}); err != nil {
		t.Fatal(err)
	}
	tok := filepath.Join(t.TempDir(), "p.token")
	if err := run(ctx, []string{"token", "--key", key, "--servers", addr, "--client-id", "77", "--out", tok}, io.Discard); err != nil {
		t.Fatal(err)
	}
	sawPlayer := make(chan bool, 1)
	go func() { // the List holds the player while it plays
		for {
			ch := f.Changed()
			if slices.Contains(f.GameServer().Status.Lists["players"].Values, "77") {
				sawPlayer <- true
				return
			}
			select {
			case <-ch:
			case <-ctx.Done():
				sawPlayer <- false
				return
			}
		}
	}()
	if err := run(ctx, []string{"connect", "--token-file", tok, "--count", "30", "--rate", "100"}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if !<-sawPlayer {
		t.Error("the player never appeared in the List players")
	}
	if h := f.History(); !slices.Equal(h, []string{"Scheduled", "Ready", "Allocated", "Shutdown"}) {
		t.Errorf("GameServer states: %v", h)
	}
	if v := f.GameServer().Status.Lists["players"].Values; len(v) != 0 {
		t.Errorf("List players after the match: %v", v)
	}
}

// agonesLockstepScenario: a lockstep match of two bots on an allocated
// server, their checksums verified by the server, then Shutdown.
func agonesLockstepScenario(t *testing.T, addr string, gw sdkGateway) {
	match := []string{"--model", "lockstep", "--players", "2", "--layout", "tower20"}
	h := startServe(t, addr, gw, match...)
	h.waitLog(t, "agones: ready")
	var plays []*exec.Cmd
	for range 2 {
		plays = append(plays, h.run(t, botArgs(h.token(t, "m-lock"), 120, match...)...))
	}
	h.waitPlayers(t, plays...)
	h.waitExit(t)
	h.wantLog(t, `msg="agones: allocated" gameserver=netphys-test match_id=m-lock`,
		`msg="agones: shutdown: exiting"`, "verified equal")
	if n := strings.Count(h.out.String(), `msg="agones: player joined"`); n != 2 {
		t.Errorf("%d players joined, want 2", n)
	}
}

// TestAgonesObserveSeesEveryAllocation: the watch's GameServers as serve
// --agones reads them: turning Allocated names the match; more events
// with the same annotation (a List changed) are no new allocation; a new
// annotation while Allocated is one (a rooms server given another
// match); Ready again is a state change.
func TestAgonesObserveSeesEveryAllocation(t *testing.T) {
	var log syncbuf.Buffer
	a := &agonesSide{lc: &lifecycle{log: slog.New(slog.NewTextHandler(&log, nil))}}
	gs := func(state, match string) agones.GameServer {
		var g agones.GameServer
		g.ObjectMeta.Name = "gs-1"
		g.ObjectMeta.Annotations = map[string]string{}
		if match != "" {
			g.ObjectMeta.Annotations[tokenservice.MatchAnnotation] = match
		}
		g.Status.State = state
		return g
	}
	for _, g := range []agones.GameServer{gs(agones.StateReady, ""), gs(agones.StateAllocated, "m-1"), gs(agones.StateAllocated, "m-1"),
		gs(agones.StateAllocated, "m-2"), gs(agones.StateReady, "m-2"), gs(agones.StateAllocated, "m-3")} {
		a.observe(t.Context(), g)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		_, msg, _ := strings.Cut(line, "msg=")
		got = append(got, msg)
	}
	want := []string{`"agones: state" state=Ready was=""`,
		`"agones: allocated" gameserver=gs-1 match_id=m-1 model="" again=false`,
		`"agones: allocated" gameserver=gs-1 match_id=m-2 model="" again=true`,
		`"agones: state" state=Ready was=Allocated`,
		`"agones: allocated" gameserver=gs-1 match_id=m-3 model="" again=false`}
	if !slices.Equal(got, want) {
		t.Errorf("logged\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if a.matchID != "m-3" {
		t.Errorf("match %q, want m-3", a.matchID)
	}
}
