package udpdrive

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/transport/netcode"
)

// testLobby names a match by the first byte of the user data ('a', 'b',
// ...; 0: no match) and builds a sumServer for it, which panics in
// Receive once a counter passes 30 if the second byte is 'p', and whose
// Update fails if it is 'f'; 'o' makes Open panic.
type testLobby struct {
	models map[string]*sumServer
	closed []*Match
}

// bomb is a sumServer whose Receive panics, as a model's bug would.
type bomb struct{ *sumServer }

func (b bomb) Receive(now time.Time, slot int, d []byte) error {
	if err := b.sumServer.Receive(now, slot, d); err != nil {
		return err
	}
	if b.counter[slot] > 30 {
		var counts []int
		counts[slot]++ // out of range: the bug
	}
	return nil
}

func (l *testLobby) Route(now time.Time, id netcode.ClientID, ud *netcode.UserData) (string, error) {
	if ud[0] == 0 {
		return "", errors.New("this token names no match")
	}
	return string(ud[:1]), nil
}

func (l *testLobby) Open(now time.Time, id string, ud *netcode.UserData) (MatchSetup, error) {
	s := &sumServer{max: 4, counter: map[int]uint32{}}
	l.models[id] = s
	switch ud[1] {
	case 'p':
		return MatchSetup{Model: bomb{s}, Agree: "sum " + id, Kind: "bomb"}, nil
	case 'f':
		s.fail = errors.New("desync at tick 9")
	case 'o':
		panic("the lobby's bug")
	}
	return MatchSetup{Model: s, Agree: "sum " + id, Kind: "sum"}, nil
}

func (l *testLobby) Closed(now time.Time, m *Match) { l.closed = append(l.closed, m) }

// runRooms serves rooms for lobby on loopback, stepped on a goroutine of
// their own until the test ends; on runs a function there, between
// Steps, and tokens names a match in its user data.
func runRooms(t *testing.T, lobby Lobby) (r *Rooms, on func(func()), token func(id uint64, ud string) *netcode.ConnectToken) {
	return runRoomsOf(t, lobby, 8)
}

// runRoomsOf is runRooms with slots netcode slots.
func runRoomsOf(t *testing.T, lobby Lobby, slots int) (r *Rooms, on func(func()), token func(id uint64, ud string) *netcode.ConnectToken) {
	t.Helper()
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	key := netcode.Key{9}
	cfg := RoomsConfig{Transport: DefaultServerConfig().Transport, Logger: quiet, Lobby: lobby, FailGrace: 50 * time.Millisecond}
	cfg.Transport.Netcode.PrivateKey = key
	cfg.Transport.Netcode.MaxClients = slots
	r, err = NewRooms(conn, cfg)
	if err != nil {
		t.Fatal(err)
	}
	calls := make(chan func())
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		Run(ctx, 5*time.Millisecond, func(time.Time) (bool, error) {
			select {
			case f := <-calls:
				f()
			default:
			}
			return false, nil
		}, r)
	}()
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		r.Close()
	})
	on = func(f func()) {
		done := make(chan struct{})
		calls <- func() { f(); close(done) }
		<-done
	}
	return r, on, func(id uint64, ud string) *netcode.ConnectToken {
		p := netcode.DefaultTokenParams()
		p.ClientID = netcode.ClientID(id)
		p.ServerAddresses = []netip.AddrPort{r.Transport().Addr()}
		copy(p.UserData[:], ud)
		tok, err := netcode.GenerateConnectToken(&p, time.Now(), &key, nil)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
}

func dialRoom(tok *netcode.ConnectToken, agree string, m netmodel.Client) (*Client, error) {
	cfg := DefaultClientConfig()
	cfg.Logger, cfg.Agree, cfg.ConnectTimeout = quiet, agree, 5*time.Second
	return Dial(context.Background(), tok, func(int) (netmodel.Client, error) { return m, nil }, cfg)
}

