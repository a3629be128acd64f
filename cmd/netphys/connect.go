package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
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

// echoHeaderBytes starts every test payload: sequence, then send time in
// nanoseconds since the client started (monotonic).
const echoHeaderBytes = 16

// echoStats gathers the echoes the client receives.
type echoStats struct {
	mu    sync.Mutex
	start time.Time
	rtts  []time.Duration
	seen  map[uint64]bool
	bad   int // payloads that are not our echoes
}

func (e *echoStats) receive(b []byte) {
	now := time.Since(e.start)
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(b) < echoHeaderBytes {
		e.bad++
		return
	}
	seq := binary.LittleEndian.Uint64(b)
	if e.seen[seq] {
		return
	}
	e.seen[seq] = true
	e.rtts = append(e.rtts, now-time.Duration(binary.LittleEndian.Uint64(b[8:])))
}

func (e *echoStats) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.rtts)
}

func setupConnect(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
	tokenText := fs.String("token", "", "connect token, base64 or hex (from netphys token)")
	tokenFile := fs.String("token-file", "", "file holding the connect token (base64, hex or 2048 raw bytes)")
	count := fs.Int("count", 100, "payloads to send for the echo test (0: just connect)")
	size := fs.Int("size", 64, "payload size in bytes, 16 to 1200")
	rate := fs.Float64("rate", 30, "payloads per second")
	wait := fs.Duration("wait", 2*time.Second, "how long to wait for the last echoes")
	connectTimeout := fs.Duration("connect-timeout", 10*time.Second, "give up connecting after this long")
	return func(ctx context.Context, args []string) error {
		var raw []byte
		switch {
		case *tokenText != "" && *tokenFile != "":
			return errors.New("give --token or --token-file, not both")
		case *tokenText != "":
			raw = []byte(*tokenText)
		case *tokenFile != "":
			b, err := os.ReadFile(*tokenFile)
			if err != nil {
				return err
			}
			raw = b
		default:
			return errors.New("give the connect token with --token or --token-file")
		}
		if *size < echoHeaderBytes || *size > netcode.MaxPayloadBytes {
			return fmt.Errorf("--size %d: want %d to %d", *size, echoHeaderBytes, netcode.MaxPayloadBytes)
		}
		if *rate <= 0 {
			return fmt.Errorf("--rate %v: want > 0", *rate)
		}
		tok, err := transport.DecodeToken(raw)
		if err != nil {
			return err
		}
		echoes := &echoStats{start: time.Now(), seen: map[uint64]bool{}}
		cfg := transport.DefaultClientConfig()
		cfg.OnPayload = echoes.receive
		started := time.Now()
		c, err := transport.Dial(tok, cfg)
		if err != nil {
			return err
		}
		defer c.Close()
		cctx, cancel := context.WithTimeout(ctx, *connectTimeout)
		err = c.WaitConnected(cctx)
		cancel()
		if err != nil {
			return err
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
			binary.LittleEndian.PutUint64(payload, uint64(sent))
			binary.LittleEndian.PutUint64(payload[8:], uint64(time.Since(echoes.start)))
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

// report prints the figures of the run.
func report(fs *flag.FlagSet, c *transport.Client, e *echoStats, connectTime time.Duration, sent int) error {
	w := stdoutOf(fs)
	e.mu.Lock()
	rtts := slices.Clone(e.rtts)
	bad := e.bad
	e.mu.Unlock()
	slices.Sort(rtts)
	cn := c.Counters()
	fmt.Fprintf(w, "handshake      %v\n", connectTime.Round(time.Microsecond))
	fmt.Fprintf(w, "payloads       sent %d, echoed %d, lost %d, foreign %d\n", sent, len(rtts), sent-len(rtts), bad)
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
