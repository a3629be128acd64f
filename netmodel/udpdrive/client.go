package udpdrive

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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
	// ConnectTimeout bounds the handshake in Dial. Default 10 s.
	ConnectTimeout time.Duration
	// StartWithin is how long a model that reports whether its session
	// runs (a Running() bool method, as lockstep.Client has) may wait for
	// it, from its first Step: past it, Step returns an error wrapping
	// ErrNotStarted. Default 60 s; negative waits forever.
	StartWithin time.Duration
	Logger      *slog.Logger // nil: slog.Default()
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

	traffic netmodel.Traffic
	sendErr uint64
	dropped uint64
	cost    Cost
}

// Dial connects to the server named in token and, once netcode has
// given the client its slot, builds its model with newModel(slot). What
// the server sends meanwhile waits for the model's first Step.
func Dial(ctx context.Context, token *netcode.ConnectToken, newModel func(slot int) (netmodel.Client, error), cfg ClientConfig) (*Client, error) {
	c := &Client{log: cfg.Logger}
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
	tc.OnPayload = func(b []byte) { c.in.push(evPayload, 0, b) }
	c.in.init(tc.Now, maxQueuedPayloads)
	if tc.Logger == nil {
		tc.Logger = c.log
	}
	t, err := transport.Dial(token, tc)
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
	if c.model, err = newModel(c.slot); err != nil {
		t.Close()
		return nil, err
	}
	return c, nil
}

// Slot is the netcode client index the server gave this client.
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
	if st := c.tc.State(); st != netcode.StateConnected {
		return fmt.Errorf("%w: %v", ErrDisconnected, st)
	}
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
	if err := c.model.Update(c.clock.at(now), c.send); err != nil {
		return fmt.Errorf("%w: %w", ErrUpdate, err)
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
