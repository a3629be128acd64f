package udpdrive

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/wire"
)

// releasing is sumServer with a Releaser: the slots in release are done.
type releasing struct {
	*sumServer
	release map[int]string
}

func (r *releasing) Released(slot int) (string, string, bool) {
	reason, ok := r.release[slot]
	return "test", reason, ok
}

// startAgreeServer serves model with the hello handshake on agree and a
// 300 ms hello timeout.
func startAgreeServer(t *testing.T, model netmodel.Server, agree string) (*Server, func(id uint64) *netcode.ConnectToken) {
	return startServerWith(t, model, func(c *ServerConfig) { c.Agree, c.HelloTimeout = agree, 300*time.Millisecond })
}

// dialAgree dials with a hello of agree while the server is stepped.
func dialAgree(t *testing.T, srv *Server, id uint64, token func(uint64) *netcode.ConnectToken, agree string, m netmodel.Client) (*Client, error) {
	t.Helper()
	cfg := DefaultClientConfig()
	cfg.Logger, cfg.Agree, cfg.ConnectTimeout = quiet, agree, 5*time.Second
	type result struct {
		c   *Client
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := Dial(context.Background(), token(id), func(int) (netmodel.Client, error) { return m, nil }, cfg)
		done <- result{c, err}
	}()
	// The server's goroutine steps the model meanwhile.
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	var r result
	Run(ctx, 5*time.Millisecond, func(time.Time) (bool, error) {
		select {
		case r = <-done:
			return true, nil
		default:
			return false, nil
		}
	}, srv)
	if ctx.Err() != nil {
		t.Fatal("Dial did not return in 8 s")
	}
	return r.c, r.err
}

