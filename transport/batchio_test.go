package transport

import (
	"fmt"
	"net"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netcode"
)

// TestDatagramIOBatches writes more datagrams than one batch holds, to two
// sockets, and reads them back in batches: every datagram arrives whole,
// in order, from the writer's address. The writer is an IPv4 socket and a
// dual-stack one (the address of "udp" on ":0"), whose IPv4 peers the
// kernel reports as IPv4-mapped.
func TestDatagramIOBatches(t *testing.T) {
	for _, bind := range []string{"127.0.0.1:0", ":0"} {
		t.Run(bind, func(t *testing.T) {
			wc, err := net.ListenUDP("udp", mustUDPAddr(t, bind))
			if err != nil {
				t.Skipf("no socket on %s: %v", bind, err)
			}
			defer wc.Close()
			w := newDatagramIO(wc, readBatchMax)
			if runtime.GOOS == "linux" && w.b == nil {
				t.Fatal("no batched reads and writes on Linux")
			}
			var readers [2]*datagramIO
			var dests [2]netip.AddrPort
			for k := range readers {
				rc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
				if err != nil {
					t.Fatal(err)
				}
				defer rc.Close()
				deepenBuffers(rc)
				readers[k] = newDatagramIO(rc, readBatchMax)
				dests[k] = rc.LocalAddr().(*net.UDPAddr).AddrPort()
			}
			const n = writeBatchMax + 37
			var dgs []netcode.Datagram
			for i := range n {
				dgs = append(dgs, netcode.Datagram{To: dests[i%2], Data: fmt.Appendf(nil, "datagram %d", i)})
			}
			w.write(dgs, quiet)
			wport := wc.LocalAddr().(*net.UDPAddr).AddrPort().Port()
			for k, r := range readers {
				if err := r.conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
					t.Fatal(err)
				}
				for next := k; next < n; {
					got, err := r.read()
					if err != nil {
						t.Fatalf("reader %d, waiting for datagram %d: %v", k, next, err)
					}
					for i, g := range r.got[:got] {
						if want := fmt.Sprintf("datagram %d", next); string(r.bufs[i][:g.n]) != want {
							t.Fatalf("reader %d read %q, want %q", k, r.bufs[i][:g.n], want)
						}
						if g.from.Addr().Unmap() != netip.AddrFrom4([4]byte{127, 0, 0, 1}) || g.from.Port() != wport {
							t.Fatalf("reader %d: datagram from %v, want 127.0.0.1:%d", k, g.from, wport)
						}
						next += 2
					}
				}
			}
		})
	}
}

func mustUDPAddr(t *testing.T, s string) *net.UDPAddr {
	t.Helper()
	a, err := net.ResolveUDPAddr("udp", s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
