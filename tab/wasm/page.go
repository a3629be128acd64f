//go:build js && wasm

package main

import (
	"context"
	"errors"
	"sync"
	"syscall/js"

	"github.com/netphys/netphys/viewer"
)

// jsPage is the viewer page of this tab as a viewer.LocalPage: the
// bridge's TabSocket stands in for the page's WebSocket.
type jsPage struct {
	bridge js.Value
	u8     js.Value
	in     chan []byte
	done   chan struct{}
	once   sync.Once
	fn     js.Func
}

// pageQueue bounds the page's messages waiting for the viewer (inputs
// and acks, a few a frame); more are dropped, as a late ack or input is
// superseded by the next.
const pageQueue = 64

func newJSPage(bridge js.Value) *jsPage {
	p := &jsPage{bridge: bridge, u8: js.Global().Get("Uint8Array"), in: make(chan []byte, pageQueue), done: make(chan struct{})}
	p.fn = js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) == 0 || args[0].Type() != js.TypeString {
			return nil // not a message the viewer page sends
		}
		// The page is this tab's own script, not a network peer; still,
		// what the viewer would refuse goes no further.
		if m := args[0].String(); len(m) <= viewer.MaxPageMessage {
			select {
			case p.in <- []byte(m):
			default:
			}
		}
		return nil
	})
	bridge.Set("onPageMessage", p.fn)
	bridge.Call("pageOpen")
	return p
}

func (p *jsPage) Receive(ctx context.Context) ([]byte, error) {
	select {
	case b := <-p.in:
		return b, nil
	case <-p.done:
		return nil, errors.New("tab: the page closed")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *jsPage) Send(binary bool, b []byte) error {
	select {
	case <-p.done:
		return errors.New("tab: the page closed")
	default:
	}
	a := p.u8.New(len(b))
	js.CopyBytesToJS(a, b)
	p.bridge.Call("pageSend", binary, a)
	return nil
}

func (p *jsPage) Close(reason string) {
	p.once.Do(func() {
		close(p.done)
		p.bridge.Set("onPageMessage", js.Null())
		p.fn.Release()
		p.bridge.Call("pageClose", reason)
	})
}
