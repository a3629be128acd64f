package udpdrive

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/netcode"
)

// ErrDisconnected is returned by Client.Step once the netcode connection
// has ended (timed out, refused, or closed by the server).
var ErrDisconnected = errors.New("udpdrive: disconnected")

// ClientConfig configures a Client driver.
type ClientConfig struct {
	// Transport configures the netcode client. Its OnPayload is the
	// driver's.
	Transport transport.ClientConfig
	// Conn, when set, is the datagram socket the client runs on (a
	// browser tab's WebTransport carrier, say), which the Client then
	// owns; nil: a UDP socket on an ephemeral port (transport.Dial).
	Conn transport.PacketConn
	// ConnectTimeout bounds the handshake in Dial. Default 10 s.
	ConnectTimeout time.Duration
	// StartWithin is how long a model that reports whether its session
	// runs (a Running() bool method, as lockstep.Client has) may wait for
	// it, from its first Step: past it, Step returns an error wrapping
	// ErrNotStarted. Default 60 s; negative waits forever.
	StartWithin time.Duration
	Logger      *slog.Logger // nil: slog.Default()
	// Agree, when not empty, is the description of the match the client
	// was set up for (ServerConfig.Agree): Dial sends it in a hello and
	// waits for the server's welcome before it builds the model, and
	// returns a *RefusedError naming the difference if the server runs
	// another match. Empty: no hello, for a server without Agree.
	Agree string
}

// ErrNotStarted is returned by Client.Step when the model's session has
// not started ClientConfig.StartWithin after its first Step: typically the
// server waits for players who never joined (a lockstep session starts
// once its Config.Players have joined).
var ErrNotStarted = errors.New("udpdrive: the session did not start")

// DefaultClientConfig returns the transport's defaults, a 10 s handshake
// limit and a 60 s StartWithin.
func DefaultClientConfig() ClientConfig {
	return ClientConfig{Transport: transport.DefaultClientConfig(), ConnectTimeout: 10 * time.Second, StartWithin: time.Minute}
}

// Client drives a netmodel.Client on a netcode client over UDP. Step,
// Traffic and Dropped belong to one goroutine, the one that owns the
// model.
type Client struct {
	model netmodel.Client
	tc    *transport.Client
	log   *slog.Logger
	slot  int
	in    inbox
	clock clock
	spare []event

	startWithin time.Duration
	first       time.Time // the first Step; zero before it
	started     bool      // the model reported its session running

	// The server's verdict and last word, set by the transport's
	// goroutine: a welcome, or a refusal or bye with its reason.
	mu        sync.Mutex
	welcomed  bool
	matchSlot int // the slot the welcome named, -1 if none
	ended     *RefusedError
	verdict   chan struct{} // closed at the first verdict

	traffic netmodel.Traffic
	sendErr uint64
	dropped uint64
	cost    Cost
}

// Dial connects to the server named in token and, once netcode has
// given the client its slot, builds its model with newModel(slot). What
// the server sends meanwhile waits for the model's first Step.
func Dial(ctx context.Context, token *netcode.ConnectToken, newModel func(slot int) (netmodel.Client, error), cfg ClientConfig) (*Client, error) {
	c := &Client{log: cfg.Logger, verdict: make(chan struct{}), matchSlot: -1}
	if c.log == nil {
		c.log = slog.Default()
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = DefaultClientConfig().ConnectTimeout
	}
	if cfg.StartWithin == 0 {
		cfg.StartWithin = DefaultClientConfig().StartWithin
	}
	c.startWithin = cfg.StartWithin
	tc := cfg.Transport
	tc.OnPayload = func(b []byte) {
		if isControl(b) {
			c.control(b)
			return
		}
		c.in.push(evPayload, 0, b)
	}
	c.in.init(tc.Now, maxQueuedPayloads, 0)
	if tc.Logger == nil {
		tc.Logger = c.log
	}
	var t *transport.Client
	var err error
	if cfg.Conn != nil {
		if t, err = transport.NewClient(cfg.Conn, token, tc); err != nil {
			cfg.Conn.Close()
		}
	} else {
		t, err = transport.Dial(token, tc)
	}
	if err != nil {
		return nil, err
	}
	wait, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout)
	defer cancel()
	if err := t.WaitConnected(wait); err != nil {
		t.Close()
		return nil, err
	}
	c.tc, c.slot = t, int(t.ClientIndex())
	if cfg.Agree != "" {
		if err := c.hello(wait, cfg.Agree); err != nil {
			t.Close()
			return nil, err
		}
		c.mu.Lock()
		if c.matchSlot >= 0 {
			c.slot = c.matchSlot // a match of Rooms numbers its own slots
		}
		c.mu.Unlock()
	}
	if c.model, err = newModel(c.slot); err != nil {
		t.Close()
		return nil, err
	}
	return c, nil
}

