package netsim

import (
	"testing"
	"time"
)

// BenchmarkSimSendReceive: one 100-byte packet through every stage of a
// rough link (bandwidth queue, loss, jitter, duplication, reordering),
// with deliveries drained as they fall due.
func BenchmarkSimSendReceive(b *testing.B) {
	c := rough
	c.Bandwidth = 0 // an unlimited queue: no tail drop however fast the loop runs
	s := newSim(b, 1, c)
	data := make([]byte, 100)
	now := t0
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(100 * time.Microsecond)
		s.Send(now, alice, bob, data)
		s.Receive(now)
	}
}
