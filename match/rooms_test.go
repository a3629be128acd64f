package match

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/internal/syncbuf"
	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/tokenservice"
)

// idleClient sends nothing and takes what comes.
type idleClient struct{}

func (idleClient) Receive(time.Time, []byte) error               { return nil }
func (idleClient) Update(time.Time, func(datagram []byte)) error { return nil }

// roomsRig is ServeRooms of the clock model on a loopback port, stopped
// at the end of the test (it must return nil), and a dialer of tokens
// naming its matches.
type roomsRig struct {
	t    *testing.T
	addr netip.AddrPort
	key  netcode.Key
}

// startRooms starts ServeRooms with cfg's Conn, Flags, Transport and
// Setup filled in.
func startRooms(t *testing.T, cfg RoomsConfig) *roomsRig {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	flags := DeclareFlags(fs, Defaults{Model: "clock", Players: 2})
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	r := &roomsRig{t: t, addr: conn.LocalAddr().(*net.UDPAddr).AddrPort(), key: netcode.Key{3}}
	cfg.Flags, cfg.Setup, cfg.Conn, cfg.Transport = flags, Setup{Logger: quiet}, conn, udpdrive.DefaultServerConfig().Transport
	cfg.Transport.Netcode.PrivateKey = r.key
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeRooms(ctx, cfg) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return r
}

