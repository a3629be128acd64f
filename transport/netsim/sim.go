package netsim

import (
	"math/rand/v2"
	"net/netip"
	"time"
)

// Addr names an endpoint of the simulated network.
type Addr = netip.AddrPort

// Packet is a datagram in or out of the simulator.
type Packet struct {
	From, To Addr
	Data     []byte    // a copy owned by the receiver
	Sent     time.Time // when Send was called
	Due      time.Time // when the simulator delivers it
}

// Config configures a Sim.
type Config struct {
	// Seed seeds the PCG generator behind every random choice: the same
	// seed and the same calls give the same deliveries.
	Seed uint64
	// Conditions apply to every link without its own (see SetLink).
	Conditions Conditions
}

// Sim is an in-process network in virtual time: packets go in with Send
// and come out of Receive once their delivery time has come. It is a core
// without I/O and without a clock; time is an argument of every call, and
// must not go backwards. It is not safe for concurrent use.
type Sim struct {
	rng      *rand.Rand
	defaults Conditions
	links    map[linkKey]*link
	queue    deliveryQueue
	counters Counters
	out      []Packet
}

type linkKey struct{ from, to Addr }

// link is the state of one direction between two addresses.
type link struct {
	cond      Conditions
	own       bool      // cond set by SetLink rather than the defaults
	busyUntil time.Time // when the bandwidth queue empties
	bad       bool      // Gilbert–Elliott state
}

// New returns a simulator with no packets in flight.
func New(cfg Config) (*Sim, error) {
	if err := cfg.Conditions.Validate(); err != nil {
		return nil, err
	}
	return &Sim{
		rng:      rand.New(rand.NewPCG(cfg.Seed, 0)),
		defaults: cfg.Conditions,
		links:    map[linkKey]*link{},
	}, nil
}

// SetConditions changes the conditions of every link without its own.
// Packets in flight keep their delivery times.
func (s *Sim) SetConditions(c Conditions) error {
	if err := c.Validate(); err != nil {
		return err
	}
	s.defaults = c
	for _, l := range s.links { // order is irrelevant: no random draws
		if !l.own {
			l.cond = c
		}
	}
	return nil
}

// SetLink gives the direction from→to its own conditions.
func (s *Sim) SetLink(from, to Addr, c Conditions) error {
	if err := c.Validate(); err != nil {
		return err
	}
	l := s.link(from, to)
	l.cond, l.own = c, true
	return nil
}

func (s *Sim) link(from, to Addr) *link {
	k := linkKey{from, to}
	l := s.links[k]
	if l == nil {
		l = &link{cond: s.defaults}
		s.links[k] = l
	}
	return l
}

// Forget drops the state of the direction from→to (its conditions set
// by SetLink, its queue and burst state); the next packet finds a fresh
// link with the defaults. The UDP proxy calls it for clients gone idle.
func (s *Sim) Forget(from, to Addr) { delete(s.links, linkKey{from, to}) }

// Links returns the number of link directions the simulator holds state
// for: those that carried a packet or were set by SetLink, and not forgotten.
func (s *Sim) Links() int { return len(s.links) }

// Send puts a copy of data on the link from→to at time now; data may be
// reused as soon as Send returns.
func (s *Sim) Send(now time.Time, from, to Addr, data []byte) {
	s.counters.Sent++
	s.counters.BytesSent += uint64(len(data))
	l := s.link(from, to)
	c := &l.cond

	depart := now
	if c.Bandwidth > 0 {
		if l.busyUntil.Before(now) {
			l.busyUntil = now
		}
		waiting := bytesIn(l.busyUntil.Sub(now), c.Bandwidth)
		if c.QueueBytes > 0 && waiting+int64(len(data)) > int64(c.QueueBytes) {
			s.counters.QueueDropped++
			return
		}
		l.busyUntil = l.busyUntil.Add(transmitTime(len(data), c.Bandwidth))
		depart = l.busyUntil
	}
	if s.lost(l) {
		s.counters.Lost++
		return
	}
	p := Packet{From: from, To: to, Data: append([]byte(nil), data...), Sent: now}
	s.schedule(p, depart.Add(s.delay(c)))
	if c.Duplicate > 0 && s.rng.Float64() < c.Duplicate {
		s.counters.Duplicated++
		p.Data = append([]byte(nil), data...)
		s.schedule(p, depart.Add(s.delay(c)))
	}
}

// lost draws whether the next packet on l is lost.
func (s *Sim) lost(l *link) bool {
	c := &l.cond
	if !c.Burst.Enabled() {
		return c.Loss > 0 && s.rng.Float64() < c.Loss
	}
	if l.bad {
		l.bad = s.rng.Float64() >= c.Burst.BadToGood
	} else {
		l.bad = s.rng.Float64() < c.Burst.GoodToBad
	}
	p := c.Burst.LossGood
	if l.bad {
		p = c.Burst.LossBad
	}
	return p > 0 && s.rng.Float64() < p
}

// delay draws one packet's time on the wire.
func (s *Sim) delay(c *Conditions) time.Duration {
	d := c.Latency
	if c.Jitter > 0 {
		d += time.Duration(s.rng.Int64N(int64(2*c.Jitter)+1)) - c.Jitter
		d = max(d, 0)
	}
	if c.Reorder > 0 && s.rng.Float64() < c.Reorder {
		s.counters.Reordered++
		d += c.ReorderDelay
	}
	return d
}

func (s *Sim) schedule(p Packet, due time.Time) {
	p.Due = due
	s.queue.push(p)
	s.counters.Pending++
}

// Receive removes and returns the packets due at or before now, in
// delivery order (ties in send order). The returned slice is reused by
// the next Receive; the packets' Data are the caller's.
func (s *Sim) Receive(now time.Time) []Packet {
	s.out = s.out[:0]
	for s.queue.len() > 0 && !s.queue.peek().Due.After(now) {
		p := s.queue.pop()
		s.counters.Pending--
		s.counters.Delivered++
		s.counters.BytesDelivered += uint64(len(p.Data))
		s.out = append(s.out, p)
	}
	return s.out
}

// NextDue returns when the next packet in flight is due; false when none is.
// A driver sleeps until then.
func (s *Sim) NextDue() (time.Time, bool) {
	if s.queue.len() == 0 {
		return time.Time{}, false
	}
	return s.queue.peek().Due, true
}

// Counters returns the simulator's counters.
func (s *Sim) Counters() Counters { return s.counters }

// transmitTime is how long n bytes occupy a link of bw bytes per second.
func transmitTime(n int, bw int64) time.Duration {
	return time.Duration(int64(n) * int64(time.Second) / bw)
}

// bytesIn is how many bytes a link of bw bytes per second sends in d.
// In floating point: d×bw overflows int64 for a queue of 10 s at 1 GB/s.
func bytesIn(d time.Duration, bw int64) int64 {
	return int64(d.Seconds() * float64(bw))
}
