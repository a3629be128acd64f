package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/agones"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/tokenservice"
)

// lifecycleFlags are serve's flags for the process's life around its
// matches: Agones, and the drain on SIGTERM.
type lifecycleFlags struct {
	agones     bool
	sdk        string
	health     time.Duration
	afterMatch string
	port       string
	list       string
	counter    string
	allocWait  time.Duration
	drain      time.Duration
}

func declareLifecycle(fs *flag.FlagSet) *lifecycleFlags {
	f := &lifecycleFlags{}
	fs.BoolVar(&f.agones, "agones", false, "run as an Agones game server: Ready once listening, Health, watch for the allocation, Shutdown after the match")
	fs.StringVar(&f.sdk, "agones-sdk", "", "base URL of the Agones SDK server's HTTP gateway (default: http://127.0.0.1:$AGONES_SDK_HTTP_PORT, port 9358 if unset)")
	fs.DurationVar(&f.health, "agones-health", 2*time.Second, "period of the Agones health pings; keep it under the GameServer's spec.health.periodSeconds")
	fs.StringVar(&f.afterMatch, "agones-after-match", "shutdown", "when a match ends: shutdown (Agones deletes the pod) or ready (take the next match)")
	fs.StringVar(&f.port, "agones-port", "default", "the GameServer port players reach (its name under spec.ports): with the GameServer's address, the public address tokens list unless --public is given")
	fs.StringVar(&f.list, "agones-players-list", "players", "the GameServer's List (Counters and Lists, beta) that holds the connected players' client ids; empty: none")
	fs.StringVar(&f.counter, "agones-rooms-counter", "matches", "with --rooms: the GameServer's Counter (Counters and Lists, beta) that holds how many matches the process runs, its capacity the matches it may take (spec.counters); empty: none")
	fs.DurationVar(&f.allocWait, "agones-allocation-wait", 30*time.Second, "with --rooms: how long a match Agones allocated to this server (the annotation "+tokenservice.MatchAnnotation+") may take for its first player; until then it counts in --agones-rooms-counter and the server does not end after its last running match")
	fs.DurationVar(&f.drain, "drain", 25*time.Second, "on SIGTERM or SIGINT, let the running match finish for at most this long before exiting (0: exit at once; a second signal always does)")
	return f
}

// lifecycle runs beside serve's loop: it follows the netcode server's
// clients to see matches begin and end, speaks to Agones, and ends serve
// when the match is over after a shutdown or a drain.
//
// Hook: match.Serve offers none for "a player joined" or "the match is
// over", so lifecycle reads the netcode server's slots (every 100 ms) and
// calls a match over when every client that connected has left, the rule
// match.Serve itself applies. With --rooms it also reads the rooms'
// figures: the matches running, and those Agones allocated to the server
// that wait for their players (allocations), go to the Agones Counter
// --agones-rooms-counter, and "the match is over" becomes "the last
// running match has ended" (one at least ended, or an allocated one's
// players never came, since the last time; none runs or waits; no client
// is connected).
type lifecycle struct {
	f         *lifecycleFlags
	sdk       *agones.Client // nil without --agones
	log       *slog.Logger
	serve     context.CancelFunc
	listening chan *transport.Server
	rooms     *udpdrive.Rooms // serve --rooms: set before listening is sent on
	stop      context.CancelFunc
	wg        sync.WaitGroup
	draining  atomic.Bool // a signal came: no new matches (serve --rooms reads it)

	mu    sync.Mutex
	opens []string // serve --rooms --agones: the matches opened since the loop last looked
}

// start validates the flags and starts the lifecycle; serve runs with the
// context it returns (which outlives ctx by the drain) and calls done when
// it has returned.
//
// With --agones and without --public (public false), start first waits
// for the SDK server to report the GameServer's address and port (it has
// them once the pod is scheduled) and sets *addr to them: the address
// tokens list, which netcode requires to be its own.
func (f *lifecycleFlags) start(ctx context.Context, addr *netip.AddrPort, public bool) (serveCtx context.Context, lc *lifecycle, err error) {
	if f.afterMatch != "shutdown" && f.afterMatch != "ready" {
		return nil, nil, fmt.Errorf("--agones-after-match %q: want shutdown or ready", f.afterMatch)
	}
	if f.drain < 0 {
		return nil, nil, fmt.Errorf("--drain %v: want 0 or more", f.drain)
	}
	lc = &lifecycle{f: f, log: slog.Default(), listening: make(chan *transport.Server, 1)}
	if f.agones {
		if f.health <= 0 {
			return nil, nil, fmt.Errorf("--agones-health %v: want a period above 0", f.health)
		}
		if f.allocWait <= 0 {
			return nil, nil, fmt.Errorf("--agones-allocation-wait %v: want a time above 0 (how long an allocated match may take for its first player)", f.allocWait)
		}
		if f.sdk != "" {
			lc.sdk = agones.New(f.sdk)
		} else if lc.sdk, err = agones.FromEnv(); err != nil {
			return nil, nil, err
		}
		if !public {
			if *addr, err = lc.publicAddress(ctx); err != nil {
				return nil, nil, err
			}
		}
	}
	serveCtx, lc.serve = context.WithCancel(context.Background())
	var loopCtx context.Context
	loopCtx, lc.stop = context.WithCancel(context.Background())
	lc.wg.Add(1)
	go func() {
		defer lc.wg.Done()
		lc.loop(ctx, loopCtx)
	}()
	return serveCtx, lc, nil
}