// TestRoomsRunMatchesApartAndSurviveAPanic: three clients in two
// matches on one port, each match numbering its slots from 0; the model
// of one panics, and only its client gets a bye (the reason names the
// panic) while the other match goes on; a token naming no match is
// refused with the lobby's reason; End sends the last match's clients
// away, and every match closes once its clients are gone.
func TestRoomsRunMatchesApartAndSurviveAPanic(t *testing.T) {
	lobby := &testLobby{models: map[string]*sumServer{}}
	rooms, on, token := runRooms(t, lobby)

	_, err := dialRoom(token(9, ""), "sum a", &countClient{})
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Joined || !strings.Contains(refused.Reason, "names no match") {
		t.Fatalf("a token without a match: %v", err)
	}

	a1m, a2m, bm := &countClient{}, &countClient{}, &countClient{}
	a1, err := dialRoom(token(1, "a"), "sum a", a1m)
	if err != nil {
		t.Fatal(err)
	}
	defer a1.Close()
	a2, err := dialRoom(token(2, "a"), "sum a", a2m)
	if err != nil {
		t.Fatal(err)
	}
	defer a2.Close()
	b, err := dialRoom(token(3, "bp"), "sum b", bm)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if a1.Slot() != 0 || a2.Slot() != 1 || b.Slot() != 0 {
		t.Fatalf("slots a %d %d, b %d: want each match's from 0", a1.Slot(), a2.Slot(), b.Slot())
	}
	if _, err := dialRoom(token(4, "a"), "sum b", &countClient{}); !errors.As(err, &refused) || !strings.Contains(refused.Reason, "server runs sum a; you asked for sum b") {
		t.Fatalf("a client set up for another match: %v", err)
	}

	// b's model panics once its counter passes 30; its client is told.
	err = stepUntil(t, "b's bye", func() bool { return false }, b)
	if !errors.As(err, &refused) || !refused.Joined || !strings.Contains(refused.Reason, "panic") {
		t.Fatalf("the client of the match that panicked: %v", err)
	}
	b.Close()
	// a goes on: its sums keep growing past what one client sends.
	if err := stepUntil(t, "a's sums", func() bool { return a1m.sum > a1m.frames+60 && a2m.sum > a2m.frames+60 }, a1, a2); err != nil {
		t.Fatal(err)
	}
	var running []*Match
	var closed []string
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			ok := false
			on(func() { ok = cond() })
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not after 5 s", what)
			}
		}
	}
	waitFor("b closed", func() bool { return len(lobby.closed) == 1 })
	on(func() {
		running = rooms.Matches(nil)
		for _, m := range lobby.closed {
			closed = append(closed, m.ID())
			if m.Err() == nil || !strings.Contains(m.Err().Error(), "panic") {
				t.Errorf("closed match %s: err %v", m.ID(), m.Err())
			}
		}
	})
	if len(running) != 1 || running[0].ID() != "a" || running[0].Players() != 2 || running[0].Err() != nil || closed[0] != "b" {
		t.Fatalf("running %v, closed %v", running, closed)
	}
	// The figures: a running with both players and traffic, b closed as
	// failed.
	if err := stepUntil(t, "figures", func() bool {
		f := rooms.Figures()
		return len(f.Matches) == 1 && f.Matches[0].ID == "a" && f.Matches[0].Kind == "sum" && f.Matches[0].Players == 2 &&
			f.Matches[0].UpKbps > 0 && f.Matches[0].DownKbps > 0 && f.Matches[0].CPUPerTick > 0 &&
			f.Opened == 2 && f.Closed == 1 && f.Failed == 1 && f.Players == 2 && f.UpKbps == f.Matches[0].UpKbps
	}, a1, a2); err != nil {
		t.Fatal(err)
	}
	if joins := lobby.models["a"].joins; len(joins) != 2 || joins[0] != 0 || joins[1] != 1 || len(lobby.models["b"].joins) != 1 {
		t.Fatalf("joins a %v, b %v", joins, lobby.models["b"].joins)
	}

	on(func() {
		if err := rooms.End(time.Now(), "a", "the match reached its 10m0s"); err != nil {
			t.Error(err)
		}
		if err := rooms.End(time.Now(), "zz", "no"); !errors.Is(err, ErrNoSuchMatch) {
			t.Errorf("End of no match: %v", err)
		}
	})
	for _, c := range []*Client{a1, a2} {
		err := stepUntil(t, "a's bye", func() bool { return false }, c)
		if !errors.As(err, &refused) || refused.Reason != "the match reached its 10m0s" {
			t.Fatalf("client %d of the match ended: %v", c.Slot(), err)
		}
	}
	waitFor("a closed", func() bool { return len(lobby.closed) == 2 })
	want := map[string]uint64{"no_match": 1, "config_mismatch": 1, "match_failed": 1, "match_ended": 2}
	for _, x := range rooms.Refusals() {
		if want[x.Reason] != x.Count {
			t.Errorf("refusals %v, want %v", rooms.Refusals(), want)
			break
		}
		delete(want, x.Reason)
	}
	if len(want) > 0 {
		t.Errorf("refusals %v lack %v", rooms.Refusals(), want)
	}
}

