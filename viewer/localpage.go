package viewer

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/coder/websocket"
)

// A LocalPage is a page the Server serves without a WebSocket: the page
// of a browser tab whose world is simulated in the same (wasm) program.
// It carries the same messages as the WebSocket would.
type LocalPage interface {
	// Receive returns the page's next text message, blocking until
	// there is one; an error ends the connection.
	Receive(ctx context.Context) ([]byte, error)
	// Send hands the page one message: a binary frame, or text.
	Send(binary bool, b []byte) error
	// Close ends the page's connection, saying why.
	Close(reason string)
}

// ServePage serves p as a connected page until the connection ends: the
// hello, the frames with the page's acks, the figures and controls, and
// the page's inputs, exactly as over the WebSocket.
func (s *Server) ServePage(p LocalPage) {
	s.serve(localConn{p}, "local page")
}

// Assets returns the page and its scripts, as Handler serves them.
func Assets() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(fmt.Sprintf("viewer: embedded assets: %v", err)) // "static" is embedded
	}
	return sub
}

// localConn adapts a LocalPage to the connection the client runs on.
type localConn struct{ p LocalPage }

func (c localConn) Read(ctx context.Context) (websocket.MessageType, []byte, error) {
	b, err := c.p.Receive(ctx)
	if err != nil {
		return 0, nil, err
	}
	if len(b) > MaxPageMessage {
		return 0, nil, fmt.Errorf("viewer: a page message of %d bytes, over %d", len(b), MaxPageMessage)
	}
	return websocket.MessageText, b, nil
}

func (c localConn) Write(_ context.Context, typ websocket.MessageType, b []byte) error {
	return c.p.Send(typ == websocket.MessageBinary, b)
}

func (c localConn) Close(_ websocket.StatusCode, reason string) error {
	c.p.Close(reason)
	return nil
}

func (c localConn) CloseNow() error {
	c.p.Close("")
	return nil
}
