package netcode

import (
	"net/netip"
	"time"
)

// mapping is the server's encryption state for one client address, created
// by a valid request and used for every later packet from or to it.
type mapping struct {
	send, recv *PacketKey
	lastAccess time.Time     // last packet sent to or received from the address
	expire     time.Time     // handshake deadline, always set while pending; zero once the client has a slot
	timeout    time.Duration // idle time after which it expires; 0 = never
	client     ClientIndex   // slot of the connected client, or -1
}

func (m *mapping) expired(now time.Time) bool {
	if m.timeout > 0 && !now.Before(m.lastAccess.Add(m.timeout)) {
		return true
	}
	return !m.expire.IsZero() && !now.Before(m.expire)
}

// mappings holds the encryption mappings by address, bounded in number so a
// flood of valid-looking requests cannot grow server memory. Those of
// handshakes in flight are also kept apart, so that expiring them visits
// only them, not every connected client's.
type mappings struct {
	byAddr      map[netip.AddrPort]*mapping
	handshaking map[netip.AddrPort]*mapping // the mappings without a slot
	limit       int
}

func newMappings(limit int) mappings {
	return mappings{byAddr: make(map[netip.AddrPort]*mapping), handshaking: make(map[netip.AddrPort]*mapping), limit: limit}
}

// find returns the live mapping of addr, or nil.
func (ms *mappings) find(addr netip.AddrPort, now time.Time) *mapping {
	m := ms.byAddr[addr]
	if m == nil || (m.client < 0 && m.expired(now)) {
		return nil
	}
	return m
}

// add creates or refreshes the mapping of a handshaking address. It returns
// nil when the table is full of live mappings.
func (ms *mappings) add(addr netip.AddrPort, m mapping, now time.Time) *mapping {
	if old := ms.byAddr[addr]; old != nil {
		*old = m
		ms.handshaking[addr] = old
		return old
	}
	if len(ms.byAddr) >= ms.limit {
		ms.expire(now)
		if len(ms.byAddr) >= ms.limit {
			return nil
		}
	}
	p := &m
	ms.byAddr[addr] = p
	ms.handshaking[addr] = p
	return p
}

// admit gives the mapping of addr, whose handshake is complete, slot i.
func (ms *mappings) admit(addr netip.AddrPort, m *mapping, i ClientIndex) {
	m.client = i
	m.expire = time.Time{}
	delete(ms.handshaking, addr)
}

func (ms *mappings) remove(addr netip.AddrPort) {
	delete(ms.byAddr, addr)
	delete(ms.handshaking, addr)
}

// expire deletes the expired mappings of addresses without a slot. The order
// of map iteration does not matter: each entry is judged alone.
func (ms *mappings) expire(now time.Time) {
	for addr, m := range ms.handshaking {
		if m.expired(now) {
			delete(ms.byAddr, addr)
			delete(ms.handshaking, addr)
		}
	}
}

// tokenHistory remembers recently used connect tokens (by the MAC of their
// private part) and the address that used them, so a token captured on the
// wire cannot be used from another address. A ring of entries, oldest
// first, with an index by MAC: a request costs a map lookup, not a scan.
type tokenHistory struct {
	entries []tokenUse
	next    int // the oldest entry, replaced by the next new token
	byMAC   map[[MACBytes]byte]int
}

type tokenUse struct {
	mac  [MACBytes]byte
	addr netip.AddrPort
}

func newTokenHistory(n int) tokenHistory {
	return tokenHistory{entries: make([]tokenUse, n), byMAC: make(map[[MACBytes]byte]int)}
}

// use records that addr presents the token with mac and reports whether that
// is allowed: a new token, or one already used from the same address (the
// client repeats its request until answered). A new token replaces the
// oldest entry.
func (h *tokenHistory) use(mac *[MACBytes]byte, addr netip.AddrPort) bool {
	if i, ok := h.byMAC[*mac]; ok {
		return h.entries[i].addr == addr
	}
	e := &h.entries[h.next]
	if j, ok := h.byMAC[e.mac]; ok && j == h.next {
		delete(h.byMAC, e.mac)
	}
	*e = tokenUse{mac: *mac, addr: addr}
	h.byMAC[*mac] = h.next
	h.next = (h.next + 1) % len(h.entries)
	return true
}
