package reliable_test

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/transport/reliable"
)

// TestAcksOverSimulatedNetwork runs two endpoints over the network
// simulator in virtual time, at 250 ms latency with jitter, 25 % loss,
// duplication and reordering, for a minute of 60 Hz traffic each way:
// every ack names a packet the peer delivered, each once; every packet
// delivered is acked once the network heals; duplicates are dropped.
func TestAcksOverSimulatedNetwork(t *testing.T) {
	client := netip.MustParseAddrPort("10.0.0.2:50000")
	server := netip.MustParseAddrPort("10.0.0.1:40000")
	bad := netsim.Conditions{
		Latency: 250 * time.Millisecond, Jitter: 30 * time.Millisecond, Loss: 0.25,
		Duplicate: 0.05, Reorder: 0.05, ReorderDelay: 50 * time.Millisecond,
	}
	sim, err := netsim.New(netsim.Config{Seed: 11, Conditions: bad})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Unix(0, 0)
	type peer struct {
		addr     netip.AddrPort
		e        *reliable.Endpoint
		carried  map[reliable.Sequence]uint64
		acked    map[uint64]bool
		arrived  map[uint64]bool
		next     uint64
		settled  uint64
		dupDrops int
	}
	mk := func(a netip.AddrPort) *peer {
		e, err := reliable.NewEndpoint(reliable.DefaultConfig(), start)
		if err != nil {
			t.Fatal(err)
		}
		return &peer{addr: a, e: e, carried: map[reliable.Sequence]uint64{}, acked: map[uint64]bool{}, arrived: map[uint64]bool{}}
	}
	peers := map[netip.AddrPort]*peer{client: mk(client), server: mk(server)}
	other := map[netip.AddrPort]netip.AddrPort{client: server, server: client}

	// Ticks of 1/60 s: a lossy minute, then two seconds healed.
	const tick = time.Second / 60
	const lossy, healed = 60 * 60, 2 * 60
	var lossyStats reliable.Stats
	now := start
	for step := range lossy + healed {
		now = now.Add(tick)
		if step == lossy {
			sim.SetConditions(netsim.Conditions{Latency: bad.Latency})
			lossyStats = peers[client].e.Stats()
		}
		if step == lossy+healed-60 {
			for _, p := range []*peer{peers[client], peers[server]} {
				p.settled = p.next
			}
		}
		for _, a := range []netip.AddrPort{client, server} {
			p := peers[a]
			payload := binary.LittleEndian.AppendUint64(nil, p.next)
			if p.next%10 == 9 {
				payload = append(payload, make([]byte, 2000)...) // two fragments
			}
			seq, dgs, err := p.e.SendPacket(now, payload)
			if err != nil {
				t.Fatal(err)
			}
			p.carried[seq] = p.next
			p.next++
			for _, d := range dgs {
				sim.Send(now, a, other[a], d)
			}
		}
		for _, pkt := range sim.Receive(now) {
			p, from := peers[pkt.To], peers[pkt.From]
			_, payload, err := p.e.ReceivePacket(now, pkt.Data)
			switch {
			case errors.Is(err, reliable.ErrDuplicate):
				p.dupDrops++
			case err != nil && !errors.Is(err, reliable.ErrStale):
				t.Fatalf("receive: %v", err)
			case payload != nil:
				n := binary.LittleEndian.Uint64(payload)
				if p.arrived[n] {
					t.Fatalf("packet %d delivered twice", n)
				}
				p.arrived[n] = true
			}
			for _, seq := range p.e.Acks() {
				n := p.carried[seq]
				if p.acked[n] || !from.arrived[n] {
					t.Fatalf("ack of packet %d: acked before %v, delivered %v", n, p.acked[n], from.arrived[n])
				}
				p.acked[n] = true
			}
			p.e.ClearAcks()
		}
		peers[client].e.Update(now)
	}
	for _, a := range []netip.AddrPort{client, server} {
		p, to := peers[a], peers[other[a]]
		delivered := 0
		if p.settled < 3000 {
			t.Fatalf("%v: %d packets settled", a, p.settled)
		}
		for n := range p.settled {
			if to.arrived[n] != p.acked[n] {
				t.Fatalf("%v packet %d: delivered %v, acked %v", a, n, to.arrived[n], p.acked[n])
			}
			if to.arrived[n] {
				delivered++
			}
		}
		// Datagrams are lost at 25 %; a fragmented packet (one in ten)
		// needs both of its fragments. Duplicates must have been dropped.
		if lost := 1 - float64(delivered)/float64(p.settled); lost < 0.2 || lost > 0.35 {
			t.Errorf("%v: %.3f of packets lost", a, lost)
		}
		t.Logf("%v: %d packets settled, %d delivered, %d duplicates dropped by the peer", a, p.settled, delivered, to.dupDrops)
		if to.dupDrops == 0 {
			t.Errorf("%v: no duplicate dropped at 5 %% duplication", other[a])
		}
	}
	// Estimates at the end of the lossy minute: RTT is twice the latency
	// plus up to a tick before the reply, jitter aside.
	if lossyStats.RTT < 450*time.Millisecond || lossyStats.RTT > 600*time.Millisecond ||
		lossyStats.PacketLoss < 15 || lossyStats.PacketLoss > 40 || lossyStats.SentKbps <= 0 {
		t.Errorf("client stats after the lossy minute: %+v", lossyStats)
	}
	t.Logf("client stats after the lossy minute: %+v", lossyStats)
}
