package tcpsim

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/wire"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

var addrA, addrB = netip.MustParseAddrPort("10.0.0.1:1"), netip.MustParseAddrPort("10.0.0.2:2")

// pair is two connections over the simulator, each driven every frame.
type pair struct {
	sim      *netsim.Sim
	a, b     *Conn
	now      time.Time
	frame    time.Duration
	got      []byte // what b read, in order
	arrivals []time.Duration
}

func newPair(t *testing.T, cond netsim.Conditions, seed uint64) *pair {
	t.Helper()
	sim, err := netsim.New(netsim.Config{Seed: seed, Conditions: cond})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := New(DefaultConfig(), epoch)
	b, err := New(DefaultConfig(), epoch)
	if err != nil {
		t.Fatal(err)
	}
	return &pair{sim: sim, a: a, b: b, now: epoch, frame: time.Second / 60}
}

// step advances one frame: deliveries, then both sides' Update and Flush.
func (p *pair) step(t *testing.T) {
	p.now = p.now.Add(p.frame)
	for _, pk := range p.sim.Receive(p.now) {
		c := p.b
		if pk.To == addrA {
			c = p.a
		}
		if err := c.Receive(p.now, pk.Data); err != nil {
			t.Fatal(err)
		}
	}
	n := len(p.got)
	p.got = p.b.ReadAppend(p.got)
	for range len(p.got) - n {
		p.arrivals = append(p.arrivals, p.now.Sub(epoch))
	}
	for _, x := range []struct {
		c        *Conn
		from, to netip.AddrPort
	}{{p.a, addrA, addrB}, {p.b, addrB, addrA}} {
		x.c.Update(p.now)
		x.c.Flush(p.now, func(d []byte) { p.sim.Send(p.now, x.from, x.to, d) })
	}
}

func TestStreamArrivesWholeAndInOrderDespiteLoss(t *testing.T) {
	p := newPair(t, netsim.Conditions{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.2, Duplicate: 0.05}, 1)
	rng := rand.New(rand.NewPCG(1, 2))
	var want []byte
	for range 1200 {
		chunk := make([]byte, rng.IntN(50))
		for i := range chunk {
			chunk[i] = byte(rng.Uint32())
		}
		if err := p.a.Write(chunk); err == nil {
			want = append(want, chunk...)
		}
		p.step(t)
	}
	for range 60 * 60 {
		p.step(t)
	}
	if !bytes.Equal(p.got, want) {
		t.Fatalf("received %d bytes, sent %d; equal prefix: %v", len(p.got), len(want), bytes.HasPrefix(want, p.got))
	}
	s := p.a.Stats()
	if s.Retransmits == 0 || s.FastRetransmits == 0 || s.Timeouts == 0 {
		t.Fatalf("at 20 %% loss: %+v, want retransmissions of both kinds", s)
	}
	if p.a.Buffered() != 0 {
		t.Fatalf("%d bytes still unacknowledged", p.a.Buffered())
	}
}

// TestFastRetransmitAfterThreeDuplicateAcks drops one segment of a steady
// stream: the three segments after it bring three duplicate acks and the
// segment is sent again well before the 200 ms minimum timeout, while the
// bytes behind it wait in the receiver (head-of-line blocking).
func TestFastRetransmitAfterThreeDuplicateAcks(t *testing.T) {
	p := newPair(t, netsim.Conditions{Latency: 25 * time.Millisecond}, 1)
	for i := range 120 {
		_ = p.a.Write([]byte{byte(i)})
		p.step(t)
		if i == 60 {
			// Lose the next data segment a sends.
			if err := p.sim.SetLink(addrA, addrB, netsim.Conditions{Latency: 25 * time.Millisecond, Loss: 1}); err != nil {
				t.Fatal(err)
			}
		}
		if i == 61 {
			_ = p.sim.SetLink(addrA, addrB, netsim.Conditions{Latency: 25 * time.Millisecond})
		}
	}
	s := p.a.Stats()
	if s.FastRetransmits != 1 || s.Timeouts != 0 {
		t.Fatalf("stats %+v: want one fast retransmit and no timeout", s)
	}
	// Byte 62 (sent after the lost 61) waits for 61's retransmission.
	wait := p.arrivals[62] - 62*p.frame
	if wait < 80*time.Millisecond || wait > 200*time.Millisecond {
		t.Fatalf("byte 62 arrived %v after it was written, want the fast-retransmit wait (~RTT + 3 segments)", wait)
	}
	if p.arrivals[61] != p.arrivals[62] {
		t.Fatalf("bytes 61 and 62 arrived at %v and %v: 62 should wait for 61", p.arrivals[61], p.arrivals[62])
	}
}

