package reliable

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

// t0 is the virtual epoch of the tests.
var t0 = time.Unix(1_700_000_000, 0)

func newEndpoint(t testing.TB, cfg Config) *Endpoint {
	t.Helper()
	e, err := NewEndpoint(cfg, t0)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestTransmitVectors sends the reference's packets (10, 1024, 1025 and
// 3000 bytes counting up) from a default endpoint and compares every
// datagram with what reliable.c transmitted.
func TestTransmitVectors(t *testing.T) {
	_, txs := loadVectors(t)
	e := newEndpoint(t, DefaultConfig())
	var got []txVector
	for _, n := range []int{10, 1024, 1025, 3000} {
		seq, dgs, err := e.SendPacket(t0, testPayload(n))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range dgs {
			got = append(got, txVector{seq: seq, size: len(d), prefix: bytes.Clone(d)})
		}
	}
	if len(got) != len(txs) {
		t.Fatalf("sent %d datagrams, reference sent %d", len(got), len(txs))
	}
	for i, want := range txs {
		g := got[i]
		if g.seq != want.seq || g.size != want.size || !bytes.HasPrefix(g.prefix, want.prefix) {
			t.Errorf("datagram %d: seq %d, %d bytes, %x...; want seq %d, %d bytes, %x...",
				i, g.seq, g.size, g.prefix[:min(len(g.prefix), 24)], want.seq, want.size, want.prefix)
		}
		if want.complete && len(want.prefix) != want.size {
			t.Errorf("vector %d: complete hex of %d bytes, size %d", i, len(want.prefix), want.size)
		}
	}
	if c := e.Counters(); c.PacketsSent != 4 || c.FragmentsSent != 5 {
		t.Errorf("counters %+v, want 4 packets and 5 fragments sent", c)
	}
}

// TestReceiveReassemblesOutOfOrder delivers a packet's fragments last
// first and checks that the payload comes out whole, once.
func TestReceiveReassemblesOutOfOrder(t *testing.T) {
	a, b := newEndpoint(t, DefaultConfig()), newEndpoint(t, DefaultConfig())
	_, dgs, err := a.SendPacket(t0, testPayload(3000))
	if err != nil {
		t.Fatal(err)
	}
	frags := [][]byte{bytes.Clone(dgs[2]), bytes.Clone(dgs[0]), bytes.Clone(dgs[1])}
	for i, d := range frags {
		seq, payload, err := b.ReceivePacket(t0, d)
		if err != nil {
			t.Fatalf("fragment %d: %v", i, err)
		}
		if i < 2 && payload != nil {
			t.Fatalf("payload delivered after %d of 3 fragments", i+1)
		}
		if i == 2 && (seq != 0 || !bytes.Equal(payload, testPayload(3000))) {
			t.Fatalf("reassembled seq %d, %d bytes; want seq 0, the 3000-byte payload", seq, len(payload))
		}
	}
	// A fragment of the packet once it is whole is a duplicate.
	if _, _, err := b.ReceivePacket(t0, frags[0]); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("fragment of a received packet: err = %v, want ErrDuplicate", err)
	}
	c := b.Counters()
	if c.FragmentsReceived != 3 || c.PacketsReceived != 1 || c.FragmentsDuplicate != 1 {
		t.Fatalf("counters %+v", c)
	}
}

func TestReceiveDropsDuplicateAndStale(t *testing.T) {
	a, b := newEndpoint(t, DefaultConfig()), newEndpoint(t, DefaultConfig())
	var first []byte
	for i := range 300 {
		_, dgs, _ := a.SendPacket(t0, []byte{byte(i)})
		if i == 0 {
			first = bytes.Clone(dgs[0])
		}
		if _, _, err := b.ReceivePacket(t0, dgs[0]); err != nil {
			t.Fatal(err)
		}
		if i == 299 {
			if _, _, err := b.ReceivePacket(t0, dgs[0]); !errors.Is(err, ErrDuplicate) {
				t.Fatalf("repeat: err = %v, want ErrDuplicate", err)
			}
		}
	}
	// Sequence 0 is 300 behind: outside the 256-entry received window.
	if _, _, err := b.ReceivePacket(t0, first); !errors.Is(err, ErrStale) {
		t.Fatalf("old packet: err = %v, want ErrStale", err)
	}
	// Stale fragments too: a fragment of sequence 0 after sequence 299.
	_, dgs, _ := newEndpoint(t, DefaultConfig()).SendPacket(t0, testPayload(2000))
	if _, _, err := b.ReceivePacket(t0, dgs[1]); !errors.Is(err, ErrStale) {
		t.Fatalf("old fragment: err = %v, want ErrStale", err)
	}
	c := b.Counters()
	if c.PacketsDuplicate != 1 || c.PacketsStale != 1 || c.FragmentsStale != 1 {
		t.Fatalf("counters %+v", c)
	}
}

