package main

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/netphys/netphys/transport/agones"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/tokenservice"
)

// modelLabel is the GameServer label naming the model it serves (the
// fleet's, in deploy/); the match it hosts is the annotation
// tokenservice.MatchAnnotation its GameServerAllocation set.
const modelLabel = "netphys.dev/model"

// publicAddress waits for the GameServer's address and port, retrying
// every second while the SDK server is not up yet (a sidecar starting
// beside us) or the pod is not scheduled.
func (lc *lifecycle) publicAddress(ctx context.Context) (netip.AddrPort, error) {
	for attempt := 1; ; attempt++ {
		cctx, cancel := context.WithTimeout(ctx, sdkCallTimeout)
		gs, err := lc.sdk.GameServer(cctx)
		cancel()
		if err == nil {
			port, ok := gs.Status.Port(lc.f.port)
			ip, perr := netip.ParseAddr(gs.Status.Address)
			switch {
			case ok && perr == nil && port > 0 && port < 65536:
				ap := netip.AddrPortFrom(ip, uint16(port))
				lc.log.Info("agones: public address", "addr", ap, "gameserver", gs.ObjectMeta.Name, "state", gs.Status.State)
				return ap, nil
			case gs.Status.Address != "" && perr != nil:
				return netip.AddrPort{}, fmt.Errorf("agones: the GameServer's address %q is not an IP: give --public", gs.Status.Address)
			}
			err = fmt.Errorf("the GameServer (state %s) has no address or no port %q yet", gs.Status.State, lc.f.port)
		}
		lc.log.Warn("agones: waiting for the GameServer's address; retrying every second", "attempt", attempt, "err", err)
		select {
		case <-ctx.Done():
			return netip.AddrPort{}, fmt.Errorf("agones: interrupted while waiting for the GameServer's address: %w", err)
		case <-time.After(time.Second):
		}
	}
}

// agonesSide is what serve --agones says to Agones and hears from it. Its
// methods run on the lifecycle's goroutine (a nil lc.sdk makes them no-ops).
type agonesSide struct {
	lc      *lifecycle
	events  chan agones.GameServer
	state   string
	matchID string
	// annotation is the match annotation the watch last showed: a new
	// one while Allocated is another allocation of this server (a rooms
	// fleet packs matches into Allocated servers).
	annotation string
	list       string // "" once the List turned out missing
	counter    string // "" once the Counter turned out missing
	// selfAllocated: serve asked to be Allocated and the watch has not
	// yet shown a state other than Ready, so the players joining
	// meanwhile do not ask again.
	selfAllocated bool
	// alloc, with --rooms, are the matches allocated to this server
	// whose rooms have not opened yet.
	alloc *allocations
}

const sdkCallTimeout = 5 * time.Second

// start sends Ready (retrying while the SDK server is not up yet: it is a
// sidecar starting beside us), then starts the health pings and the watch.
func (a *agonesSide) start(ctx context.Context, signaled <-chan struct{}, wg *sync.WaitGroup) {
	sdk, log := a.lc.sdk, a.lc.log
	a.list, a.counter = a.lc.f.list, a.lc.f.counter
	for attempt := 1; ; attempt++ {
		cctx, cancel := context.WithTimeout(ctx, sdkCallTimeout)
		err := sdk.Ready(cctx)
		cancel()
		if err == nil {
			break
		}
		log.Warn("agones: Ready failed; retrying every second", "attempt", attempt, "err", err)
		select {
		case <-ctx.Done():
			return
		case <-signaled:
			return
		case <-time.After(time.Second):
		}
	}
	log.Info("agones: ready", "sdk", sdk.URL, "health_every", a.lc.f.health)
	a.events = make(chan agones.GameServer, 16)
	wg.Add(2)
	go func() {
		defer wg.Done()
		sdk.HealthLoop(ctx, a.lc.f.health, func(err error) { log.Warn("agones: health ping failed", "err", err) })
	}()
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			err := sdk.Watch(ctx, func(gs agones.GameServer) {
				select {
				case a.events <- gs:
				case <-ctx.Done():
				}
			})
			if err != nil {
				log.Warn("agones: watch failed; watching again in a second", "err", err)
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
			}
		}
	}()
}

// observe follows the GameServer: each allocation names a match, the
// first as it turns Allocated, later ones (a rooms server taking more
// matches) as the annotation changes while it stays so. With --rooms, an
// allocation with a new annotation (not serve's own, nor one left from an
// earlier match) makes the match wait for its room (see allocations).
func (a *agonesSide) observe(ctx context.Context, gs agones.GameServer) {
	prev, prevAnn, self := a.state, a.annotation, a.selfAllocated
	a.state = gs.Status.State
	if a.state != agones.StateReady {
		a.selfAllocated = false
	}
	ann := gs.ObjectMeta.Annotations[tokenservice.MatchAnnotation]
	again := ann != prevAnn && prev == agones.StateAllocated
	a.annotation = ann
	if a.state == agones.StateAllocated && (prev != a.state || again) {
		a.matchID = ann
		a.lc.log.Info("agones: allocated", "gameserver", gs.ObjectMeta.Name, "match_id", a.matchID,
			"model", gs.ObjectMeta.Labels[modelLabel], "again", again)
		fresh := a.alloc != nil && ann != "" && ann != prevAnn && !self
		switch {
		case fresh && a.lc.draining.Load():
			a.lc.log.Warn("agones: allocated while draining: the match is not taken, its players are refused", "match_id", ann)
		case fresh && a.alloc.allocate(time.Now(), ann):
			a.lc.log.Info("agones: the allocated match waits for its players; it counts as a match until its room opens",
				"match_id", ann, "allocation_wait", a.lc.f.allocWait, "waiting", len(a.alloc.waiting))
		}
		return
	}
	if a.state != prev {
		a.lc.log.Info("agones: state", "state", a.state, "was", prev)
	}
}