// listened hands the lifecycle serve's netcode server once it is up.
func (lc *lifecycle) listened(srv *transport.Server) (func(), error) {
	lc.listening <- srv
	return func() {}, nil
}

// listenedRooms hands the lifecycle serve --rooms' rooms once they are up.
func (lc *lifecycle) listenedRooms(r *udpdrive.Rooms) (func(), error) {
	lc.rooms = r
	return lc.listened(r.Transport())
}

// roomOpened is serve --rooms' RoomsConfig.Opened: it queues the match's
// id for the loop, which counts the allocated matches waiting for their
// rooms (see allocations).
func (lc *lifecycle) roomOpened(id string) {
	if lc.sdk == nil {
		return
	}
	lc.mu.Lock()
	lc.opens = append(lc.opens, id)
	lc.mu.Unlock()
}

// takeOpens returns the matches opened since the last call.
func (lc *lifecycle) takeOpens() []string {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	ids := lc.opens
	lc.opens = nil
	return ids
}

// done ends the lifecycle after serve has returned.
func (lc *lifecycle) done() {
	lc.stop()
	lc.serve()
	lc.wg.Wait()
}

// session is the lifecycle's view of the clients: per slot, whether a
// client is connected and its id.
type session struct {
	up      []bool
	ids     []netcode.ClientID
	players int  // connected now
	joined  bool // a client connected since the last match ended
	matches int
	// serve --rooms: the matches counted as last told to Agones (running
	// and allocated), and the rooms' count of closed matches when the
	// last one ended.
	counted, closed uint64
	// expired: an allocated match's players never came since the last
	// match over; waitLogged: 1 + the closed count when serve last
	// logged that the match over waits for allocated matches.
	expired    bool
	waitLogged uint64
}

func (lc *lifecycle) loop(sigCtx, ctx context.Context) {
	var srv *transport.Server
	select {
	case srv = <-lc.listening:
	case <-ctx.Done():
		return
	}
	n := srv.MaxClients()
	s := session{up: make([]bool, n), ids: make([]netcode.ClientID, n)}
	ag := &agonesSide{lc: lc}
	if lc.rooms != nil && lc.sdk != nil {
		ag.alloc = newAllocations(lc.f.allocWait)
	}
	if lc.sdk != nil {
		ag.start(ctx, sigCtx.Done(), &lc.wg)
	}
	poll := time.NewTicker(100 * time.Millisecond)
	defer poll.Stop()
	signals := sigCtx.Done()
	var drainTimeout <-chan time.Time
	draining := false
	var second chan os.Signal
	defer func() {
		if second != nil {
			signal.Stop(second)
		}
	}()
	// exit ends serve, once, saying why.
	exiting := false
	exit := func(level slog.Level, msg string, args ...any) {
		if !exiting {
			exiting = true
			lc.log.Log(context.Background(), level, msg, args...)
			lc.serve()
		}
	}
	// step reads the clients and acts on a match that ended.
	step := func() {
		over := lc.pollClients(ctx, srv, &s, ag)
		if lc.rooms != nil {
			over = lc.roomsOver(ctx, &s, ag)
		}
		if !over {
			return
		}
		s.matches++
		if lc.rooms != nil {
			lc.log.Info("lifecycle: match over: the last running match ended", "matches_ended", s.closed, "match_id", ag.matchID)
		} else {
			lc.log.Info("lifecycle: match over", "match", s.matches, "match_id", ag.matchID)
		}
		switch {
		case draining:
			exit(slog.LevelInfo, "drain: the match is over: exiting")
		case lc.sdk != nil:
			if ag.matchOver(ctx) {
				exit(slog.LevelInfo, "agones: shutdown: exiting")
			}
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case gs := <-ag.events:
			ag.observe(ctx, gs)
		case <-signals:
			signals = nil
			draining = true
			lc.draining.Store(true)
			if ag.alloc != nil {
				if ids := ag.alloc.drop(); len(ids) > 0 {
					lc.log.Warn("drain: the matches allocated to this server but not opened are not taken: their players are refused (the server is draining)", "match_ids", ids)
				}
			}
			step() // the clients as they are now, not as of the last poll
			if s.players == 0 || lc.f.drain == 0 {
				exit(slog.LevelInfo, "drain: exiting", "reason", "signal", "players_cut_off", s.players)
				continue
			}
			// Listen for a second signal before saying so: one sent as
			// soon as the line below is read must not be missed.
			second = make(chan os.Signal, 1)
			signal.Notify(second, os.Interrupt, syscall.SIGTERM)
			drainTimeout = time.After(lc.f.drain)
			lc.log.Info("drain: no new matches; the running match may finish", "players", s.players, "timeout", lc.f.drain)
		case <-second:
			exit(slog.LevelWarn, "drain: a second signal: exiting now", "players_cut_off", s.players)
		case <-drainTimeout:
			exit(slog.LevelWarn, "drain: timed out: exiting", "players_cut_off", s.players, "timeout", lc.f.drain)
		case <-poll.C:
			step()
		}
	}
}

