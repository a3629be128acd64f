package proxy

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netsim"
)

// echoServer answers every datagram with "echo:" and the datagram, until
// the test ends.
func echoServer(t *testing.T) *net.UDPConn {
	t.Helper()
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := conn.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			conn.WriteToUDPAddrPort(append([]byte("echo:"), buf[:n]...), from)
		}
	}()
	return conn
}

// startProxy runs a proxy in front of server until the test ends.
func startProxy(t *testing.T, server *net.UDPConn, cfg Config) *Proxy {
	t.Helper()
	cfg.Listen, cfg.Forward = "127.0.0.1:0", server.LocalAddr().String()
	p, err := Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("Run did not return after cancel")
		}
	})
	return p
}

func dialProxy(t *testing.T, p *Proxy) *net.UDPConn {
	t.Helper()
	c, err := net.DialUDP("udp4", nil, net.UDPAddrFromAddrPort(p.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestProxyRelaysBothWays(t *testing.T) {
	const latency = 20 * time.Millisecond
	p := startProxy(t, echoServer(t), Config{Seed: 1, Conditions: netsim.Conditions{Latency: latency}})
	const clients, packets = 3, 5
	for c := range clients {
		conn := dialProxy(t, p)
		for i := range packets {
			msg := fmt.Sprintf("client %d packet %d", c, i)
			start := time.Now()
			if _, err := conn.Write([]byte(msg)); err != nil {
				t.Fatal(err)
			}
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			buf := make([]byte, 2048)
			n, err := conn.Read(buf)
			if err != nil {
				t.Fatalf("%s: %v", msg, err)
			}
			if got := string(buf[:n]); got != "echo:"+msg {
				t.Fatalf("got %q, want %q", got, "echo:"+msg)
			}
			// The simulator never delivers early: there and back is at
			// least twice the latency.
			if rtt := time.Since(start); rtt < 2*latency {
				t.Fatalf("round trip %v, below 2x%v", rtt, latency)
			}
		}
	}
	c := p.Counters()
	if c.Clients != clients || c.Sent != 2*clients*packets || c.Delivered != 2*clients*packets {
		t.Fatalf("counters %+v", c)
	}
}

func TestProxyAppliesLoss(t *testing.T) {
	p := startProxy(t, echoServer(t), Config{Conditions: netsim.Conditions{Loss: 1}})
	conn := dialProxy(t, p)
	for range 5 {
		conn.Write([]byte("lost"))
	}
	conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if n, err := conn.Read(make([]byte, 64)); err == nil {
		t.Fatalf("received %d bytes through a link that loses everything", n)
	}
	// Counting happens as the proxy reads; wait for it to have read all five.
	deadline := time.Now().Add(10 * time.Second)
	for p.Counters().Lost < 5 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if c := p.Counters(); c.Lost != 5 || c.Delivered != 0 {
		t.Fatalf("counters %+v, want 5 lost", c)
	}
}

func TestProxyClosesIdleClients(t *testing.T) {
	p := startProxy(t, echoServer(t), Config{IdleTimeout: 50 * time.Millisecond, MaxClients: 1})
	a, b := dialProxy(t, p), dialProxy(t, p)
	a.Write([]byte("hi"))
	a.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := a.Read(make([]byte, 64)); err != nil {
		t.Fatal(err)
	}
	// A second client is refused while the first holds the only slot...
	b.Write([]byte("refused"))
	deadline := time.Now().Add(10 * time.Second)
	for p.Counters().Refused == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if p.Counters().Refused != 1 {
		t.Fatalf("counters %+v, want 1 refused", p.Counters())
	}
	// ...and served once the first has gone idle.
	for p.Counters().Clients != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	p.mu.Lock()
	links := p.sim.Links()
	p.mu.Unlock()
	if links != 0 {
		t.Fatalf("%d simulator links left after the only client went idle", links)
	}
	b.Write([]byte("served"))
	b.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 64)
	n, err := b.Read(buf)
	if err != nil || string(buf[:n]) != "echo:served" {
		t.Fatalf("after idle close: %q, %v", buf[:n], err)
	}
}
