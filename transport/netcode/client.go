package netcode

import (
	"errors"
	"fmt"
	"net/netip"
	"time"
)

// Errors of the client API.
var (
	ErrClientBusy     = errors.New("netcode: client is already connecting or connected")
	ErrClientNotReady = errors.New("netcode: client is not connected")
	ErrInvalidToken   = errors.New("netcode: connect token is invalid")
)

// ClientState is the state of a Client; negative states are errors, in
// which the client stays until Connect is called again.
type ClientState int8

// Client states, numbered as in the standard.
const (
	StateTokenExpired     ClientState = -6
	StateInvalidToken     ClientState = -5
	StateTimedOut         ClientState = -4
	StateResponseTimedOut ClientState = -3
	StateRequestTimedOut  ClientState = -2
	StateDenied           ClientState = -1
	StateDisconnected     ClientState = 0
	StateSendingRequest   ClientState = 1
	StateSendingResponse  ClientState = 2
	StateConnected        ClientState = 3
)

var clientStateNames = [...]string{"token expired", "invalid token", "timed out", "response timed out",
	"request timed out", "denied", "disconnected", "sending request", "sending response", "connected"}

func (s ClientState) String() string {
	if s >= StateTokenExpired && s <= StateConnected {
		return clientStateNames[int(s)-int(StateTokenExpired)]
	}
	return fmt.Sprintf("ClientState(%d)", int8(s))
}

// ClientConfig configures a Client.
type ClientConfig struct {
	// SendInterval is how often requests, responses and idle keep-alives
	// are sent: 100 ms, the standard's 10 Hz.
	SendInterval time.Duration
	// DisconnectPackets is how many redundant disconnect packets are sent.
	DisconnectPackets int
	// ReceiveQueue is the number of payloads buffered before new ones drop.
	ReceiveQueue int
}

// DefaultClientConfig returns 10 Hz sends, 10 disconnect packets and a
// 256-payload receive queue.
func DefaultClientConfig() ClientConfig {
	return ClientConfig{SendInterval: 100 * time.Millisecond, DisconnectPackets: 10, ReceiveQueue: 256}
}

// Client is the client side of netcode 1.02 as a core without I/O: Connect
// with a token, feed it datagrams with Receive, advance it with Update, take
// the datagrams it wants sent with Send. Not safe for concurrent use.
type Client struct {
	cfg    ClientConfig
	state  ClientState
	token  *ConnectToken
	server int // index in token.ServerAddresses
	// start is when Connect was called: the token's lifetime (expire -
	// create) bounds the whole connection process from there.
	start      time.Time
	lastSend   time.Time
	lastRecv   time.Time
	timeout    time.Duration
	sequence   Sequence
	replay     ReplayProtection
	send, recv *PacketKey
	request    []byte // the request packet, built once per token
	challenge  ChallengeBody
	index      ClientIndex
	maxClients int
	queue      payloadQueue
	out        outbox
	counters   Counters
}

// NewClient returns a disconnected client.
func NewClient(cfg ClientConfig) *Client {
	d := DefaultClientConfig()
	if cfg.SendInterval <= 0 {
		cfg.SendInterval = d.SendInterval
	}
	if cfg.DisconnectPackets <= 0 {
		cfg.DisconnectPackets = d.DisconnectPackets
	}
	if cfg.ReceiveQueue <= 0 {
		cfg.ReceiveQueue = d.ReceiveQueue
	}
	return &Client{cfg: cfg, queue: newPayloadQueue(cfg.ReceiveQueue), index: -1}
}

// State returns the client's state.
func (c *Client) State() ClientState { return c.state }

// ClientIndex returns the slot the server gave this client, or -1.
func (c *Client) ClientIndex() ClientIndex { return c.index }

// MaxClients returns the number of slots of the server, once connected.
func (c *Client) MaxClients() int { return c.maxClients }

// ServerAddress returns the address the client is talking to.
func (c *Client) ServerAddress() netip.AddrPort {
	if c.token == nil {
		return netip.AddrPort{}
	}
	return c.token.ServerAddresses[c.server]
}

// Counters returns the client's counters.
func (c *Client) Counters() Counters { return c.counters }

// Send returns the datagrams to send now. Their bytes stay valid until the
// next call to any other method of the client.
func (c *Client) Send() []Datagram { return c.out.drain() }

// ReceivePayload pops the oldest payload received. The slice is the caller's.
func (c *Client) ReceivePayload() ([]byte, bool) { return c.queue.pop() }

