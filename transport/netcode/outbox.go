package netcode

import "net/netip"

// Datagram is one UDP payload to send.
type Datagram struct {
	To   netip.AddrPort
	Data []byte
}

// outbox collects the datagrams a core produces between two drains. Data
// slices point into one arena, reused after each drain, so steady traffic
// does not allocate.
type outbox struct {
	arena   []byte
	out     []Datagram
	drained bool // the previous batch was handed out: reset before writing
}

// buffer returns the arena for appending one datagram of at most n bytes.
// The caller appends to the result and passes it to commit.
func (o *outbox) buffer(n int) []byte {
	if o.drained {
		o.arena = o.arena[:0]
		o.out = o.out[:0]
		o.drained = false
	}
	if cap(o.arena)-len(o.arena) < n {
		// Continue in a new array: datagrams already queued keep pointing
		// at the old one, which stays valid until the next drain.
		o.arena = make([]byte, 0, 2*cap(o.arena)+n)
	}
	return o.arena[len(o.arena):]
}

// commit records the datagram b, which was appended to buffer's result.
func (o *outbox) commit(to netip.AddrPort, b []byte) {
	o.arena = o.arena[:len(o.arena)+len(b)]
	o.out = append(o.out, Datagram{To: to, Data: b[:len(b):len(b)]})
}

// drain returns the queued datagrams; they stay valid until the core is
// next called.
func (o *outbox) drain() []Datagram {
	if o.drained {
		return nil
	}
	o.drained = true
	return o.out
}