func TestSendTooLarge(t *testing.T) {
	e := newEndpoint(t, DefaultConfig())
	if _, _, err := e.SendPacket(t0, make([]byte, 16*1024+1)); !errors.Is(err, ErrPacketTooLarge) {
		t.Fatalf("err = %v, want ErrPacketTooLarge", err)
	}
	if e.NextSequence() != 0 || e.Counters().PacketsTooLargeToSend != 1 {
		t.Fatal("refused packet used a sequence or was not counted")
	}
	// The largest packet goes out as 16 full fragments.
	_, dgs, err := e.SendPacket(t0, make([]byte, 16*1024))
	if err != nil || len(dgs) != 16 {
		t.Fatalf("max-size packet: %d datagrams, %v", len(dgs), err)
	}
	r := newEndpoint(t, DefaultConfig())
	if _, _, err := r.ReceivePacket(t0, make([]byte, 16*1024+MaxHeaderSize+FragmentHeaderSize+1)); !errors.Is(err, ErrPacketTooLarge) {
		t.Fatalf("oversize datagram: err = %v", err)
	}
	if _, _, err := r.ReceivePacket(t0, append(AppendHeader(nil, Header{}), make([]byte, 16*1024+1)...)); !errors.Is(err, ErrPacketTooLarge) {
		t.Fatalf("oversize payload: err = %v", err)
	}
	if r.Counters().PacketsTooLargeToReceive != 2 {
		t.Fatalf("counters %+v", r.Counters())
	}
}

func TestConfigValidation(t *testing.T) {
	for _, mut := range []func(*Config){
		func(c *Config) { c.MaxFragments = 257 },
		func(c *Config) { c.FragmentSize = 1025 },
		func(c *Config) { c.MaxPacketSize = 17 * 1024 }, // needs 17 fragments
		func(c *Config) { c.AckBufferSize = 0 },
		func(c *Config) { c.SentPacketsBufferSize = 65536 },
		func(c *Config) { c.ReceivedPacketsBufferSize = 100 }, // not a power of two
	} {
		c := DefaultConfig()
		mut(&c)
		if _, err := NewEndpoint(c, t0); !errors.Is(err, ErrConfig) {
			t.Errorf("config %+v: err = %v, want ErrConfig", c, err)
		}
	}
	c := DefaultConfig()
	c.MaxFragments, c.MaxPacketSize = 256, 256*1024
	if _, err := NewEndpoint(c, t0); err != nil {
		t.Fatalf("256 fragments of 1024 bytes: %v", err)
	}
}

// TestMaliciousAcksIgnored: ack bits naming packets never sent, or
// carried by a packet that is then dropped, acknowledge nothing.
func TestMaliciousAcksIgnored(t *testing.T) {
	a := newEndpoint(t, DefaultConfig())
	for range 5 {
		a.SendPacket(t0, []byte{1})
	}
	// Acks for 100..69 (never sent) and, through wraparound, 65535..65504.
	for _, h := range []Header{
		{Sequence: 0, Ack: 100, AckBits: 0xFFFFFFFF},
		{Sequence: 1, Ack: 65535, AckBits: 0xFFFFFFFF},
	} {
		if _, _, err := a.ReceivePacket(t0, AppendHeader(nil, h)); err != nil {
			t.Fatal(err)
		}
	}
	if len(a.Acks()) != 0 {
		t.Fatalf("acks %v for packets never sent", a.Acks())
	}
	// A duplicate of an accepted packet may not carry new acks.
	if _, _, err := a.ReceivePacket(t0, AppendHeader(nil, Header{Sequence: 1, Ack: 4, AckBits: 0x1F})); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("err = %v, want ErrDuplicate", err)
	}
	if len(a.Acks()) != 0 {
		t.Fatalf("duplicate packet acked %v", a.Acks())
	}
	// A malformed one neither.
	bad := AppendHeader(nil, Header{Sequence: 2, Ack: 4, AckBits: 0x1F})
	bad[0] |= 0x80
	if _, _, err := a.ReceivePacket(t0, bad); !errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
	if len(a.Acks()) != 0 || a.Counters().PacketsInvalid != 1 {
		t.Fatalf("malformed packet acked %v, counters %+v", a.Acks(), a.Counters())
	}
	// A fragment whose count disagrees with its packet's other fragments.
	_, dgs, _ := newEndpoint(t, DefaultConfig()).SendPacket(t0, testPayload(3000))
	r := newEndpoint(t, DefaultConfig())
	r.ReceivePacket(t0, bytes.Clone(dgs[0]))
	mismatch := AppendFragment(nil, Fragment{Sequence: 0, ID: 1, Count: 4, Payload: make([]byte, 1024)})
	if _, _, err := r.ReceivePacket(t0, mismatch); !errors.Is(err, ErrFragmentMismatch) {
		t.Fatalf("err = %v, want ErrFragmentMismatch", err)
	}
	if _, _, err := r.ReceivePacket(t0, bytes.Clone(dgs[0])); !errors.Is(err, ErrDuplicateFragment) {
		t.Fatalf("err = %v, want ErrDuplicateFragment", err)
	}
	if c := r.Counters(); c.FragmentsInvalid != 1 || c.FragmentsDuplicate != 1 {
		t.Fatalf("counters %+v", c)
	}
}

