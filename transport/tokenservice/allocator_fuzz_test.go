package tokenservice

import "testing"

// FuzzDecodeAllocation: any answer of the allocator reads or fails, never
// panics, and what reads names a valid address with a port.
func FuzzDecodeAllocation(f *testing.F) {
	f.Add([]byte(`{"status":{"state":"Allocated","gameServerName":"gs","address":"192.0.2.1","ports":[{"name":"default","port":7001}]}}`), false)
	f.Add([]byte(`{"gameServerName":"gs-1","ports":[{"name":"default","port":7001}],"address":"192.0.2.1"}`), true)
	f.Fuzz(func(t *testing.T, b []byte, service bool) {
		a := &Allocator{}
		if service {
			a.API = AllocatorService
		}
		al, err := a.decodeAllocation(b)
		if err != nil {
			return
		}
		if !al.Address.IsValid() || al.Address.Port() == 0 {
			t.Fatalf("decoded %+v from %q", al, b)
		}
	})
}
