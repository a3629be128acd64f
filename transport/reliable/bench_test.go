package reliable

import (
	"testing"
	"time"
)

// BenchmarkSendPacket: stamping a 100-byte payload with a header.
func BenchmarkSendPacket(b *testing.B) {
	e := newEndpoint(b, DefaultConfig())
	payload := make([]byte, 100)
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		e.SendPacket(t0, payload)
	}
}

// BenchmarkReceivePacket: parsing a 100-byte packet, the duplicate
// check, and walking its 32 ack bits against a full sent-packets buffer
// (after the first pass, the packets they name are already acked).
func BenchmarkReceivePacket(b *testing.B) {
	a, r := newEndpoint(b, DefaultConfig()), newEndpoint(b, DefaultConfig())
	for range 256 {
		r.SendPacket(t0, []byte{1})
	}
	pkts := make([][]byte, 1024)
	for i := range pkts {
		_, dgs, _ := a.SendPacket(t0, make([]byte, 100))
		pkts[i] = append([]byte(nil), dgs[0]...)
	}
	b.SetBytes(100)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == len(pkts) {
			b.StopTimer()
			r.received.reset()
			i = 0
			b.StartTimer()
		}
		r.ReceivePacket(t0, pkts[i])
		r.ClearAcks()
		i++
	}
}

// BenchmarkFragmentedRoundTrip: a 16 KiB packet split into 16 fragments
// and reassembled.
func BenchmarkFragmentedRoundTrip(b *testing.B) {
	a, r := newEndpoint(b, DefaultConfig()), newEndpoint(b, DefaultConfig())
	payload := make([]byte, 16*1024)
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	now := t0
	for b.Loop() {
		now = now.Add(time.Millisecond)
		_, dgs, _ := a.SendPacket(now, payload)
		for _, d := range dgs {
			r.ReceivePacket(now, d)
		}
	}
	if c := r.Counters(); c.PacketsReceived == 0 || c.FragmentsInvalid != 0 {
		b.Fatalf("counters %+v", c)
	}
}

// BenchmarkUpdate: recomputing Stats over full buffers.
func BenchmarkUpdate(b *testing.B) {
	e := newEndpoint(b, DefaultConfig())
	now := t0
	for range 1000 {
		now = now.Add(time.Millisecond)
		e.SendPacket(now, []byte{1})
	}
	b.ReportAllocs()
	for b.Loop() {
		e.Update(now)
	}
}