// dial connects client id as agree says, with a token naming m (nil:
// none), to play client.
func (r *roomsRig) dial(id uint64, m *tokenservice.Match, client netmodel.Client, agree string) (*udpdrive.Client, error) {
	r.t.Helper()
	p := netcode.DefaultTokenParams()
	p.ClientID = netcode.ClientID(id)
	p.ServerAddresses = []netip.AddrPort{r.addr}
	if m != nil {
		var err error
		if p.UserData, err = m.UserData(); err != nil {
			r.t.Fatal(err)
		}
	}
	tok, err := netcode.GenerateConnectToken(&p, time.Now(), &r.key, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	cc := udpdrive.DefaultClientConfig()
	cc.Logger, cc.Agree = quiet, agree
	return udpdrive.Dial(context.Background(), tok, func(int) (netmodel.Client, error) { return client, nil }, cc)
}

// TestRoomsAdminListsAndEnds: ServeRooms opens the match a token names;
// the admin API lists it and ends it, its player told why; a token that
// names no match is refused when there is no default; a match past
// MaxDuration is ended.
func TestRoomsAdminListsAndEnds(t *testing.T) {
	admin, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rig := startRooms(t, RoomsConfig{MaxDuration: 3 * time.Second, Admin: admin, Status: io.Discard})
	spec := tokenservice.Match{ID: "x-1", Model: "clock", Players: 2}
	dial := func(id uint64, m *tokenservice.Match) (*udpdrive.Client, error) {
		return rig.dial(id, m, idleClient{}, "clock for 2 players")
	}
	var refused *udpdrive.RefusedError
	if _, err := dial(1, nil); !errors.As(err, &refused) || !strings.Contains(refused.Reason, "names none") {
		t.Fatalf("a token naming no match: %v", err)
	}
	c, err := dial(2, &spec)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	base := "http://" + admin.Addr().String()
	var list []RoomInfo
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(base + "/matches")
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&list)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(list) == 1 && list[0].Joined == 1 || time.Now().After(deadline) {
			break
		}
	}
	if len(list) != 1 || list[0].ID != "x-1" || list[0].Model != "clock" || list[0].Players != 2 || list[0].Joined != 1 || list[0].Failed != "" {
		t.Fatalf("admin list: %+v", list)
	}
	del := func(id string) int {
		req, _ := http.NewRequest(http.MethodDelete, base+"/matches/"+id, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := del("x-1"); code != http.StatusOK {
		t.Fatalf("DELETE: HTTP %d", code)
	}
	if code := del("nope"); code != http.StatusNotFound {
		t.Fatalf("DELETE of no match: HTTP %d", code)
	}
	byeSays := func(c *udpdrive.Client, want string) {
		t.Helper()
		wait, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := udpdrive.Run(wait, 5*time.Millisecond, nil, c)
		if !errors.As(err, &refused) || !refused.Joined || !strings.Contains(refused.Reason, want) {
			t.Fatalf("the player of the ended match: %v, want a bye saying %q", err, want)
		}
	}
	byeSays(c, "the backend ended the match")

	// Another match, which MaxDuration ends.
	spec.ID = "x-2"
	c2, err := dial(3, &spec)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	byeSays(c2, "maximum duration, 3s")
}

// TestRoomLobbyRoutesTokens: a token naming no match goes to the default
// match, or is refused without one; a token naming a running match
// otherwise than its first token did is refused with both named, and so
// is a new match while the server drains; user data that name a match
// but do not read are refused.
func TestRoomLobbyRoutesTokens(t *testing.T) {
	def := tokenservice.Match{Model: "lockstep", Layout: "tower20", Players: 2}
	l := &roomLobby{cfg: &RoomsConfig{Default: &def}, log: quiet, rooms: map[string]*room{}}
	var none netcode.UserData
	if id, err := l.Route(time.Now(), 1, &none); err != nil || id != defaultRoom || l.next.Model != "lockstep" || l.next.Players != 2 {
		t.Fatalf("no match named, with a default: %q %v (%+v)", id, err, l.next)
	}
	l.cfg.Default = nil
	if _, err := l.Route(time.Now(), 1, &none); err == nil || !strings.Contains(err.Error(), "names none") {
		t.Fatalf("no match named, no default: %v", err)
	}
	running := tokenservice.Match{ID: "m", Model: "lockstep", Layout: "tower20", Players: 2}
	l.rooms["m"] = &room{spec: running}
	other := running
	other.Players = 4
	ud, err := other.UserData()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Route(time.Now(), 2, &ud); err == nil || !strings.Contains(err.Error(), "match m is lockstep on tower20 for 2 players; the token names lockstep on tower20 for 4 players") {
		t.Fatalf("a token naming a running match otherwise: %v", err)
	}
	if ud, err = running.UserData(); err != nil {
		t.Fatal(err)
	}
	if id, err := l.Route(time.Now(), 3, &ud); err != nil || id != "m" {
		t.Fatalf("a token of the running match: %q %v", id, err)
	}
	draining := true
	l.cfg.Draining = func() bool { return draining }
	if id, err := l.Route(time.Now(), 5, &ud); err != nil || id != "m" {
		t.Fatalf("a token of the running match while draining: %q %v", id, err)
	}
	fresh := running
	fresh.ID = "n"
	if ud, err = fresh.UserData(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Route(time.Now(), 6, &ud); err == nil || !strings.Contains(err.Error(), "draining") {
		t.Fatalf("a token of a new match while draining: %v", err)
	}
	ud[3] = 9 // another version
	if _, err := l.Route(time.Now(), 4, &ud); err == nil || !strings.Contains(err.Error(), "does not read") {
		t.Fatalf("user data of another version: %v", err)
	}
}

// TestRefusalTallyFollowsRunningMatches: ServeRooms' tally sums every
// running match's host and keeps an ended one's counts.
func TestRefusalTallyFollowsRunningMatches(t *testing.T) {
	var tally RefusalTally
	a := &countingHost{counts: []Count{{"shot_too_late", 3}}}
	b := &countingHost{counts: []Count{{"shot_too_late", 1}, {"input_too_late", 2}}}
	tally.follow("a", a)
	tally.follow("b", b)
	tally.follow("c", struct{ Host }{}) // no Refuser
	want := []Count{{"shot_too_late", 4}, {"input_too_late", 2}}
	if got := tally.Counts(); !reflect.DeepEqual(got, want) {
		t.Fatalf("two running: %v, want %v", got, want)
	}
	tally.retire("a")
	tally.retire("c")
	a.counts[0].Count = 99 // a is gone: what it counts now is not read
	if got := tally.Counts(); !reflect.DeepEqual(got, want) {
		t.Fatalf("a ended: %v, want %v", got, want)
	}
}

// TestRoomsSurviveAPanicInOneGamesStep: two clock matches on one port,
// one in the world whose game step panics half a second after its player
// joined (an index out of range, a game's bug). Its player gets a bye
// naming the panic; the other match's player goes on hearing its
// server's ticks long after, and its match ends normally; the failed
// match's summary says the panic; ServeRooms goes on and returns nil.
func TestRoomsSurviveAPanicInOneGamesStep(t *testing.T) {
	var status syncbuf.Buffer
	rig := startRooms(t, RoomsConfig{Status: &status})
	doomed := tokenservice.Match{ID: "doomed", Model: "clock", Layout: clockPanicWorld, Players: 2}
	calm := tokenservice.Match{ID: "calm", Model: "clock", Players: 2}
	dp, cp := &clockPlayer{}, &clockPlayer{}
	dc, err := rig.dial(1, &doomed, dp, "clock on "+clockPanicWorld+" for 2 players")
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	cc, err := rig.dial(2, &calm, cp, "clock for 2 players")
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	wait, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err = udpdrive.Run(wait, 5*time.Millisecond, nil, dc)
	var refused *udpdrive.RefusedError
	if !errors.As(err, &refused) || !refused.Joined || !strings.Contains(refused.Reason, "panic") || !strings.Contains(refused.Reason, "index out of range") {
		t.Fatalf("the player of the match whose game panicked: %v, want a bye naming the panic", err)
	}
	dc.Close()
	if dp.tick == 0 {
		t.Fatal("the doomed match's player heard no tick before the panic")
	}
	// The calm match plays on: its player hears a second of its server's
	// ticks past the panic.
	past := func(time.Time) (bool, error) { return cp.tick >= dp.tick+60, nil }
	if err := udpdrive.Run(wait, 5*time.Millisecond, past, cc); err != nil || cp.tick < dp.tick+60 {
		t.Fatalf("the player of the other match: %v, %d ticks heard, want %d past the panic", err, cp.tick, dp.tick+60)
	}
	cc.Close()
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(status.String(), "match calm"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no summary of the calm match once its player left:\n%s", status.String())
		}
	}
	out := status.String()
	for _, want := range []string{"match doomed", "the server's model of this match failed (a bug: panic: runtime error: index out of range"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summaries lack %q:\n%s", want, out)
		}
	}
	for _, block := range strings.Split(out, "serve summary") {
		if strings.Contains(block, "match calm") && strings.Contains(block, "failed") {
			t.Errorf("the calm match's summary says it failed:\n%s", block)
		}
	}
}
