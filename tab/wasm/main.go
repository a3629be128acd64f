//go:build js && wasm

// Command wasm is the tab's program: a netcode player in the browser,
// built for GOOS=js GOARCH=wasm and started in the tab's worker
// (tab/static/worker.js), whose netphysBridge hands it the connect token
// and carries its datagrams over WebTransport and the viewer's messages
// to and from the page.
//
// It publishes what it does in globalThis.__tabState, which the worker
// mirrors to the page for the browser tests.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"syscall/js"
	"time"

	_ "github.com/netphys/netphys/internal/cubegames" // netphys's games, registered with the runtime
	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/webtransport/carrier"
	"github.com/netphys/netphys/viewer"
)

func main() {
	bridge := js.Global().Get("netphysBridge")
	st := js.Global().Get("Object").New()
	js.Global().Set("__tabState", st)
	run := run
	if bridge.Get("mode").String() == "bench" {
		run = bench // no session: the clients' cost (tabbench)
	}
	if err := run(bridge, st); err != nil {
		st.Set("error", err.Error())
		bridge.Call("status", "error: "+err.Error())
		slog.Error("tab", "err", err)
	}
	st.Set("ended", true)
	// Stay loaded: a program that exits makes every callback still
	// scheduled by the page (a timer, a datagram in flight) throw.
	select {}
}

// connect decodes the bridge's token and hooks a carrier Conn to the
// bridge: datagrams from Go go to bridge.send, the session's datagrams
// come in through bridge.onDatagram until unhook.
func connect(bridge js.Value) (tok *netcode.ConnectToken, conn *carrier.Conn, unhook func(), err error) {
	tok, err = transport.DecodeToken([]byte(bridge.Get("token").String()))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("the page's connect token: %w", err)
	}
	if len(tok.ServerAddresses) == 0 {
		return nil, nil, nil, fmt.Errorf("the connect token lists no server")
	}
	u8 := js.Global().Get("Uint8Array")
	conn = carrier.New(func(b []byte) error {
		a := u8.New(len(b))
		js.CopyBytesToJS(a, b)
		bridge.Call("send", a)
		return nil
	}, tok.ServerAddresses[0])
	// The browser's own bound on a datagram, below which packets go in
	// fragments; a browser that does not say keeps frag.MaxDatagram.
	if limit := bridge.Get("maxDatagramSize"); limit.Type() == js.TypeNumber {
		if err := conn.SetMaxDatagram(limit.Int()); err != nil {
			return nil, nil, nil, err
		}
	}
	var buf [netcode.MaxPacketBytes]byte
	onDatagram := js.FuncOf(func(_ js.Value, args []js.Value) any {
		a := args[0]
		if n := a.Get("length").Int(); n > len(buf) {
			conn.Deliver(nil) // counted as dropped: a peer's length never sizes a buffer here
			return nil
		}
		n := js.CopyBytesToGo(buf[:], a)
		conn.Deliver(buf[:n]) // copies
		return nil
	})
	bridge.Set("onDatagram", onDatagram)
	return tok, conn, func() {
		bridge.Set("onDatagram", js.Null())
		onDatagram.Release()
	}, nil
}

func run(bridge, st js.Value) error {
	tok, conn, unhook, err := connect(bridge)
	if err != nil {
		return err
	}
	defer unhook()
	st.Set("maxDatagramSize", bridge.Get("maxDatagramSize"))
	switch mode := bridge.Get("mode").String(); mode {
	case "echo":
		return echo(tok, conn, st, bridge)
	case "play":
		return play(tok, conn, st, bridge)
	default:
		return fmt.Errorf("unknown mode %q (the page's ?mode=)", mode)
	}
}

// echoPayloads is how many payloads echo mode sends; every other one is
// of netcode's largest size, whose packet exceeds a browser's datagram
// and travels in fragments both ways.
const echoPayloads = 20

