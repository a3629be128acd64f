package viewer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
)

// A client is one connected page. Two goroutines serve it: the handler's
// own, which writes (hello, then the newest frame whenever the page has
// room for one), and a reader that parses the page's inputs and acks.
// Whichever fails first stops the other through the context's cause, which
// also picks the close code.
type client struct {
	conn  pageConn
	wakes chan struct{} // capacity 1: "a newer frame may be there"
	ctx   context.Context
	stop  context.CancelCauseFunc

	mu      sync.Mutex
	keys    Input     // latest input message
	pointer *Pointer  // its pointer, nil when it had none
	keysAt  time.Time // when it arrived
	sent    FrameSeq  // newest frame sent (set before the write, so no ack can beat it)
	acked   FrameSeq  // newest frame the page acknowledged
}

// pageConn is the page's end of a connection: a *websocket.Conn, or a
// page in the same process (ServePage).
type pageConn interface {
	Read(ctx context.Context) (websocket.MessageType, []byte, error)
	Write(ctx context.Context, typ websocket.MessageType, b []byte) error
	Close(code websocket.StatusCode, reason string) error
	CloseNow() error
}

// A protocolError is a page breaking the protocol; the connection closes
// with its code and, as the reason, its error.
type protocolError struct {
	code websocket.StatusCode
	err  error
}

func (e *protocolError) Error() string { return e.err.Error() }
func (e *protocolError) Unwrap() error { return e.err }

var (
	errGoingAway = errors.New("viewer: server closed")
	errBinary    = errors.New("viewer: pages send text messages, not binary")
)

// wake tells the writer that a newer frame is there or that the page
// acknowledged one, without waiting: if the writer has not yet seen the
// last wake-up, this one merges into it. Frames published meanwhile are
// never sent to this page: that is the frame skipping.
func (c *client) wake() {
	select {
	case c.wakes <- struct{}{}:
	default:
	}
}

// input returns the page's keys and pointer (nil: none), or neither once
// they are older than timeout, and when they arrived.
func (c *client) input(now time.Time, timeout time.Duration) (Input, *Pointer, time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now.Sub(c.keysAt) > timeout {
		return 0, nil, time.Time{}
	}
	return c.keys, c.pointer, c.keysAt
}

func (s *Server) serveWebSocket(w http.ResponseWriter, r *http.Request) {
	if s.Clients() >= s.cfg.MaxClients {
		http.Error(w, errFull.Error(), http.StatusServiceUnavailable)
		return
	}
	// Accept's default checks that the page comes from this same host, so
	// another site open in the browser cannot drive the player.
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		s.cfg.Logger.Warn("viewer: websocket handshake", "remote", r.RemoteAddr, "err", err)
		return
	}
	conn.SetReadLimit(MaxPageMessage)
	s.serve(conn, r.RemoteAddr)
}

// serve runs one page's connection until it ends.
func (s *Server) serve(conn pageConn, remote string) {
	c := &client{conn: conn, wakes: make(chan struct{}, 1)}
	c.ctx, c.stop = context.WithCancelCause(context.Background())
	if err := s.add(c); err != nil {
		conn.Close(websocket.StatusTryAgainLater, err.Error())
		return
	}
	defer s.remove(c)
	s.cfg.Logger.Debug("viewer: page connected", "remote", remote)

	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		c.stop(c.readLoop())
	}()
	cause := c.writeLoop(s)
	c.stop(cause)
	c.close(cause)
	<-readDone
	s.cfg.Logger.Debug("viewer: page disconnected", "remote", remote, "cause", cause)
	var pe *protocolError
	if errors.As(cause, &pe) {
		s.cfg.Logger.Warn("viewer: page broke the protocol", "remote", remote, "err", pe.err)
	}
}

// readLoop reads the page's messages until the connection fails or a
// message breaks the protocol, and returns why it stopped.
func (c *client) readLoop() error {
	for {
		// Not c.ctx: cancelling a Read's context tears the connection down
		// at once, and the writer wants to send a close frame first.
		typ, b, err := c.conn.Read(context.Background())
		if err != nil {
			return err
		}
		if typ != websocket.MessageText {
			return &protocolError{websocket.StatusUnsupportedData, errBinary}
		}
		m, err := ParsePageMessage(b)
		if err == nil {
			err = c.handle(m)
		}
		if err != nil {
			return &protocolError{websocket.StatusPolicyViolation, err}
		}
	}
}

func (c *client) handle(m PageMessage) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch m.Type {
	case PageInput:
		c.keys, c.pointer, c.keysAt = m.Keys, m.Pointer, time.Now()
	case PageAck:
		if m.Seq <= c.acked || m.Seq > c.sent {
			return fmt.Errorf("%w: ack of frame %d: sent up to %d, acknowledged up to %d", ErrPageMessage, m.Seq, c.sent, c.acked)
		}
		c.acked = m.Seq
		c.wake()
	}
	return nil
}

// writeLoop sends hello, then, whenever woken, the controls if they
// changed and the newest frame if it is new to the page and fewer than
// FramesInFlight frames await the page's ack. It runs until c is stopped or a write fails, and returns why it
// stopped.
func (c *client) writeLoop(s *Server) error {
	if err := c.write(s, websocket.MessageText, marshalHello(s.cfg.InputTimeout/4)); err != nil {
		return err
	}
	var sent, sentFigures FrameSeq
	var inFlight []FrameSeq // sent and not acknowledged, oldest first
	sentControls := 0       // generation of the controls sent
	for {
		// A wake-up runs the loop to here again, whatever it found
		// below: new controls go out before the next frame.
		if msg, gen := s.controlsMessage(); gen != sentControls {
			if err := c.write(s, websocket.MessageText, msg); err != nil {
				return err
			}
			sentControls = gen
		}
		select {
		case <-c.ctx.Done():
			return context.Cause(c.ctx)
		case <-c.wakes:
		}
		c.mu.Lock()
		acked := c.acked
		c.mu.Unlock()
		for len(inFlight) > 0 && inFlight[0] <= acked {
			inFlight = inFlight[1:]
		}
		if len(inFlight) >= s.cfg.FramesInFlight {
			continue // the page's next ack wakes us
		}
		p := s.newest()
		if p == nil || p.seq == sent {
			continue
		}
		c.mu.Lock()
		c.sent = p.seq
		c.mu.Unlock()
		if err := c.write(s, websocket.MessageBinary, p.frame); err != nil {
			return err
		}
		sent = p.seq
		inFlight = append(inFlight, p.seq)
		if p.figuresSeq != sentFigures {
			if err := c.write(s, websocket.MessageText, p.figures); err != nil {
				return err
			}
			sentFigures = p.figuresSeq
		}
	}
}

// write sends one message within the write timeout. Its context is not
// c.ctx, for the same reason as in readLoop.
func (c *client) write(s *Server, typ websocket.MessageType, b []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.WriteTimeout)
	defer cancel()
	return c.conn.Write(ctx, typ, b)
}

// close ends the connection: with a close frame saying why when the server
// chose to end it, at once when the page or the network already did.
func (c *client) close(cause error) {
	var pe *protocolError
	switch {
	case errors.Is(cause, errGoingAway):
		c.conn.Close(websocket.StatusGoingAway, errGoingAway.Error())
	case errors.As(cause, &pe):
		c.conn.Close(pe.code, closeReason(pe.err.Error()))
	default:
		c.conn.CloseNow()
	}
}

// closeReason cuts s to the 123 bytes a close frame holds, on a rune
// boundary.
func closeReason(s string) string {
	const max = 123
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