// TestRoomsCarryMoreThan256Clients: 75 matches of 4 clients, 300 in
// all on one port, past the netcode standard's 256 slots; every match
// numbers its clients 0 to 3, holds 4 slots (not netcode's 320) and its
// clients hear each other's counters.
func TestRoomsCarryMoreThan256Clients(t *testing.T) {
	const matches, per = 75, 4
	lobby := &testLobby{models: map[string]*sumServer{}}
	rooms, on, token := runRoomsOf(t, lobby, 320)
	models := make([]*countClient, matches*per)
	clients := make([]*Client, matches*per)
	errs := make(chan error, matches)
	for m := range matches {
		go func() {
			// A match's clients dial in turn, so that their slots are
			// known; the matches dial at once.
			name := string([]byte{byte('!' + m)}) // the lobby's match id: the first byte
			for k := range per {
				i := m*per + k
				models[i] = &countClient{}
				c, err := dialRoom(token(uint64(i+1), name), "sum "+name, models[i])
				if err != nil {
					errs <- fmt.Errorf("match %d, client %d: %w", m, k, err)
					return
				}
				clients[i] = c
				if c.Slot() != k {
					errs <- fmt.Errorf("match %d, client %d: slot %d", m, k, c.Slot())
					return
				}
			}
			errs <- nil
		}()
	}
	for range matches {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	for _, c := range clients {
		if c != nil {
			defer c.Close()
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	var running []*Match
	on(func() { running = rooms.Matches(nil) })
	if len(running) != matches {
		t.Fatalf("%d matches running, want %d", len(running), matches)
	}
	for _, m := range running {
		if m.Players() != per || m.Slots() != per {
			t.Fatalf("match %q: %d players in %d slots, want %d in %d", m.ID(), m.Players(), m.Slots(), per, per)
		}
	}
	sides := make([]Stepper, len(clients))
	for i, c := range clients {
		sides[i] = c
	}
	if err := stepUntil(t, "every client hears its match", func() bool {
		for _, c := range models {
			if c.sum <= c.frames+20 {
				return false
			}
		}
		return true
	}, sides...); err != nil {
		t.Fatal(err)
	}
}

func TestRoomsNeedALobby(t *testing.T) {
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := NewRooms(conn, RoomsConfig{}); !errors.Is(err, ErrNoLobby) {
		t.Fatalf("NewRooms without a lobby: %v", err)
	}
}

// TestRoomsEndAFailedMatchAfterItsGrace: a match whose Update fails is
// stepped for FailGrace, then its clients get a bye with the error and
// it closes; one whose Open panics refuses its client; the other match's
// client goes on.
func TestRoomsEndAFailedMatchAfterItsGrace(t *testing.T) {
	lobby := &testLobby{models: map[string]*sumServer{}}
	rooms, on, token := runRooms(t, lobby)
	okm := &countClient{}
	ok, err := dialRoom(token(1, "a"), "sum a", okm)
	if err != nil {
		t.Fatal(err)
	}
	defer ok.Close()
	_, err = dialRoom(token(3, "do"), "sum d", &countClient{})
	var refused *RefusedError
	if !errors.As(err, &refused) || !strings.Contains(refused.Reason, "failed to open the match (a bug: panic: the lobby's bug)") {
		t.Fatalf("a match whose Open panics: %v", err)
	}
	bad, err := dialRoom(token(2, "cf"), "sum c", &countClient{})
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	err = stepUntil(t, "c's bye", func() bool { return false }, bad)
	if !errors.As(err, &refused) || !refused.Joined || !strings.Contains(refused.Reason, "desync at tick 9") {
		t.Fatalf("the client of the failed match: %v", err)
	}
	bad.Close()
	frames := okm.frames
	if err := stepUntil(t, "a goes on", func() bool { return okm.sum > frames+30 }, ok); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var closed []*Match
		var running int
		on(func() { closed, running = append(closed, lobby.closed...), len(rooms.Matches(nil)) })
		if len(closed) == 1 {
			if closed[0].ID() != "c" || !errors.Is(closed[0].Err(), ErrUpdate) || running != 1 {
				t.Fatalf("closed %s with %v, %d running", closed[0].ID(), closed[0].Err(), running)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the failed match did not close in 5 s")
		}
	}
	var n int
	on(func() { n = len(lobby.models["c"].leaves) })
	if n != 1 {
		t.Fatalf("the failed match's model saw %d leaves, want its client's", n)
	}
}
