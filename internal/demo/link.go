package demo

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/transport/netsim/proxy"
	"github.com/netphys/netphys/transport/reliable"
)

// protocolID names the demo's traffic; a token for another game is refused.
const protocolID netcode.ProtocolID = 0x4f4d4544_53594850 // "PHYSDEMO"

// udpIPv4Header is what every datagram costs on the wire beyond its
// payload: 20 bytes of IPv4 and 8 of UDP. Bandwidth figures include it, as
// the articles' do.
const udpIPv4Header = 28

// maxMessageBytes is the largest message the demo sends: a netcode
// payload less the packet-ack header, so that a message is one datagram and
// a lost datagram loses only the bodies it carried.
const maxMessageBytes = netcode.MaxPayloadBytes - reliable.MaxHeaderSize

// inbox hands payloads from a driver's goroutine to the demo loop.
type inbox struct {
	mu sync.Mutex
	q  [][]byte
}

func (b *inbox) push(p []byte) {
	b.mu.Lock()
	b.q = append(b.q, append([]byte(nil), p...))
	b.mu.Unlock()
}

// drain returns everything queued and empties the queue.
func (b *inbox) drain() [][]byte {
	b.mu.Lock()
	q := b.q
	b.q = nil
	b.mu.Unlock()
	return q
}

// link is the demo's network: a netcode server on the authority side and a
// client on the remote side, on real UDP sockets on 127.0.0.1, with the
// network simulator's proxy between them and a reliable.io endpoint at
// each end for packet acks, RTT and loss.
type link struct {
	server *transport.Server
	client *transport.Client
	proxy  *proxy.Proxy

	clientIndex netcode.ClientIndex
	connected   chan netcode.ClientIndex

	fromClient, fromServer inbox
	serverEnd, clientEnd   *reliable.Endpoint

	stopProxy context.CancelFunc
	proxyDone chan error
}

// dialLink starts the server, the proxy and the client, issues the client a
// connect token and waits until it is connected.
func dialLink(ctx context.Context, cond netsim.Conditions, seed uint64, log *slog.Logger) (*link, error) {
	l := &link{connected: make(chan netcode.ClientIndex, 1)}
	serverConn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	serverAddr := serverConn.LocalAddr().(*net.UDPAddr).AddrPort()
	// The proxy forwards to the server, and clients see the proxy's
	// address as the server's: the token lists it and the server answers
	// to it.
	l.proxy, err = proxy.Listen(proxy.Config{
		Listen: "127.0.0.1:0", Forward: serverAddr.String(), Seed: seed, Conditions: cond,
	})
	if err != nil {
		serverConn.Close()
		return nil, err
	}
	proxyCtx, stop := context.WithCancel(context.Background())
	l.stopProxy, l.proxyDone = stop, make(chan error, 1)
	go func() { l.proxyDone <- l.proxy.Run(proxyCtx) }()

	var key netcode.Key
	if _, err := rand.Read(key[:]); err != nil {
		l.close()
		serverConn.Close()
		return nil, err
	}
	scfg := transport.DefaultServerConfig()
	scfg.Netcode.ProtocolID = protocolID
	scfg.Netcode.PrivateKey = key
	scfg.Netcode.PublicAddress = l.proxy.Addr()
	scfg.Netcode.MaxClients = 4
	scfg.Logger = log
	scfg.OnPayload = func(_ netcode.ClientIndex, p []byte) { l.fromClient.push(p) }
	scfg.OnConnect = func(i netcode.ClientIndex, _ netcode.ClientID, _ *netcode.UserData) {
		select {
		case l.connected <- i:
		default:
		}
	}
	if l.server, err = transport.NewServer(serverConn, scfg); err != nil {
		l.close()
		serverConn.Close()
		return nil, err
	}

	params := netcode.DefaultTokenParams()
	params.ProtocolID = protocolID
	params.ClientID = 1
	params.ServerAddresses = []netip.AddrPort{l.proxy.Addr()}
	token, err := netcode.GenerateConnectToken(&params, time.Now(), &key, nil)
	if err != nil {
		l.close()
		return nil, err
	}
	ccfg := transport.DefaultClientConfig()
	ccfg.Logger = log
	ccfg.OnPayload = l.fromServer.push
	if l.client, err = transport.Dial(token, ccfg); err != nil {
		l.close()
		return nil, err
	}
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := l.client.WaitConnected(waitCtx); err != nil {
		l.close()
		return nil, fmt.Errorf("demo: remote side could not connect: %w", err)
	}
	select {
	case l.clientIndex = <-l.connected:
	case <-waitCtx.Done():
		l.close()
		return nil, errors.New("demo: the server never saw the client connect")
	}
	now := time.Now()
	rcfg := reliable.DefaultConfig()
	rcfg.MaxPacketSize = maxMessageBytes
	rcfg.FragmentAbove = maxMessageBytes // every message fits one datagram: none is fragmented
	if l.serverEnd, err = reliable.NewEndpoint(rcfg, now); err != nil {
		l.close()
		return nil, err
	}
	if l.clientEnd, err = reliable.NewEndpoint(rcfg, now); err != nil {
		l.close()
		return nil, err
	}
	return l, nil
}

// sendToRemote sends one payload from the authority, stamped with packet
// acks.
func (l *link) sendToRemote(now time.Time, payload []byte) error {
	_, datagrams, err := l.serverEnd.SendPacket(now, payload)
	if err != nil {
		return err
	}
	for _, d := range datagrams {
		if err := l.server.SendPayload(l.clientIndex, d); err != nil {
			return err
		}
	}
	return nil
}

// sendToAuthority sends one payload from the remote side.
func (l *link) sendToAuthority(now time.Time, payload []byte) error {
	_, datagrams, err := l.clientEnd.SendPacket(now, payload)
	if err != nil {
		return err
	}
	for _, d := range datagrams {
		if err := l.client.SendPayload(d); err != nil {
			return err
		}
	}
	return nil
}

// receive runs every queued datagram of one side through its endpoint and
// hands each whole payload to deliver. Malformed datagrams are counted by
// the endpoint and dropped.
func receive(now time.Time, box *inbox, end *reliable.Endpoint, deliver func([]byte)) {
	for _, d := range box.drain() {
		if _, payload, err := end.ReceivePacket(now, d); err == nil && payload != nil {
			deliver(payload)
		}
	}
	end.ClearAcks() // plain state sync resends everything; acks only feed RTT and loss
	end.Update(now)
}

// traffic returns the bytes and packets each way so far, UDP/IP headers
// included: down is authority to remote.
func (l *link) traffic() (downBytes, upBytes, downPackets, upPackets uint64) {
	c := l.client.Counters()
	return c.BytesReceived + udpIPv4Header*c.PacketsReceived,
		c.BytesSent + udpIPv4Header*c.PacketsSent,
		c.PacketsReceived, c.PacketsSent
}

func (l *link) close() {
	if l.client != nil {
		l.client.Close()
	}
	if l.server != nil {
		l.server.Close()
	}
	if l.stopProxy != nil {
		l.stopProxy()
		<-l.proxyDone
	}
}
