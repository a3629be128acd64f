package netcode

import "testing"

// Payload sizes of the benchmarks: a typical snapshot packet and the largest.
var benchPayloads = []struct {
	name string
	size int
}{{"100B", 100}, {"1200B", MaxPayloadBytes}}

// BenchmarkPayloadSeal measures building and encrypting payload packets on
// one core: packets per second is 1e9 / ns/op.
func BenchmarkPayloadSeal(b *testing.B) {
	for _, p := range benchPayloads {
		b.Run(p.name, func(b *testing.B) {
			k := NewPacketKey(testProtocol, &Key{1})
			payload := make([]byte, p.size)
			buf := make([]byte, 0, MaxPacketBytes)
			b.SetBytes(int64(p.size))
			b.ReportAllocs()
			seq := Sequence(0)
			for b.Loop() {
				if _, err := k.Seal(buf, PacketPayload, seq, payload); err != nil {
					b.Fatal(err)
				}
				seq++
			}
		})
	}
}

// BenchmarkPayloadOpen measures parsing and decrypting payload packets on
// one core, as the receive path does.
func BenchmarkPayloadOpen(b *testing.B) {
	for _, p := range benchPayloads {
		b.Run(p.name, func(b *testing.B) {
			k := NewPacketKey(testProtocol, &Key{1})
			sealed, _ := k.Seal(nil, PacketPayload, 12345, make([]byte, p.size))
			pkt := make([]byte, len(sealed))
			b.SetBytes(int64(p.size))
			b.ReportAllocs()
			for b.Loop() {
				copy(pkt, sealed) // Open decrypts in place
				h, err := ParseHeader(pkt)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := k.Open(pkt, h); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkServerReceivePayload measures the server's whole receive path
// for a 100-byte payload from a connected client: address lookup, header,
// replay window, decryption, queueing, and ReceivePayload's copy.
func BenchmarkServerReceivePayload(b *testing.B) {
	h := newHarness(b, 4)
	c := h.addClient(h.token(1, 5))
	h.connectAll()
	const ring = 1024
	packets := make([][]byte, ring)
	for i := range packets {
		if err := c.SendPayload(h.now, make([]byte, 100)); err != nil {
			b.Fatal(err)
		}
		packets[i] = append([]byte(nil), c.Send()[0].Data...)
	}
	pkt := make([]byte, MaxPacketBytes)
	b.SetBytes(100)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == ring {
			// Reuse the packets: forget their sequences.
			h.server.clients[0].replay = ReplayProtection{}
			i = 0
		}
		n := copy(pkt, packets[i])
		h.server.Receive(h.now, h.addrs[0], pkt[:n])
		if _, ok := h.server.ReceivePayload(0); !ok {
			b.Fatal("payload not delivered")
		}
		i++
	}
}