// TestStatsSteadyState: a lossless link with a fixed one-way delay gives
// an RTT of twice that delay plus the 10 ms until the peer's next packet
// carries the ack, and no loss.
func TestStatsSteadyState(t *testing.T) {
	a, b := newEndpoint(t, DefaultConfig()), newEndpoint(t, DefaultConfig())
	const oneWay = 50 * time.Millisecond
	type inflight struct {
		at time.Time
		d  []byte
	}
	var ab, ba []inflight
	now := t0
	a.Update(now)
	if n := a.Stats().PacketLossSamples; n != 0 {
		t.Fatalf("%d loss samples before any packet", n)
	}
	for range 2000 {
		now = now.Add(10 * time.Millisecond)
		_, dgs, _ := a.SendPacket(now, make([]byte, 100))
		ab = append(ab, inflight{now.Add(oneWay), bytes.Clone(dgs[0])})
		_, dgs, _ = b.SendPacket(now, make([]byte, 100))
		ba = append(ba, inflight{now.Add(oneWay), bytes.Clone(dgs[0])})
		for len(ab) > 0 && !ab[0].at.After(now) {
			b.ReceivePacket(now, ab[0].d)
			ab = ab[1:]
		}
		for len(ba) > 0 && !ba[0].at.After(now) {
			a.ReceivePacket(now, ba[0].d)
			ba = ba[1:]
		}
		a.ClearAcks()
		b.ClearAcks()
		a.Update(now)
	}
	st := a.Stats()
	if st.RTT != 110*time.Millisecond || st.RTTMin != st.RTT || st.RTTMax != st.RTT {
		t.Fatalf("RTT %v (min %v max %v), want 110ms", st.RTT, st.RTTMin, st.RTTMax)
	}
	if st.PacketLoss > 0.01 || st.JitterMaxVsMin != 0 || st.PacketLossSamples == 0 {
		t.Fatalf("loss %.3f%% over %d samples, jitter %v on a perfect link", st.PacketLoss, st.PacketLossSamples, st.JitterMaxVsMin)
	}
	// 100 bytes + 4-byte header + 28 bytes IP/UDP every 10 ms = 105.6 kbps.
	if st.SentKbps < 100 || st.SentKbps > 112 {
		t.Fatalf("sent %.1f kbps, want about 105.6", st.SentKbps)
	}
}

func TestResetForgetsEverything(t *testing.T) {
	a, b := newEndpoint(t, DefaultConfig()), newEndpoint(t, DefaultConfig())
	_, dgs, _ := a.SendPacket(t0, []byte{1})
	b.ReceivePacket(t0, dgs[0])
	b.Reset(t0)
	if b.NextSequence() != 0 || b.Counters() != (Counters{}) {
		t.Fatal("Reset kept state")
	}
	if _, _, err := b.ReceivePacket(t0, dgs[0]); err != nil {
		t.Fatalf("packet after Reset: %v", err)
	}
}

func FuzzReceivePacket(f *testing.F) {
	addDatagramSeeds(f)
	f.Add(AppendHeader(nil, Header{Sequence: 3, Ack: 2, AckBits: 0xFFFFFFFF}))
	cfg := DefaultConfig()
	cfg.MaxFragments, cfg.MaxPacketSize = 4, 4096
	f.Fuzz(func(t *testing.T, d []byte) {
		e := newEndpoint(t, cfg)
		sent := map[Sequence]bool{}
		for range 3 {
			seq, _, _ := e.SendPacket(t0, []byte{1})
			sent[seq] = true
		}
		// Feed the datagram, then its halves, as separate datagrams.
		for i, in := range [][]byte{d, d[:len(d)/2], d[len(d)/2:], d} {
			seq, payload, err := e.ReceivePacket(t0, in)
			if err != nil && payload != nil {
				t.Fatal("payload with an error")
			}
			if len(payload) > cfg.MaxPacketSize {
				t.Fatalf("delivered %d bytes, above MaxPacketSize", len(payload))
			}
			// A regular packet delivered is its header and its payload:
			// re-encoding them gives the datagram back.
			if payload != nil && in[0]&prefixFragment == 0 {
				h, _, err := ParseHeader(in)
				if err != nil || h.Sequence != seq || !bytes.Equal(append(AppendHeader(nil, h), payload...), in) {
					t.Fatalf("feed %d: delivered %d %x from %x", i, seq, payload, in)
				}
			}
		}
		seen := map[Sequence]bool{}
		for _, s := range e.Acks() {
			if !sent[s] || seen[s] {
				t.Fatalf("ack %d: sent %v, seen %v", s, sent[s], seen[s])
			}
			seen[s] = true
		}
		if c := e.Counters(); c.PacketsAcked != uint64(len(e.Acks())) {
			t.Fatalf("counters %+v, %d acks", c, len(e.Acks()))
		}
	})
}