// pollClients reads the server's slots into s, tells Agones of players
// joining and leaving, and reports a match over: every client that
// connected since the last one has left.
func (lc *lifecycle) pollClients(ctx context.Context, srv *transport.Server, s *session, ag *agonesSide) (over bool) {
	for i := range s.up {
		ci := netcode.ClientIndex(i)
		up := srv.Connected(ci)
		var id netcode.ClientID
		if up {
			id = srv.ClientID(ci)
		}
		if s.up[i] && (!up || id != s.ids[i]) {
			s.up[i] = false
			s.players--
			ag.left(ctx, s.ids[i])
		}
		if up && !s.up[i] {
			s.up[i], s.ids[i] = true, id
			s.players++
			s.joined = true
			ag.joined(ctx, id)
		}
	}
	if s.joined && s.players == 0 {
		s.joined = false
		return true
	}
	return false
}

// roomsOver reads the rooms' figures (a second old at most), tells Agones
// how many matches run or are allocated and wait for their players (see
// allocations), and reports the last match ended: one ended (or an
// allocated one's players never came) since the last time, none runs, none
// waits and no client is connected.
func (lc *lifecycle) roomsOver(ctx context.Context, s *session, ag *agonesSide) (over bool) {
	now := time.Now()
	if ag.alloc != nil {
		for _, id := range lc.takeOpens() {
			ag.alloc.opened(now, id)
		}
	}
	f := lc.rooms.Figures()
	running := f.Opened - f.Closed
	var expired []allocated
	if ag.alloc != nil {
		expired = ag.alloc.settle(now, f.Opened)
		s.expired = s.expired || len(expired) > 0
	}
	ended := func() bool { return (f.Closed > s.closed || s.expired) && running == 0 && s.players == 0 }
	count := running + ag.waiting()
	if count < s.counted || ended() {
		// Before counting down or ending: an allocation the watch has
		// not shown yet is read now, so that it is neither uncounted
		// nor ended under.
		ag.refresh(ctx)
		count = running + ag.waiting()
	}
	for _, e := range expired {
		next := "the server goes on with its other matches"
		if ended() && ag.waiting() == 0 {
			next = "no match runs or waits: the match is over (--agones-after-match " + lc.f.afterMatch + ")"
		}
		lc.log.Warn("agones: an allocated match's players never came: it is no longer counted", "match_id", e.id,
			"waited", now.Sub(e.at).Round(time.Millisecond), "allocation_wait", lc.f.allocWait, "next", next)
	}
	if count != s.counted {
		s.counted = count
		ag.matchesCounted(ctx, count, running)
	}
	if !ended() {
		return false
	}
	if ag.waiting() > 0 {
		if s.waitLogged != f.Closed+1 {
			s.waitLogged = f.Closed + 1
			lc.log.Info("lifecycle: the last running match ended; matches allocated to this server wait for their players, so the server stays",
				"waiting", ag.alloc.ids(), "matches_ended", f.Closed)
		}
		return false
	}
	s.closed, s.expired = f.Closed, false
	return true
}

// chainListening calls every fn in order; a failure stops the ones
// already started.
func chainListening[S any](fns []func(S) (func(), error)) func(S) (func(), error) {
	return func(srv S) (func(), error) {
		var stops []func()
		stopAll := func() {
			for i := len(stops) - 1; i >= 0; i-- {
				stops[i]()
			}
		}
		for _, fn := range fns {
			stop, err := fn(srv)
			if err != nil {
				stopAll()
				return nil, err
			}
			stops = append(stops, stop)
		}
		return stopAll, nil
	}
}
