package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/netcode"
)

func init() {
	register(&command{
		name:    "connect",
		summary: "connect to a netcode server with a token and run an echo test",
		setup:   setupConnect,
	})
}

// echoHeaderBytes starts every test payload: its sequence number, then its
// send time in nanoseconds since the client started (monotonic). The rest
// is a pattern of the sequence, so an echo can be told from a payload the
// server sent on its own.
const echoHeaderBytes = 16

// echoStats gathers the echoes the client receives.
type echoStats struct {
	mu    sync.Mutex
	start time.Time
	size  int
	sent  []time.Duration // send time of each payload, by sequence
	rtts  []time.Duration
	seen  map[uint64]bool
	dups  int // echoes received again
	bad   int // payloads that are not echoes of ours
	want  []byte
}

// payload fills b (size bytes) with payload seq, sent now, and records it.
func (e *echoStats) payload(b []byte, seq uint64) {
	at := time.Since(e.start)
	e.mu.Lock()
	e.sent = append(e.sent, at)
	e.mu.Unlock()
	fillEcho(b, seq, at)
}

func fillEcho(b []byte, seq uint64, at time.Duration) {
	binary.LittleEndian.PutUint64(b, seq)
	binary.LittleEndian.PutUint64(b[8:], uint64(at))
	for i := echoHeaderBytes; i < len(b); i++ {
		b[i] = byte(seq*31) + byte(i)
	}
}

// receive counts b as an echo if it is, byte for byte, a payload this
// client sent, and as foreign otherwise.
func (e *echoStats) receive(b []byte) {
	now := time.Since(e.start)
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(b) != e.size {
		e.bad++
		return
	}
	seq := binary.LittleEndian.Uint64(b)
	if seq >= uint64(len(e.sent)) {
		e.bad++
		return
	}
	e.want = append(e.want[:0], b...)
	fillEcho(e.want, seq, e.sent[seq])
	if !bytes.Equal(b, e.want) {
		e.bad++
		return
	}
	if e.seen[seq] {
		e.dups++
		return
	}
	e.seen[seq] = true
	e.rtts = append(e.rtts, now-e.sent[seq])
}

func (e *echoStats) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.rtts)
}

func setupConnect(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
	readToken := tokenFlags(fs)
	count := fs.Int("count", 100, "payloads to send for the echo test (0: just connect)")
	size := fs.Int("size", 64, "payload size in bytes, 16 to 1200")
	rate := fs.Float64("rate", 30, "payloads per second")
	wait := fs.Duration("wait", 2*time.Second, "how long to wait for the last echoes")
	connectTimeout := fs.Duration("connect-timeout", 0, "give up connecting after this long (0: when the token's timeout or expiry says so)")
	return func(ctx context.Context, args []string) error {
		if *size < echoHeaderBytes || *size > netcode.MaxPayloadBytes {
			return fmt.Errorf("--size %d: want %d to %d", *size, echoHeaderBytes, netcode.MaxPayloadBytes)
		}
		if *rate <= 0 {
			return fmt.Errorf("--rate %v: want > 0", *rate)
		}
		if *count < 0 {
			return fmt.Errorf("--count %d: want >= 0", *count)
		}
		tok, err := readToken()
		if err != nil {
			return err
		}
		echoes := &echoStats{start: time.Now(), size: *size, seen: map[uint64]bool{}}
		cfg := transport.DefaultClientConfig()
		cfg.OnPayload = echoes.receive
		started := time.Now()
		c, err := transport.Dial(tok, cfg)
		if err != nil {
			return err
		}
		defer c.Close()
		cctx, cancel := ctx, context.CancelFunc(func() {})
		if *connectTimeout > 0 {
			cctx, cancel = context.WithTimeout(ctx, *connectTimeout)
		}
		err = c.WaitConnected(cctx)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err() // interrupted
			}
			return explainConnectFailure(c.State(), tok, time.Since(started))
		}
		connectTime := time.Since(started)
		slog.Info("connected", "client_index", c.ClientIndex(), "handshake", connectTime.Round(time.Microsecond))

		payload := make([]byte, *size)
		tick := time.NewTicker(time.Duration(float64(time.Second) / *rate))
		defer tick.Stop()
		sent := 0
		for sent < *count {
			select {
			case <-ctx.Done():
				return report(fs, c, echoes, connectTime, sent)
			case <-tick.C:
			}
			echoes.payload(payload, uint64(sent))
			if err := c.SendPayload(payload); err != nil {
				if c.State() != netcode.StateConnected {
					// The connection ended (timeout, server disconnect):
					// print the figures and say why, not the send error.
					return report(fs, c, echoes, connectTime, sent)
				}
				return fmt.Errorf("payload %d: %w", sent, err)
			}
			sent++
		}
		deadline := time.After(*wait)
		for echoes.count() < sent {
			select {
			case <-ctx.Done():
				return report(fs, c, echoes, connectTime, sent)
			case <-deadline:
				return report(fs, c, echoes, connectTime, sent)
			case <-time.After(10 * time.Millisecond):
			}
		}
		return report(fs, c, echoes, connectTime, sent)
	}
}

