package lockstep

import (
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netsim"
)

// BenchmarkMatchMinute runs a minute of a 4-player session of the
// particle game at 250 ms RTT and 5 % loss, in virtual time: the cost of
// the model itself (coding, relaying, the playout buffer) per simulated
// minute, and the client datagrams' size.
func BenchmarkMatchMinute(b *testing.B) {
	for _, mode := range []struct {
		name string
		cfg  Config
	}{{"lockstep", DefaultConfig()}, {"rollback", DefaultRollbackConfig()}} {
		b.Run(mode.name, func(b *testing.B) {
			var bytes, packets uint64
			for b.Loop() {
				x := newMatch(b, mode.cfg, netsim.Conditions{Latency: 125 * time.Millisecond, Loss: 0.05}, 1)
				if err := x.m.Run(time.Minute); err != nil {
					b.Fatal(err)
				}
				s := x.clients[0].Stats()
				bytes, packets = bytes+s.BytesSent, packets+s.PacketsSent
			}
			b.ReportMetric(float64(bytes)/float64(packets), "bytes/packet")
		})
	}
}