// Connect starts connecting with token t to its first server. A token whose
// create timestamp is after its expire timestamp puts the client in
// StateInvalidToken and returns ErrInvalidToken.
func (c *Client) Connect(now time.Time, t *ConnectToken) error {
	if c.state > StateDisconnected {
		return ErrClientBusy
	}
	if t.CreateTimestamp > t.ExpireTimestamp || len(t.ServerAddresses) < 1 || len(t.ServerAddresses) > MaxServers {
		c.state = StateInvalidToken
		return ErrInvalidToken
	}
	c.token = t
	c.start = now
	c.request = NewRequestPacket(t).Append(make([]byte, 0, RequestPacketBytes))
	c.send = NewPacketKey(t.ProtocolID, &t.ClientToServerKey)
	c.recv = NewPacketKey(t.ProtocolID, &t.ServerToClientKey)
	c.timeout = secondsTimeout(t.TimeoutSeconds)
	c.queue.clear()
	c.goTo(now, 0)
	return nil
}

// goTo starts the handshake with server address number n.
func (c *Client) goTo(now time.Time, n int) {
	c.server = n
	c.state = StateSendingRequest
	c.lastRecv = now
	c.lastSend = time.Time{} // send at the next Update
	c.sequence = 0
	c.replay = ReplayProtection{}
	c.index = -1
	c.maxClients = 0
}

// fail moves to the next server of the token, or to error state st.
func (c *Client) fail(now time.Time, st ClientState) {
	if c.server+1 < len(c.token.ServerAddresses) {
		c.goTo(now, c.server+1)
		return
	}
	c.state = st
}

// Update sends what is due (requests, responses, keep-alives) and applies
// timeouts. Call it often: every 10 ms to 100 ms.
func (c *Client) Update(now time.Time) {
	if c.state <= StateDisconnected {
		return
	}
	lifetime := time.Duration(c.token.ExpireTimestamp-c.token.CreateTimestamp) * time.Second
	if c.state < StateConnected && !now.Before(c.start.Add(lifetime)) {
		c.state = StateTokenExpired
		return
	}
	if c.timeout > 0 && now.After(c.lastRecv.Add(c.timeout)) {
		switch c.state {
		case StateSendingRequest:
			c.fail(now, StateRequestTimedOut)
		case StateSendingResponse:
			c.fail(now, StateResponseTimedOut)
		default:
			c.state = StateTimedOut
		}
		if c.state <= StateDisconnected {
			return
		}
	}
	if !c.lastSend.IsZero() && now.Before(c.lastSend.Add(c.cfg.SendInterval)) {
		return
	}
	switch c.state {
	case StateSendingRequest:
		b := append(c.out.buffer(len(c.request)), c.request...)
		c.commit(now, b)
	case StateSendingResponse:
		var buf [challengeBodyBytes]byte
		c.sealFixed(now, PacketResponse, c.challenge.Append(buf[:0]))
	case StateConnected:
		var buf [keepAliveBodyBytes]byte
		c.sealFixed(now, PacketKeepAlive, KeepAliveBody{ClientIndex: uint32(c.index), MaxClients: uint32(c.maxClients)}.Append(buf[:0]))
	}
}

func (c *Client) commit(now time.Time, b []byte) {
	c.out.commit(c.ServerAddress(), b)
	c.lastSend = now
	c.counters.sent(len(b))
}

func (c *Client) seal(now time.Time, t PacketType, body []byte) error {
	b, err := c.send.Seal(c.out.buffer(MaxPacketBytes), t, c.sequence, body)
	if err != nil {
		return err
	}
	c.sequence++
	c.commit(now, b)
	return nil
}

// sealFixed queues a packet whose body the client built itself, so it
// always has the right size.
func (c *Client) sealFixed(now time.Time, t PacketType, body []byte) {
	if err := c.seal(now, t, body); err != nil {
		panic("netcode: client built an invalid " + t.String() + " packet: " + err.Error())
	}
}

// SendPayload queues a payload of 1 to 1200 bytes to the server.
func (c *Client) SendPayload(now time.Time, payload []byte) error {
	if c.state != StateConnected {
		return ErrClientNotReady
	}
	if err := c.seal(now, PacketPayload, payload); err != nil {
		return err
	}
	c.counters.PayloadsSent++
	return nil
}

// Disconnect sends the redundant disconnect packets if connected, and
// returns the client to StateDisconnected.
func (c *Client) Disconnect(now time.Time) {
	if c.state == StateConnected {
		for range c.cfg.DisconnectPackets {
			c.sealFixed(now, PacketDisconnect, nil)
		}
	}
	if c.state > StateDisconnected {
		c.state = StateDisconnected
	}
}