func TestHelloAgreesOrRefusesNamingTheDifference(t *testing.T) {
	model := &sumServer{max: 4, counter: map[int]uint32{}}
	srv, token := startAgreeServer(t, model, "lockstep on tower20 for 4 players")
	_, err := dialAgree(t, srv, 1, token, "lockstep on pyramid10 for 2 players", &countClient{})
	var r *RefusedError
	if !errors.As(err, &r) || !errors.Is(err, ErrDisconnected) || r.Joined ||
		r.Reason != "server runs lockstep on tower20 for 4 players; you asked for lockstep on pyramid10 for 2 players" {
		t.Fatalf("Dial with another match: %v", err)
	}
	if len(model.joins) != 0 {
		t.Fatalf("the model saw joins %v", model.joins)
	}
	c, err := dialAgree(t, srv, 2, token, "lockstep on tower20 for 4 players", &countClient{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := stepUntil(t, "join", func() bool { return len(model.joins) == 1 }, srv, c); err != nil {
		t.Fatal(err)
	}
	if got := srv.Refusals(); len(got) != 1 || got[0] != (Refusal{"config_mismatch", 1}) {
		t.Fatalf("refusals %v", got)
	}
}

func TestClientWithoutHelloIsRefused(t *testing.T) {
	model := &sumServer{max: 4, counter: map[int]uint32{}}
	srv, token := startAgreeServer(t, model, "lockstep on tower20 for 4 players")
	c := dial(t, token(1), &countClient{})
	defer c.Close()
	err := stepUntil(t, "refusal", func() bool { return false }, srv, c)
	var r *RefusedError
	if !errors.As(err, &r) || !strings.Contains(r.Reason, "no hello within 300ms") {
		t.Fatalf("client without a hello: %v", err)
	}
	if len(model.joins) != 0 || srv.Refusals()[0].Reason != "no_hello" {
		t.Fatalf("joins %v, refusals %v", model.joins, srv.Refusals())
	}
}

func TestReleasedClientGetsTheReason(t *testing.T) {
	model := &releasing{sumServer: &sumServer{max: 4, counter: map[int]uint32{}}, release: map[int]string{}}
	srv, token := startServer(t, model)
	c := dial(t, token(1), &countClient{})
	defer c.Close()
	if err := stepUntil(t, "join", func() bool { return len(model.joins) == 1 }, srv, c); err != nil {
		t.Fatal(err)
	}
	model.release[c.Slot()] = "your inputs fell behind"
	err := stepUntil(t, "release", func() bool { return false }, srv, c)
	var r *RefusedError
	if !errors.As(err, &r) || !r.Joined || r.Reason != "your inputs fell behind" || !strings.Contains(err.Error(), "ended this client's match") {
		t.Fatalf("released client: %v", err)
	}
	if len(model.leaves) != 1 || srv.Joined(c.Slot()) || srv.Refusals()[0] != (Refusal{"dropped_test", 1}) {
		t.Fatalf("leaves %v, joined %v, refusals %v", model.leaves, srv.Joined(c.Slot()), srv.Refusals())
	}
}

func TestEndMatchTellsEveryClient(t *testing.T) {
	model := &sumServer{max: 4, counter: map[int]uint32{}}
	srv, token := startServer(t, model)
	a, b := dial(t, token(1), &countClient{}), dial(t, token(2), &countClient{})
	defer a.Close()
	defer b.Close()
	if err := stepUntil(t, "joins", func() bool { return len(model.joins) == 2 }, srv, a, b); err != nil {
		t.Fatal(err)
	}
	srv.EndMatch(time.Now(), "lockstep: desync at tick 300")
	for _, c := range []*Client{a, b} {
		err := stepUntil(t, "bye", func() bool { return false }, srv, c)
		var r *RefusedError
		if !errors.As(err, &r) || r.Reason != "lockstep: desync at tick 300" {
			t.Fatalf("client %d: %v", c.Slot(), err)
		}
	}
	if len(model.leaves) != 2 || srv.Refusals()[0] != (Refusal{"match_failed", 2}) {
		t.Fatalf("leaves %v, refusals %v", model.leaves, srv.Refusals())
	}
}

func FuzzControl(f *testing.F) {
	for _, m := range []control{{ctlHello, "lockstep on tower20 for 4 players"}, {ctlWelcome, ""}, {ctlBye, strings.Repeat("x", maxControlText)}} {
		f.Add(encodeControl(m.kind, m.text))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeControl(b)
		if err != nil {
			return
		}
		again, err := decodeControl(encodeControl(m.kind, m.text))
		if err != nil || again != m {
			t.Fatalf("round trip %+v → %+v, %v", m, again, err)
		}
		var size wire.Measurer
		if err := m.Serialize(&size); err != nil || size.Bytes()+len(controlMagic) != len(encodeControl(m.kind, m.text)) {
			t.Fatalf("measured %d bytes: %v", size.Bytes(), err)
		}
	})
}

func TestControlNeverLooksLikeAModelDatagram(t *testing.T) {
	// A reliable.Endpoint's prefix byte never has its top bits set.
	if !isControl(encodeControl(ctlHello, "x")) || isControl([]byte{0x3F, 'N', 'P', 'C'}) || isControl([]byte{0xFF, 'N'}) {
		t.Fatal("isControl")
	}
	for i := range len(controlMagic) + 2 {
		if _, err := decodeControl(encodeControl(ctlBye, "reason")[:i]); err == nil {
			t.Fatalf("a control message cut at %d bytes decoded", i)
		}
	}
}

// watchingServer is sumServer that takes spectators (Spectated).
type watchingServer struct {
	*sumServer
	watches []int
}

func (s *watchingServer) Watch(now time.Time, slot int) error {
	s.watches = append(s.watches, slot)
	return nil
}

// TestHelloThatWatches: a hello of Watching(agree) reaches a Spectated
// model by Watch, not Join; a model without Watch refuses it as another
// match, naming what the client asked for.
func TestHelloThatWatches(t *testing.T) {
	const agree = "predict (60 Hz) on tower20 for 2 players"
	plain := &sumServer{max: 4, counter: map[int]uint32{}}
	srv, token := startAgreeServer(t, plain, agree)
	_, err := dialAgree(t, srv, 1, token, Watching(agree), &countClient{})
	var r *RefusedError
	if !errors.As(err, &r) || r.Reason != "server runs "+agree+"; you asked for spectating "+agree || len(plain.joins) != 0 {
		t.Fatalf("a spectator of a model without Watch: %v, joins %v", err, plain.joins)
	}
	model := &watchingServer{sumServer: &sumServer{max: 4, counter: map[int]uint32{}}}
	srv, token = startAgreeServer(t, model, agree)
	c, err := dialAgree(t, srv, 2, token, Watching(agree), &countClient{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := stepUntil(t, "watch", func() bool { return len(model.watches) == 1 }, srv, c); err != nil {
		t.Fatal(err)
	}
	if len(model.joins) != 0 || !srv.Joined(model.watches[0]) {
		t.Fatalf("joins %v, watches %v, joined %v", model.joins, model.watches, srv.Joined(model.watches[0]))
	}
}

// TestEndSpectatorsLeavesThePlayers: EndSpectators sends the spectators
// away with a bye saying the match is over and leaves the players in it.
func TestEndSpectatorsLeavesThePlayers(t *testing.T) {
	const agree = "predict (60 Hz) on the arena for 2 players"
	model := &watchingServer{sumServer: &sumServer{max: 4, counter: map[int]uint32{}}}
	srv, token := startAgreeServer(t, model, agree)
	player, err := dialAgree(t, srv, 1, token, agree, &countClient{})
	if err != nil {
		t.Fatal(err)
	}
	defer player.Close()
	watcher, err := dialAgree(t, srv, 2, token, Watching(agree), &countClient{})
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close()
	if err := stepUntil(t, "join and watch", func() bool { return len(model.joins) == 1 && len(model.watches) == 1 }, srv, player, watcher); err != nil {
		t.Fatal(err)
	}
	if !srv.Watching(model.watches[0]) || srv.Watching(model.joins[0]) {
		t.Fatalf("watching: spectator's slot %v, player's slot %v", srv.Watching(model.watches[0]), srv.Watching(model.joins[0]))
	}
	srv.EndSpectators(time.Now())
	err = stepUntil(t, "bye", func() bool { return false }, srv, watcher)
	var r *RefusedError
	if !errors.As(err, &r) || !strings.Contains(r.Reason, "the match is over") {
		t.Fatalf("spectator: %v", err)
	}
	if !srv.Joined(model.joins[0]) || srv.Joined(model.watches[0]) || srv.Refusals()[0] != (Refusal{"match_over", 1}) {
		t.Fatalf("player joined %v, spectator joined %v, refusals %v", srv.Joined(model.joins[0]), srv.Joined(model.watches[0]), srv.Refusals())
	}
}
