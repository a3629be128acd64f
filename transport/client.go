package transport

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/netphys/netphys/transport/netcode"
)

// ClientConfig configures a Client driver.
type ClientConfig struct {
	Netcode netcode.ClientConfig
	// Tick is the update period of the core when no packet arrives.
	Tick time.Duration
	// Now is the driver's clock, nil for time.Now; see ServerConfig.Now.
	Now func() time.Time
	// OnPayload receives every payload from the server, in order, on the
	// client's goroutine. It may call SendPayload. The slice belongs to the callee.
	OnPayload func(payload []byte)
	Logger    *slog.Logger // nil: slog.Default()
}

// DefaultClientConfig returns the core's defaults and a 10 ms tick.
func DefaultClientConfig() ClientConfig {
	return ClientConfig{Netcode: netcode.DefaultClientConfig(), Tick: DefaultTick}
}

// Client runs a netcode client on a datagram socket.
type Client struct {
	cfg  ClientConfig
	conn PacketConn
	io   *datagramIO
	now  func() time.Time
	log  *slog.Logger
	done chan struct{}

	mu      sync.Mutex // guards everything below
	core    *netcode.Client
	closed  bool
	changed chan struct{} // closed and replaced at every state change
	last    netcode.ClientState
}

// Dial opens a UDP socket on an ephemeral port and starts connecting with
// token. It returns at once; use WaitConnected to wait for the handshake.
func Dial(token *netcode.ConnectToken, cfg ClientConfig) (*Client, error) {
	network := "udp4"
	for _, a := range token.ServerAddresses {
		if !a.Addr().Unmap().Is4() {
			network = "udp" // dual stack, for IPv6 servers
		}
	}
	conn, err := net.ListenUDP(network, nil)
	if err != nil {
		return nil, fmt.Errorf("transport: %w", err)
	}
	c, err := NewClient(conn, token, cfg)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// NewClient connects with token over conn, which the Client then owns.
func NewClient(conn PacketConn, token *netcode.ConnectToken, cfg ClientConfig) (*Client, error) {
	if cfg.Tick <= 0 {
		cfg.Tick = DefaultTick
	}
	deepenBuffers(conn)
	c := &Client{cfg: cfg, conn: conn, io: newDatagramIO(conn, 1), now: cfg.Now, log: cfg.Logger, done: make(chan struct{}), changed: make(chan struct{})}
	if c.now == nil {
		c.now = time.Now
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.core = netcode.NewClient(cfg.Netcode)
	now := c.now()
	if err := c.core.Connect(now, token); err != nil {
		return nil, err
	}
	c.core.Update(now)
	takeBatch(c.core.Send()).send(c.io, c.log)
	c.noteStateLocked()
	go c.run()
	return c, nil
}

func (c *Client) run() {
	defer close(c.done)
	var payloads [][]byte // reused: the payloads of one pass
	tk := newTicks(c.conn, c.cfg.Tick, c.now())
	for {
		_, err := tk.read(c.io, c.log)
		now := c.now()
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return
		}
		switch {
		case err == nil:
			c.core.Receive(now, c.io.got[0].from, c.io.bufs[0][:c.io.got[0].n])
			// Answer at once what the packet made due (the response to a
			// challenge) instead of at the next tick: Update is cheap here.
			c.core.Update(now)
		case !isTimeout(err):
			c.log.Warn("client read failed", "err", err)
		}
		if tk.due(now) {
			c.core.Update(now)
		}
		out := takeBatch(c.core.Send())
		c.noteStateLocked()
		for b, ok := c.core.ReceivePayload(); ok; b, ok = c.core.ReceivePayload() {
			payloads = append(payloads, b)
		}
		c.mu.Unlock()
		out.send(c.io, c.log)
		if c.cfg.OnPayload != nil {
			for _, b := range payloads {
				c.cfg.OnPayload(b)
			}
		}
		clear(payloads) // let the callee's payloads go
		payloads = payloads[:0]
	}
}

// noteStateLocked logs state changes and wakes WaitConnected.
func (c *Client) noteStateLocked() {
	st := c.core.State()
	if st == c.last {
		return
	}
	c.log.Info("client state", "from", c.last, "to", st, "server", c.core.ServerAddress())
	c.last = st
	close(c.changed)
	c.changed = make(chan struct{})
}

// State returns the state of the connection.
func (c *Client) State() netcode.ClientState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.core.State()
}

// ClientIndex returns the slot the server gave this client, or -1.
func (c *Client) ClientIndex() netcode.ClientIndex {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.core.ClientIndex()
}

// Counters returns a snapshot of the client's counters.
func (c *Client) Counters() netcode.Counters {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.core.Counters()
}

// WaitConnected blocks until the client is connected (nil), reaches an
// error or disconnected state (an error naming it), or ctx ends.
func (c *Client) WaitConnected(ctx context.Context) error {
	for {
		c.mu.Lock()
		st, ch := c.core.State(), c.changed
		c.mu.Unlock()
		switch {
		case st == netcode.StateConnected:
			return nil
		case st <= netcode.StateDisconnected:
			return fmt.Errorf("transport: connection failed: %v", st)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// SendPayload sends 1 to 1200 bytes to the server, now.
func (c *Client) SendPayload(payload []byte) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	err := c.core.SendPayload(c.now(), payload)
	out := takeBatch(c.core.Send())
	c.mu.Unlock()
	out.send(c.io, c.log)
	return err
}

// Close sends the redundant disconnect packets if connected, stops the
// goroutine and closes the socket.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	c.core.Disconnect(c.now())
	out := takeBatch(c.core.Send())
	c.noteStateLocked()
	c.closed = true
	c.mu.Unlock()
	out.send(c.io, c.log) // the disconnect packets, before the socket closes
	err := c.conn.Close()
	<-c.done
	return err
}