// echo connects, sends echoPayloads payloads to an echoing server,
// counts the ones that come back intact and disconnects.
func echo(tok *netcode.ConnectToken, conn *carrier.Conn, st, bridge js.Value) error {
	got := make(chan []byte, echoPayloads)
	cfg := transport.DefaultClientConfig()
	cfg.OnPayload = func(b []byte) {
		select {
		case got <- b:
		default:
		}
	}
	c, err := transport.NewClient(conn, tok, cfg)
	if err != nil {
		return err
	}
	defer c.Close() // the disconnect packets
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.WaitConnected(ctx); err != nil {
		return err
	}
	st.Set("state", c.State().String())
	st.Set("index", int(c.ClientIndex()))
	bridge.Call("status", fmt.Sprintf("connected as slot %d", c.ClientIndex()))
	want := map[string]bool{}
	for k := range echoPayloads {
		p := fmt.Sprintf("tab %d", k)
		if k%2 == 1 {
			p += strings.Repeat(".", netcode.MaxPayloadBytes-len(p))
		}
		want[p] = true
		if err := c.SendPayload([]byte(p)); err != nil {
			return err
		}
	}
	echoed := 0
	for echoed < echoPayloads {
		select {
		case b := <-got:
			if want[string(b)] {
				delete(want, string(b))
				echoed++
				st.Set("echoed", echoed)
			}
		case <-ctx.Done():
			return fmt.Errorf("%d of %d payloads echoed: %w", echoed, echoPayloads, ctx.Err())
		}
	}
	// What netcode ignored, by reason (late handshake packets of a loaded
	// machine are wrong_state), and what the carrier dropped.
	drops := js.Global().Get("Object").New()
	for r, n := range c.Counters().Drops {
		if n > 0 {
			drops.Set(netcode.DropReason(r).String(), n)
		}
	}
	st.Set("drops", drops)
	st.Set("carrierDropped", conn.Dropped())
	f := conn.Fragments()
	frags := js.Global().Get("Object").New()
	frags.Set("packetsSplit", f.PacketsSplit)
	frags.Set("fragmentsSent", f.FragmentsSent)
	frags.Set("fragmentsIn", f.FragmentsIn)
	frags.Set("packetsReassembled", f.PacketsReassembled)
	frags.Set("fragmentsDropped", f.FragmentsDropped)
	frags.Set("packetsLost", f.PacketsLost)
	st.Set("fragments", frags)
	bridge.Call("status", fmt.Sprintf("slot %d: %d payloads echoed", c.ClientIndex(), echoed))
	return nil
}

// play joins the server's match as `netphys play` does (a bot unless the
// flags say --bot=false), with the match flags the bridge gives
// (bridge.args: the page's ?args=, the server's match flags), shows its
// world on the page through the viewer, and publishes its summary.
func play(tok *netcode.ConnectToken, conn *carrier.Conn, st, bridge js.Value) error {
	fs := flag.NewFlagSet("tab", flag.ContinueOnError)
	models := match.DeclareFlags(fs, match.Defaults{Model: "lockstep", Players: 4})
	bot := fs.Bool("bot", true, "a bot plays; false: the page's keys and mouse")
	ticks := fs.Int("ticks", 0, "end the match after this many simulation ticks (0: never)")
	linger := fs.Duration("linger", 2*time.Second, "keep sending this long after the match ends")
	if err := fs.Parse(strings.Fields(bridge.Get("args").String())); err != nil {
		return fmt.Errorf("the page's match flags: %w", err)
	}
	m, sides, err := models.Sides()
	if err != nil {
		return err
	}
	setup, err := models.Setup(slog.Default())
	if err != nil {
		return err
	}
	// The page draws the tab's world with the viewer, fed from here.
	v := viewer.New(viewer.DefaultConfig())
	defer v.Close()
	go v.ServePage(newJSPage(bridge))
	cfg := match.PlayConfig{Model: m, Sides: sides, Setup: setup, Token: tok, Bot: *bot, Viewer: v, Ticks: *ticks, Linger: *linger,
		Report: 5 * time.Second, Client: udpdrive.DefaultClientConfig()}
	cfg.Client.Conn = conn
	bridge.Call("status", fmt.Sprintf("playing %s (bot: %v)", m.Name, *bot))
	st.Set("state", "playing")
	s, err := match.Play(context.Background(), cfg)
	var out strings.Builder
	s.Print(&out)
	// The carrier's part: the server's packets too large for one of the
	// browser's datagrams came in fragments, as did the tab's.
	// The browser's refusals of the tab's datagrams are the bridge's count.
	f := conn.Fragments()
	fmt.Fprintf(&out, "carrier  %d dropped, %d sends failed; fragments: %d packets reassembled of %d, %d dropped, %d packets lost; %d packets sent in %d\n",
		conn.Dropped(), bridge.Get("sendErrors").Int(), f.PacketsReassembled, f.FragmentsIn, f.FragmentsDropped, f.PacketsLost, f.PacketsSplit, f.FragmentsSent)
	st.Set("summary", out.String())
	bridge.Call("status", out.String())
	st.Set("state", "done")
	return err
}
