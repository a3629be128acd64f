package transport

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netcode"
)

// BenchmarkUDPEcho64Clients measures a server on loopback UDP with 64
// connected clients: each op is one 100-byte payload sent by a client,
// decrypted by the server, echoed, and decrypted by the client. Clients send
// concurrently, each with at most 8 payloads in flight. Reported: echoes/s
// (the whole system: server, 64 clients and the kernel share the machine's
// cores) and the fraction lost on loopback.
func BenchmarkUDPEcho64Clients(b *testing.B) {
	const clients = 64
	cfg := DefaultServerConfig()
	cfg.Netcode.ProtocolID = testProtocol
	cfg.Netcode.PrivateKey = testKey
	cfg.Netcode.MaxClients = clients
	cfg.Logger = quiet
	var srv *Server
	cfg.OnPayload = func(i netcode.ClientIndex, p []byte) { _ = srv.SendPayload(i, p) }
	srv, err := ListenServer("127.0.0.1:0", cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	echoed := make([]atomic.Int64, clients)
	cs := make([]*Client, clients)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := range cs {
		ccfg := DefaultClientConfig()
		ccfg.Logger = quiet
		ccfg.OnPayload = func([]byte) { echoed[i].Add(1) }
		c, err := Dial(testToken(b, srv.Addr(), uint64(i+1)), ccfg)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		cs[i] = c
	}
	for _, c := range cs {
		if err := c.WaitConnected(ctx); err != nil {
			b.Fatal(err)
		}
	}
	payload := make([]byte, 100)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	var lost atomic.Int64
	for i, c := range cs {
		n := b.N / clients
		if i < b.N%clients {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Keep at most window payloads in flight per client, so the
			// benchmark measures throughput rather than socket buffer
			// overflow; a payload not echoed within 100 ms counts as lost.
			const window = 8
			var sent, writtenOff int64
			for sent < int64(n) {
				stalled := time.Now()
				for sent-echoed[i].Load()-writtenOff >= window {
					if time.Since(stalled) > 100*time.Millisecond {
						writtenOff = sent - echoed[i].Load()
						break
					}
					time.Sleep(50 * time.Microsecond)
				}
				_ = c.SendPayload(payload)
				sent++
			}
			for deadline := time.Now().Add(100 * time.Millisecond); echoed[i].Load() < sent && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
			lost.Add(sent - echoed[i].Load())
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(int64(b.N)-lost.Load())/elapsed.Seconds(), "echoes/s")
	b.ReportMetric(float64(lost.Load())/float64(b.N), "lost")
}