// hello sends the description of the match until the server answers: a
// welcome, or a refusal with its reason.
func (c *Client) hello(ctx context.Context, agree string) error {
	msg := encodeControl(ctlHello, agree)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if err := c.tc.SendPayload(msg); err != nil {
			c.log.Debug("udpdrive: hello", "err", err)
		}
		select {
		case <-c.verdict:
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.ended != nil {
				return c.ended
			}
			return nil
		case <-ctx.Done():
			return fmt.Errorf("udpdrive: no answer to the hello: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

// control takes a driver message from the server, on the transport's
// goroutine.
func (c *Client) control(b []byte) {
	m, err := decodeControl(b)
	if err != nil {
		c.log.Debug("udpdrive: bad control message", "err", err)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	first := !c.welcomed && c.ended == nil
	switch m.kind {
	case ctlWelcome:
		if !c.welcomed {
			c.matchSlot = welcomeSlot(m.text)
		}
		c.welcomed = true
	case ctlRefuse, ctlBye:
		if c.ended == nil {
			c.ended = &RefusedError{Reason: m.text, Joined: m.kind == ctlBye || c.welcomed}
		}
	default:
		return
	}
	if first {
		close(c.verdict)
	}
}

// Ended returns the server's reason for refusing or releasing this
// client, nil if it gave none.
func (c *Client) Ended() *RefusedError {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ended
}

// Slot is the client's slot in its match: the one the server's welcome
// named (Rooms number each match's slots from 0), else netcode's client
// index.
func (c *Client) Slot() int { return c.slot }

// Transport is the netcode client, for its counters.
func (c *Client) Transport() *transport.Client { return c.tc }

// Step hands the model every datagram that arrived since the last Step,
// each at the time it arrived, then runs its Update at now and sends what
// it returns. A Receive error is logged and counted; an Update error is
// returned wrapped in ErrUpdate, the end of the connection as
// ErrDisconnected, and a session that has not started in time as
// ErrNotStarted.
func (c *Client) Step(now time.Time) error {
	defer c.cost.add(time.Now())
	q, dropped := c.in.swap(c.spare)
	if dropped > c.dropped {
		c.log.Warn("udpdrive: model goroutine fell behind, payloads dropped", "total", dropped)
		c.dropped = dropped
	}
	for _, e := range q {
		c.traffic.DownPackets++
		c.traffic.DownBytes += uint64(len(e.data) + netmodel.PacketOverhead)
		if err := c.model.Receive(c.clock.at(e.at), e.data); err != nil {
			c.traffic.DownErrors++
			c.log.Debug("udpdrive: datagram dropped", "err", err)
		}
	}
	clear(q)
	c.spare = q
	// The model first: its own last word (a lockstep player's reason
	// for being dropped) says more than the driver's bye.
	if err := c.model.Update(c.clock.at(now), c.send); err != nil {
		return fmt.Errorf("%w: %w", ErrUpdate, err)
	}
	if e := c.Ended(); e != nil {
		return e
	}
	if st := c.tc.State(); st != netcode.StateConnected {
		return fmt.Errorf("%w (netcode state %v): the server gave no reason: it stopped, or the network failed", ErrDisconnected, st)
	}
	return c.checkStarted(now)
}

// checkStarted returns ErrNotStarted once a model that reports its
// session has waited longer than StartWithin for it.
func (c *Client) checkStarted(now time.Time) error {
	r, ok := c.model.(interface{ Running() bool })
	if !ok || c.started || c.startWithin < 0 {
		return nil
	}
	if c.first.IsZero() {
		c.first = now
	}
	if c.started = r.Running(); c.started {
		return nil
	}
	if waited := now.Sub(c.first); waited > c.startWithin {
		return fmt.Errorf("%w: connected to the server %v ago as slot %d and the session has not started: "+
			"the server waits for players who have not joined (a lockstep session starts once Config.Players have joined)", ErrNotStarted, waited.Round(time.Millisecond), c.slot)
	}
	return nil
}

func (c *Client) send(datagram []byte) {
	if err := c.tc.SendPayload(datagram); err != nil {
		c.sendErr++
		c.log.Debug("udpdrive: send", "err", err)
		return
	}
	c.traffic.UpPackets++
	c.traffic.UpBytes += uint64(len(datagram) + netmodel.PacketOverhead)
}

// Cost is the time the Steps took.
func (c *Client) Cost() Cost { return c.cost }

// Traffic returns the client's counts.
func (c *Client) Traffic() netmodel.Traffic { return c.traffic }

// Dropped counts payloads the driver's queue refused while the model
// goroutine was behind, and datagrams the connection refused to send.
func (c *Client) Dropped() (queue, send uint64) { return c.dropped, c.sendErr }

// Close sends netcode's disconnect packets and closes the socket.
func (c *Client) Close() error { return c.tc.Close() }