// checkExpiry refuses a token already expired by this machine's clock: a
// server would ignore its requests without a word.
func checkExpiry(tok *netcode.ConnectToken, now time.Time) error {
	expire := time.Unix(int64(tok.ExpireTimestamp), 0)
	if now.Before(expire) {
		return nil
	}
	return fmt.Errorf("token expired at %v, %v ago by this machine's clock (tokens live %v; netphys token --expiry): issue a new one",
		expire.UTC().Format(time.DateTime+" MST"), now.Sub(expire).Round(time.Second),
		time.Duration(tok.ExpireTimestamp-tok.CreateTimestamp)*time.Second)
}

// explainConnectFailure turns the state a handshake ended in into what
// likely went wrong. A netcode server answers nothing to a token it
// refuses, so "no answer" is told apart only by probing the port.
func explainConnectFailure(st netcode.ClientState, tok *netcode.ConnectToken, waited time.Duration) error {
	servers := tok.ServerAddresses
	switch st {
	case netcode.StateDenied:
		return fmt.Errorf("the server refused the connection: it is full (every client slot taken)")
	case netcode.StateTokenExpired:
		return fmt.Errorf("the token expired (after %v) before the handshake completed: issue a new one, or a longer --expiry",
			time.Duration(tok.ExpireTimestamp-tok.CreateTimestamp)*time.Second)
	case netcode.StateInvalidToken:
		return fmt.Errorf("the token is invalid (its expiry is before its creation, or it lists no server)")
	case netcode.StateResponseTimedOut:
		return fmt.Errorf("the server at %v answered the connection request but not the challenge response within the token's %d s timeout: the link loses too much, or the server filled up meanwhile",
			servers[len(servers)-1], tok.TimeoutSeconds)
	}
	// Request timed out, or --connect-timeout passed while requesting.
	var closed, silent []string
	for _, a := range servers {
		if portClosed(a) {
			closed = append(closed, a.String())
		} else {
			silent = append(silent, a.String())
		}
	}
	if len(silent) == 0 {
		return fmt.Errorf("no answer from the server after %v: nothing listens at %s (is `netphys serve` running there?)",
			waited.Round(time.Second), strings.Join(closed, ", "))
	}
	return fmt.Errorf("the server at %s did not answer in %v. A netcode server ignores a token it refuses: "+
		"check that the token was made with the server's private key (--key or --key-file), "+
		"for its protocol id (the token's is %#x; serve --protocol-id), "+
		"listing the address the server was started as (serve --listen, or --public behind a proxy), "+
		"and that it has not expired by the server's clock",
		strings.Join(silent, ", "), waited.Round(time.Second), uint64(tok.ProtocolID))
}

// portClosed probes addr with one datagram a netcode server drops as
// malformed: a reachable host without a socket on that port answers with
// ICMP port unreachable, which a connected UDP socket reports as a
// refused read. A silent port (or a filtered one) gives false.
func portClosed(addr netip.AddrPort) bool {
	conn, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(addr))
	if err != nil {
		return false
	}
	defer conn.Close()
	if _, err := conn.Write([]byte{0xff}); err != nil {
		return errors.Is(err, syscall.ECONNREFUSED)
	}
	_ = conn.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	_, err = conn.Read(make([]byte, 64))
	return errors.Is(err, syscall.ECONNREFUSED)
}

// report prints the figures of the run.
func report(fs *flag.FlagSet, c *transport.Client, e *echoStats, connectTime time.Duration, sent int) error {
	w := stdoutOf(fs)
	e.mu.Lock()
	rtts := slices.Clone(e.rtts)
	bad, dups := e.bad, e.dups
	e.mu.Unlock()
	slices.Sort(rtts)
	cn := c.Counters()
	fmt.Fprintf(w, "handshake      %v\n", connectTime.Round(time.Microsecond))
	fmt.Fprintf(w, "payloads       sent %d, echoed %d, lost %d, duplicated %d, foreign %d\n", sent, len(rtts), sent-len(rtts), dups, bad)
	if n := len(rtts); n > 0 {
		var sum time.Duration
		for _, r := range rtts {
			sum += r
		}
		q := func(p float64) time.Duration { return rtts[min(n-1, int(p*float64(n)))].Round(time.Microsecond) }
		fmt.Fprintf(w, "round trip     min %v  p50 %v  p99 %v  max %v  mean %v\n",
			rtts[0].Round(time.Microsecond), q(0.5), q(0.99), rtts[n-1].Round(time.Microsecond), (sum / time.Duration(n)).Round(time.Microsecond))
	}
	fmt.Fprintf(w, "packets        out %d (%d bytes), in %d (%d bytes), dropped %d\n",
		cn.PacketsSent, cn.BytesSent, cn.PacketsReceived, cn.BytesReceived, cn.Dropped())
	if st := c.State(); st != netcode.StateConnected {
		return fmt.Errorf("connection ended: %v", st)
	}
	return nil
}
