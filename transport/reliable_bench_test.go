package transport

import (
	"context"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/reliable"
)

// BenchmarkReliableNetcodeRoundTrip measures the whole stack over UDP on
// 127.0.0.1: a client stamps a payload with a reliable.io header
// (fragmenting it above 1024 bytes), netcode encrypts and sends it, the
// server decrypts it, reassembles and parses it, and answers with a
// packet of the same size that carries the acks back. One op is one
// round trip; acks/op shows every packet gets acked.
//
//	go test -run '^$' -bench ReliableNetcode ./transport/
func BenchmarkReliableNetcodeRoundTrip(b *testing.B) {
	for _, bc := range []struct {
		name string
		size int
	}{{"100B", 100}, {"4KiB", 4096}} {
		b.Run(bc.name, func(b *testing.B) { benchRoundTrip(b, bc.size) })
	}
}

func benchRoundTrip(b *testing.B, size int) {
	var (
		mu      sync.Mutex // guards the endpoints and srv
		srvEnd  = benchEndpoint(b)
		cliEnd  = benchEndpoint(b)
		srv     *Server
		replies = make(chan struct{}, 1)
		acked   int
	)
	cfg := DefaultServerConfig()
	cfg.Logger = e2eQuiet
	cfg.Netcode.ProtocolID = e2eProtocol
	cfg.Netcode.PrivateKey = e2eKey
	cfg.Netcode.MaxClients = 1
	cfg.OnPayload = func(i netcode.ClientIndex, d []byte) {
		mu.Lock()
		_, payload, err := srvEnd.ReceivePacket(time.Now(), d)
		if err != nil || payload == nil {
			mu.Unlock()
			return
		}
		srvEnd.ClearAcks()
		_, dgs, err := srvEnd.SendPacket(time.Now(), payload)
		if err != nil {
			mu.Unlock()
			b.Error(err)
			return
		}
		out, s := cloneDatagrams(dgs), srv
		mu.Unlock()
		for _, d := range out {
			s.SendPayload(i, d)
		}
	}
	mu.Lock()
	srv, err := ListenServer("127.0.0.1:0", cfg)
	mu.Unlock()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()

	p := netcode.DefaultTokenParams()
	p.ProtocolID = e2eProtocol
	p.ClientID = 1
	p.ServerAddresses = []netip.AddrPort{srv.Addr()}
	tok, err := netcode.GenerateConnectToken(&p, time.Now(), &e2eKey, nil)
	if err != nil {
		b.Fatal(err)
	}
	ccfg := DefaultClientConfig()
	ccfg.Logger = e2eQuiet
	ccfg.OnPayload = func(d []byte) {
		mu.Lock()
		_, payload, _ := cliEnd.ReceivePacket(time.Now(), d)
		acked += len(cliEnd.Acks())
		cliEnd.ClearAcks()
		mu.Unlock()
		if payload != nil {
			select {
			case replies <- struct{}{}:
			default:
			}
		}
	}
	c, err := Dial(tok, ccfg)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.WaitConnected(ctx); err != nil {
		b.Fatal(err)
	}

	payload := make([]byte, size)
	b.SetBytes(int64(size))
	b.ResetTimer()
	for range b.N {
		// Loopback may still drop a datagram under load: resend after 1 s.
		for {
			mu.Lock()
			_, dgs, err := cliEnd.SendPacket(time.Now(), payload)
			out := cloneDatagrams(dgs)
			mu.Unlock()
			if err != nil {
				b.Fatal(err)
			}
			for _, d := range out {
				if err := c.SendPayload(d); err != nil {
					b.Fatal(err)
				}
			}
			select {
			case <-replies:
			case <-time.After(time.Second):
				continue
			}
			break
		}
	}
	b.StopTimer()
	mu.Lock()
	b.ReportMetric(float64(acked)/float64(b.N), "acks/op")
	mu.Unlock()
}

func benchEndpoint(b *testing.B) *reliable.Endpoint {
	e, err := reliable.NewEndpoint(reliable.DefaultConfig(), time.Now())
	if err != nil {
		b.Fatal(err)
	}
	return e
}
