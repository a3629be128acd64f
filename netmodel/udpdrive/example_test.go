package udpdrive_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/wire"
)

// press is the input of the example's game: a button, up or down.
type press struct{ Down bool }

func (p *press) Serialize(s wire.Stream) error { return wire.SerializeBool(s, &p.Down) }

// presses is the example's game: it counts each player's presses.
type presses struct {
	ticks int
	count [2]int
	sumAt uint64 // the checksum after tick checkAt
}

const checkAt = 60 // one second at 60 Hz

func (g *presses) Step(in []press) {
	for p := range in {
		if in[p].Down {
			g.count[p]++
		}
	}
	g.ticks++
	if g.ticks == checkAt+1 { // lockstep tick n is the n+1-th Step
		g.sumAt = g.Checksum()
	}
}

func (g *presses) Checksum() uint64 {
	return uint64(g.ticks)<<40 | uint64(g.count[0])<<20 | uint64(g.count[1])
}
func (g *presses) Save(int) {} // pure lockstep: never called
func (g *presses) Load(int) {}

// A lockstep server and two players over real UDP on loopback, in one
// process: netcode connect tokens signed with the server's private key,
// one Run stepping every side each frame, and a clean shutdown (the
// players disconnect, the server sees them leave, then closes). The
// demo (`netphys demo`) does the same; `netphys serve` and `netphys play`
// run each side in a process of its own.
func Example() {
	quiet := slog.New(slog.DiscardHandler) // drop this line to see the drivers' logs
	cfg := lockstep.DefaultConfig()
	cfg.Players = 2

	// The server: a lockstep relay behind a netcode server on a UDP port.
	var key netcode.Key // shared with whatever issues the tokens
	if _, err := rand.Read(key[:]); err != nil {
		panic(err)
	}
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		panic(err)
	}
	relay, err := lockstep.NewServer[press](cfg, time.Now())
	if err != nil {
		panic(err)
	}
	scfg := udpdrive.DefaultServerConfig()
	scfg.Logger = quiet
	scfg.Transport.Netcode.PrivateKey = key
	scfg.Transport.Netcode.MaxClients = cfg.Players
	srv, err := udpdrive.NewServer(relay, conn, scfg) // srv owns conn now
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	// A connect token per player, as a game backend would issue them
	// (transport/tokenservice serves them over HTTP).
	token := func(id uint64) *netcode.ConnectToken {
		p := netcode.DefaultTokenParams()
		p.ClientID = netcode.ClientID(id)
		p.ServerAddresses = []netip.AddrPort{srv.Transport().Addr()}
		tok, err := netcode.GenerateConnectToken(&p, time.Now(), &key, nil)
		if err != nil {
			panic(err)
		}
		return tok
	}

	// The players: each dials with its token, and its lockstep client is
	// built once netcode has given it a slot.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var games [2]*presses
	var players [2]*udpdrive.Client
	for i := range players {
		ccfg := udpdrive.DefaultClientConfig()
		ccfg.Logger = quiet
		players[i], err = udpdrive.Dial(ctx, token(uint64(100+i)), func(slot int) (netmodel.Client, error) {
			games[i] = &presses{}
			keys := func(t lockstep.Tick, _ *lockstep.View) press { return press{Down: int(t)%(3+i) == 0} }
			return lockstep.NewClient[press](cfg, games[i], keys, time.Now())
		}, ccfg)
		if err != nil {
			panic(err)
		}
	}

	// Play until both players are past the tick they compare. after runs
	// on Run's goroutine between frames: the place to read the games.
	err = udpdrive.Run(ctx, udpdrive.DefaultFrame, func(time.Time) (bool, error) {
		return games[0].ticks > checkAt && games[1].ticks > checkAt, nil
	}, srv, players[0], players[1])
	if err != nil || ctx.Err() != nil {
		panic(fmt.Sprint("the match did not get to its tick: ", err, ctx.Err()))
	}
	fmt.Println("checksums agree:", games[0].sumAt == games[1].sumAt)

	// Shut down: the players send netcode's disconnect, and the server
	// steps until its model has seen both leave.
	for _, p := range players {
		if err := p.Close(); err != nil {
			panic(err)
		}
	}
	err = udpdrive.Run(ctx, udpdrive.DefaultFrame, func(time.Time) (bool, error) {
		return !srv.Joined(players[0].Slot()) && !srv.Joined(players[1].Slot()), nil
	}, srv)
	fmt.Println("both left:", err == nil && ctx.Err() == nil)
	fmt.Println("server closed:", srv.Close())
	// Output:
	// checksums agree: true
	// both left: true
	// server closed: <nil>
}