// TestRetransmissionTimeoutBacksOff cuts the link: the timer fires after
// the RTO and then after twice, four times as long.
func TestRetransmissionTimeoutBacksOff(t *testing.T) {
	p := newPair(t, netsim.Conditions{Latency: 10 * time.Millisecond}, 1)
	for range 60 {
		_ = p.a.Write([]byte{1})
		p.step(t)
	}
	rto := p.a.Stats().RTO
	if rto != DefaultConfig().MinRTO {
		t.Fatalf("RTO %v on a steady 20 ms path, want the 200 ms floor", rto)
	}
	_ = p.sim.SetConditions(netsim.Conditions{Loss: 1})
	_ = p.a.Write([]byte{2})
	var fired []time.Duration
	start := p.now
	for range 60 * 5 {
		before := p.a.Stats().Timeouts
		p.step(t)
		if p.a.Stats().Timeouts > before {
			fired = append(fired, p.now.Sub(start))
		}
	}
	if len(fired) < 3 {
		t.Fatalf("timeouts at %v, want at least 3 in 5 s", fired)
	}
	for i := 1; i < 3; i++ {
		gap, prev := fired[i]-fired[i-1], rto<<i
		if gap < prev || gap > prev+2*p.frame {
			t.Fatalf("timeouts at %v: gap %d is %v, want %v (doubling)", fired, i, gap, prev)
		}
	}
}

func TestRTTEstimate(t *testing.T) {
	p := newPair(t, netsim.Conditions{Latency: 300 * time.Millisecond}, 1)
	for range 600 {
		_ = p.a.Write([]byte{1})
		p.step(t)
	}
	s := p.a.Stats()
	// Acks leave at the next frame: the RTT is 600 ms plus up to a frame.
	if s.SRTT < 600*time.Millisecond || s.SRTT > 600*time.Millisecond+2*p.frame {
		t.Fatalf("SRTT %v on a 600 ms path", s.SRTT)
	}
	if s.RTO < s.SRTT || s.RTO > s.SRTT+200*time.Millisecond {
		t.Fatalf("RTO %v with SRTT %v, RTTVAR %v", s.RTO, s.SRTT, s.RTTVar)
	}
}

func TestBadSegments(t *testing.T) {
	c, _ := New(DefaultConfig(), epoch)
	for _, d := range [][]byte{nil, {1, 2, 3}, AppendSegment(nil, Header{Ack: 5}, nil), make([]byte, MaxSegment+1)} {
		if err := c.Receive(epoch, d); !errors.Is(err, ErrSegment) {
			t.Errorf("Receive(%d bytes) = %v, want ErrSegment", len(d), err)
		}
	}
	if c.Stats().Invalid != 4 {
		t.Fatalf("Invalid = %d", c.Stats().Invalid)
	}
	if err := c.Write(make([]byte, DefaultConfig().SendBuffer+1)); !errors.Is(err, ErrBufferFull) {
		t.Fatalf("Write beyond the buffer: %v", err)
	}
}

func FuzzSegment(f *testing.F) {
	f.Add(AppendSegment(nil, Header{Seq: 7, Ack: 0}, []byte("input")))
	f.Add(AppendSegment(nil, Header{Seq: 1 << 31}, nil))
	f.Fuzz(func(t *testing.T, d []byte) {
		h, payload, err := ParseSegment(d, DefaultConfig().MSS)
		if err != nil {
			return
		}
		if again := AppendSegment(nil, h, payload); !bytes.Equal(again, d) {
			t.Fatalf("re-encoded %x, parsed from %x", again, d)
		}
		var m wire.Measurer
		_ = h.Serialize(&m)
		if m.Bytes() != HeaderSize {
			t.Fatalf("header measures %d bytes", m.Bytes())
		}
		c, _ := New(DefaultConfig(), epoch)
		_ = c.Receive(epoch, d) // never panics
	})
}

// TestTinySegmentsAreCharged sends one-byte segments with a hole before
// each: what the receiver holds out of order, bookkeeping included, stays
// within ReceiveBuffer, and the stream still completes once the holes are
// filled.
func TestTinySegmentsAreCharged(t *testing.T) {
	cfg := DefaultConfig()
	c, err := New(cfg, epoch)
	if err != nil {
		t.Fatal(err)
	}
	const n = 1 << 15
	for i := 1; i < n; i += 2 {
		_ = c.Receive(epoch, AppendSegment(nil, Header{Seq: uint32(i)}, []byte{byte(i)}))
	}
	if most := cfg.ReceiveBuffer / (1 + segmentCharge); len(c.ooo) > most || c.held() > cfg.ReceiveBuffer {
		t.Fatalf("%d segments held (%d bytes charged), want at most %d within %d", len(c.ooo), c.held(), most, cfg.ReceiveBuffer)
	}
	for i := 0; i < n; i++ {
		if err := c.Receive(epoch, AppendSegment(nil, Header{Seq: uint32(i)}, []byte{byte(i)})); err != nil {
			t.Fatal(err)
		}
	}
	got := c.ReadAppend(nil)
	if len(got) != n || len(c.ooo) != 0 {
		t.Fatalf("read %d bytes of %d, %d segments still held", len(got), n, len(c.ooo))
	}
	for i, b := range got {
		if b != byte(i) {
			t.Fatalf("byte %d is %d", i, b)
		}
	}
}