func (a *agonesSide) joined(ctx context.Context, id netcode.ClientID) {
	if a.lc.sdk == nil {
		return
	}
	a.lc.log.Info("agones: player joined", "client_id", id, "match_id", a.matchID)
	if a.state == agones.StateReady && !a.selfAllocated {
		// Players came without an allocation (a token minted by hand):
		// allocate ourselves so that Agones neither scales this server
		// down nor hands it to another match.
		a.selfAllocated = true
		a.call(ctx, "self-allocate", func(c context.Context) error { return a.lc.sdk.Allocate(c) })
	}
	a.updateList(ctx, id, true)
}

func (a *agonesSide) left(ctx context.Context, id netcode.ClientID) {
	if a.lc.sdk == nil {
		return
	}
	a.lc.log.Info("agones: player left", "client_id", id)
	a.updateList(ctx, id, false)
}

func (a *agonesSide) updateList(ctx context.Context, id netcode.ClientID, add bool) {
	if a.list == "" {
		return
	}
	value := strconv.FormatUint(uint64(id), 10)
	cctx, cancel := context.WithTimeout(ctx, sdkCallTimeout)
	defer cancel()
	var err error
	if add {
		_, err = a.lc.sdk.AddListValue(cctx, a.list, value)
	} else {
		_, err = a.lc.sdk.RemoveListValue(cctx, a.list, value)
	}
	if err == nil {
		return
	}
	if _, lerr := a.lc.sdk.List(cctx, a.list); lerr != nil && errors.Is(lerr, agones.ErrStatus) {
		a.lc.log.Warn("agones: the GameServer has no such List: players are not tracked (declare it under spec.lists, or --agones-players-list '')", "list", a.list, "err", lerr)
		a.list = ""
		return
	}
	a.lc.log.Warn("agones: player list", "list", a.list, "client_id", id, "add", add, "err", err)
}

// waiting is how many allocated matches wait for their rooms.
func (a *agonesSide) waiting() uint64 {
	if a.alloc == nil {
		return 0
	}
	return uint64(len(a.alloc.waiting))
}

// refresh reads the GameServer now and observes it, not waiting for the
// watch: an allocation made a moment ago is seen before serve counts its
// matches down or ends. A failure is logged and leaves what the watch
// showed.
func (a *agonesSide) refresh(ctx context.Context) {
	if a.lc.sdk == nil {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, sdkCallTimeout)
	defer cancel()
	gs, err := a.lc.sdk.GameServer(cctx)
	if err != nil {
		a.lc.log.Warn("agones: reading the GameServer for new allocations failed; going by the watch", "err", err)
		return
	}
	a.observe(ctx, gs)
}

// matchesCounted sets the rooms' Counter to n: the matches running and
// those allocated that wait for their players.
func (a *agonesSide) matchesCounted(ctx context.Context, n, running uint64) {
	if a.lc.sdk == nil || a.counter == "" {
		return
	}
	a.lc.log.Info("agones: matches counted", "counter", a.counter, "count", n, "running", running, "waiting", n-running)
	cctx, cancel := context.WithTimeout(ctx, sdkCallTimeout)
	defer cancel()
	_, err := a.lc.sdk.SetCounter(cctx, a.counter, int64(n))
	if err == nil {
		return
	}
	if _, cerr := a.lc.sdk.Counter(cctx, a.counter); cerr != nil && errors.Is(cerr, agones.ErrStatus) {
		a.lc.log.Warn("agones: the GameServer has no such Counter: its matches are not counted (declare it under spec.counters, or --agones-rooms-counter '')", "counter", a.counter, "err", cerr)
		a.counter = ""
		return
	}
	a.lc.log.Warn("agones: matches counter", "counter", a.counter, "count", n, "err", err)
}

// matchOver shuts the server down (Agones deletes the pod) and reports
// that serve ends, or makes it Ready for the next match.
func (a *agonesSide) matchOver(ctx context.Context) (exit bool) {
	a.matchID = ""
	if a.lc.f.afterMatch == "ready" {
		if a.call(ctx, "ready", a.lc.sdk.Ready) {
			a.lc.log.Info("agones: ready for the next match")
		}
		return false
	}
	a.call(ctx, "shutdown", a.lc.sdk.Shutdown) // a failure is logged: serve ends all the same
	return true
}

func (a *agonesSide) call(ctx context.Context, what string, fn func(context.Context) error) bool {
	cctx, cancel := context.WithTimeout(ctx, sdkCallTimeout)
	defer cancel()
	if err := fn(cctx); err != nil {
		a.lc.log.Error("agones: "+what+" failed", "err", err)
		return false
	}
	return true
}
