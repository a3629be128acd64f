package netcode

import (
	"testing"
	"time"
)

// TestServerManyClients connects more clients than the standard's 256 to
// one server: each gets its own slot, the lowest free one, and the server
// finds every client by address and by id.
func TestServerManyClients(t *testing.T) {
	const n = 600
	h := newHarness(t, n)
	for id := range n {
		h.addClient(h.token(ClientID(id+1), 5))
	}
	h.connectAll()
	seen := make([]bool, n)
	for i, c := range h.clients {
		idx := c.ClientIndex()
		if idx < 0 || int(idx) >= n || seen[idx] {
			t.Fatalf("client %d has slot %d, taken or out of range", i, idx)
		}
		seen[idx] = true
		if c.MaxClients() != n {
			t.Fatalf("client %d was told %d slots, want %d", i, c.MaxClients(), n)
		}
		if got := h.server.ClientIndexOf(h.addrs[i]); got != idx {
			t.Fatalf("client %d at %v: the server finds slot %d, want %d", i, h.addrs[i], got, idx)
		}
		if got := h.server.findClientID(ClientID(i + 1)); got != idx {
			t.Fatalf("client id %d: the server finds slot %d, want %d", i+1, got, idx)
		}
	}
	if got := h.server.Stats().ClientsConnected; got != n {
		t.Fatalf("%d clients connected, want %d", got, n)
	}
	// Two leave; the next client takes the lower of their slots, the one
	// after it the other.
	a, b := h.clients[400], h.clients[300]
	low, high := min(a.ClientIndex(), b.ClientIndex()), max(a.ClientIndex(), b.ClientIndex())
	a.Disconnect(h.now)
	b.Disconnect(h.now)
	h.step(10 * time.Millisecond)
	if h.server.Connected(low) || h.server.Connected(high) {
		t.Fatalf("slots %d and %d still connected after their clients left", low, high)
	}
	if h.server.findClientID(301) >= 0 {
		t.Fatal("the id of a client that left still finds a slot")
	}
	first := h.addClient(h.token(n+1, 5))
	h.run(200 * time.Millisecond)
	second := h.addClient(h.token(n+2, 5))
	h.run(200 * time.Millisecond)
	if first.ClientIndex() != low || second.ClientIndex() != high {
		t.Fatalf("newcomers got slots %d and %d, want %d and %d", first.ClientIndex(), second.ClientIndex(), low, high)
	}
	// A full server denies the next one.
	late := h.addClient(h.token(n+3, 5))
	h.run(200 * time.Millisecond)
	if late.State() != StateDenied {
		t.Fatalf("a client of a full server is %v, want denied", late.State())
	}
}

func TestSlotSet(t *testing.T) {
	s := newSlotSet(130)
	if got := s.firstClear(); got != 0 {
		t.Fatalf("firstClear of an empty set = %d", got)
	}
	for i := range ClientIndex(130) {
		s.set(i)
	}
	if got := s.firstClear(); got != -1 {
		t.Fatalf("firstClear of a full set = %d, want -1", got)
	}
	s.clear(129)
	s.clear(64)
	if got := s.firstClear(); got != 64 {
		t.Fatalf("firstClear = %d, want 64", got)
	}
	var walked []ClientIndex
	for i := s.next(60); i >= 0 && i < 70; i = s.next(i + 1) {
		walked = append(walked, i)
	}
	want := []ClientIndex{60, 61, 62, 63, 65, 66, 67, 68, 69}
	if len(walked) != len(want) {
		t.Fatalf("walk from 60 = %v, want %v", walked, want)
	}
	for k := range want {
		if walked[k] != want[k] {
			t.Fatalf("walk from 60 = %v, want %v", walked, want)
		}
	}
	if got := s.next(129); got != -1 {
		t.Fatalf("next(129) = %d, want -1", got)
	}
}
