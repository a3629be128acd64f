package statesync

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/vecmath"
)

// TestHostileGuestOverUDP is TestHostileGuestIsOverruled over real UDP on
// loopback, through netcode with valid connect tokens: the hostile is a
// client like any other, whose packets are well formed and authenticated.
// Its teleport, mass-hold, version-wrap, set-down and clock-jump attacks (half a second each)
// are overruled and counted; the tower stands on the host, and the
// honest guests hold the host's bits once it rests.
func TestHostileGuestOverUDP(t *testing.T) {
	quiet := slog.New(slog.DiscardHandler)
	hg := newToyTower(0, hostileCubes, hostileTower)
	cfg := DefaultConfig()
	cfg.MaxImplausible = 0
	host, err := NewHost(cfg, hg)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	key := netcode.Key{9}
	scfg := udpdrive.DefaultServerConfig()
	scfg.Logger = quiet
	scfg.Transport.Netcode.PrivateKey = key
	scfg.Transport.Netcode.MaxClients = MaxPlayers - 1
	srv, err := udpdrive.NewServer(host, conn, scfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dial := func(id uint64, model func(slot int) (netmodel.Client, error)) *udpdrive.Client {
		p := netcode.DefaultTokenParams()
		p.ClientID = netcode.ClientID(id)
		p.ServerAddresses = []netip.AddrPort{srv.Transport().Addr()}
		tok, err := netcode.GenerateConnectToken(&p, time.Now(), &key, nil)
		if err != nil {
			t.Fatal(err)
		}
		ccfg := udpdrive.DefaultClientConfig()
		ccfg.Logger = quiet
		c, err := udpdrive.Dial(context.Background(), tok, model, ccfg)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	var honest []*toyGame
	sides := []udpdrive.Stepper{srv}
	for id := uint64(1); id <= 2; id++ {
		c := dial(id, func(slot int) (netmodel.Client, error) {
			g := newToyTower(Player(slot+1), hostileCubes, hostileTower)
			gcfg := DefaultConfig()
			gcfg.Player = Player(slot + 1)
			honest = append(honest, g)
			return NewGuest(gcfg, g, time.Now())
		})
		defer c.Close()
		sides = append(sides, c)
	}
	var x *hostile
	c := dial(3, func(slot int) (netmodel.Client, error) {
		if slot != 2 {
			return nil, fmt.Errorf("the hostile is guest 3, seated in slot %d", slot)
		}
		x = newHostile(t, time.Now())
		// In real time a loaded machine steps the guest's clock behind
		// the host's, and the host saves the difference (a second at
		// most) for its hands: the jump goes beyond what a full second
		// buys, so that it is judged the same however busy the machine.
		x.jump = toyShape().Speed*maxAvatarCredit + 5
		return x, nil
	})
	defer c.Close()
	sides = append(sides, c)

	run := func(d time.Duration) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		if err := udpdrive.Run(ctx, 0, nil, sides...); err != nil {
			t.Fatal(err)
		}
	}
	run(1500 * time.Millisecond)
	var tower [hostileTower]vecmath.Vec3
	for i := range tower {
		tower[i] = hg.Object(i).Position
	}
	for _, a := range []int{1, 3, 4, 5, 6} { // teleport, mass-hold, wrap, set down, clock jump
		before := attacks[a].counter(host.Counters())
		x.attack, x.frame = attacks[a].send, 0
		run(500 * time.Millisecond)
		if n := attacks[a].counter(host.Counters()) - before; n < max(attacks[a].want*3/4, 1) { // loopback may drop a datagram of the 160
			t.Errorf("%s: %d counted", attacks[a].name, n)
		}
	}
	x.attack, x.hand = nil, nil
	converged := func() bool {
		for i := range host.objs {
			for _, g := range honest {
				if g.Object(i) != hg.Object(i) || !hg.Object(i).AtRest {
					return false
				}
			}
		}
		return true
	}
	deadline := time.Now().Add(6 * time.Second)
	for !converged() {
		if time.Now().After(deadline) {
			t.Fatal("the honest guests do not hold the host's bits 6 s after the attacks")
		}
		run(100 * time.Millisecond)
	}
	for i, at := range tower {
		if d := hg.Object(i).Position.Sub(at).Length(); d > 0.05 {
			t.Errorf("tower cube %d moved %.2f m on the host", i, d)
		}
	}
	if host.Implausible(2) == 0 || host.Implausible(0) != 0 || host.Implausible(1) != 0 {
		t.Errorf("implausible claims by slot: %d %d %d", host.Implausible(0), host.Implausible(1), host.Implausible(2))
	}
	t.Logf("host counters: implausible %d, forged %d", host.Counters().Implausible, host.Counters().Forged)
}
