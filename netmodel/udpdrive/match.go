package udpdrive

import (
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/netcode"
)

// Match is one match as a server driver runs it: its model, the slots of
// its clients with their handshake, and its counts. A Server drives one
// Match on all of netcode's slots, where a slot is netcode's client
// index; Rooms drive one per match, each numbering its own slots from 0
// in the order its clients connect, which the welcome tells each client
// (Client.Slot). Its methods belong to the goroutine that steps it, but
// for Refusals.
type Match struct {
	id    string
	model netmodel.Server
	ts    *transport.Server
	log   *slog.Logger
	clock clock

	client  []int       // per slot: the netcode client index in it, -1 if free
	joined  []bool      // per slot: the model accepted the client
	hello   []time.Time // per slot: netcode connected it at, its hello awaited (zero: not awaited)
	ids     []uint64    // per slot: netcode's client id of its connection, from the connect event
	watches []bool      // per slot: joined as a spectator (Spectated), valid while joined
	used    int         // slots holding a client
	agree   string
	wait    time.Duration
	refused refusals
	also    *refusals // Rooms: the process's counts, which every match adds to
	traffic []netmodel.Traffic
	sendErr uint64 // datagrams SendPayload refused (a slot that just left)
	cost    Cost

	// Rooms only.
	kind    string    // the model's name, for the figures
	late    uint64    // frames the Rooms stepped late while it ran
	up      uint64    // bytes its clients sent it, overhead included
	down    uint64    // bytes it sent them
	opened  time.Time // when its first client arrived
	had     bool      // a client has been in it
	failed  error     // why it failed (an Update error, a panic), nil if it has not
	failAt  time.Time // when it failed
	ended   bool      // its clients were sent away with a bye
	endedBy bool      // failed is Rooms.End's reason, not a failure
	dead    bool      // the model panicked: it is not called again
}

// newMatch returns a match of model on ts with n slots, all free.
func newMatch(id string, model netmodel.Server, ts *transport.Server, log *slog.Logger, n int, agree string, wait time.Duration) *Match {
	if wait <= 0 {
		wait = 5 * time.Second
	}
	m := &Match{id: id, model: model, ts: ts, log: log, agree: agree, wait: wait}
	for range n {
		m.grow()
	}
	return m
}

// grow adds a free slot: Rooms give a match slots as its clients come,
// so a process of many small matches keeps a few slots per match, not
// netcode's every slot per match.
func (m *Match) grow() int {
	m.client = append(m.client, -1)
	m.joined = append(m.joined, false)
	m.hello = append(m.hello, time.Time{})
	m.ids = append(m.ids, 0)
	m.watches = append(m.watches, false)
	m.traffic = append(m.traffic, netmodel.Traffic{})
	return len(m.client) - 1
}

// ID is the match's id (Lobby.Route's); "" for a Server's.
func (m *Match) ID() string { return m.id }

// Model is the match's model.
func (m *Match) Model() netmodel.Server { return m.model }

// Agreement is the description of the match its clients agreed on.
func (m *Match) Agreement() string { return m.agree }

// Slots is the number of slots of the match: a Server's match has the
// netcode server's client slots, a Rooms' match as many as the most
// clients it has held at once.
func (m *Match) Slots() int { return len(m.client) }

// Joined reports whether the client in slot is in the model's match.
func (m *Match) Joined(slot int) bool { return slot >= 0 && slot < len(m.joined) && m.joined[slot] }

// Watching reports whether the client in slot is in the match as a
// spectator (its hello was Watching, its model Spectated).
func (m *Match) Watching(slot int) bool { return m.Joined(slot) && m.watches[slot] }

// Players is the number of clients in the model's match.
func (m *Match) Players() int {
	n := 0
	for _, j := range m.joined {
		if j {
			n++
		}
	}
	return n
}

// ClientID is the client id (from its token) of the client in slot, 0
// if the slot is free.
func (m *Match) ClientID(slot int) netcode.ClientID {
	if slot < 0 || slot >= len(m.client) || m.client[slot] < 0 {
		return 0
	}
	return m.ts.ClientID(netcode.ClientIndex(m.client[slot]))
}

// Traffic returns the counts of the client in slot, of its last session
// if it left.
func (m *Match) Traffic(slot int) netmodel.Traffic {
	if slot < 0 || slot >= len(m.traffic) {
		return netmodel.Traffic{}
	}
	return m.traffic[slot]
}

// Cost is the time the match's model calls took, with the sends they
// made.
func (m *Match) Cost() Cost { return m.cost }

// Kind is the model's name the Lobby gave (MatchSetup.Kind).
func (m *Match) Kind() string { return m.kind }

// Opened is when the match's first client arrived.
func (m *Match) Opened() time.Time { return m.opened }

// Err is why the match failed (its model's Update returned an error, or
// it panicked), nil if it has not.
func (m *Match) Err() error { return m.failed }

// Refusals returns the clients the match refused or released, by
// reason, sorted by reason. It is safe to call from any goroutine.
func (m *Match) Refusals() []Refusal { return m.refused.list() }

// Dropped counts the datagrams the model sent to slots that had left.
func (m *Match) Dropped() uint64 { return m.sendErr }

// index is the netcode client index of slot.
func (m *Match) index(slot int) netcode.ClientIndex { return netcode.ClientIndex(m.client[slot]) }

// connect takes a client netcode connected in slot with client id id:
// its hello is awaited, or it joins the model at once.
func (m *Match) connect(at time.Time, slot int, id uint64) {
	m.ids[slot] = id
	if m.agree != "" {
		m.hello[slot] = at // its hello first
		return
	}
	m.join(at, slot, false)
}

// leave frees slot, whose client netcode disconnected.
func (m *Match) leave(at time.Time, slot int) {
	m.hello[slot] = time.Time{}
	if m.joined[slot] {
		m.joined[slot] = false
		if !m.dead {
			if r, ok := m.model.(Releaser); ok {
				if code, _, _ := r.Released(slot); code != "" {
					m.count("dropped_" + code) // dropped, then gone before the bye
				}
			}
			m.model.Leave(at, slot)
		}
	}
}

// payload hands a payload of the client in slot to the model, or to the
// handshake.
func (m *Match) payload(at time.Time, slot int, b []byte) {
	if m.agree != "" && isControl(b) {
		m.control(at, slot, b)
		return
	}
	if !m.joined[slot] {
		return // sent before its client was refused, or before its hello
	}
	t := &m.traffic[slot]
	t.UpPackets++
	t.UpBytes += uint64(len(b) + netmodel.PacketOverhead)
	m.up += uint64(len(b) + netmodel.PacketOverhead)
	if err := m.model.Receive(at, slot, b); err != nil {
		t.UpErrors++
		m.log.Debug("udpdrive: datagram dropped", "match", m.id, "slot", slot, "err", err)
	}
}

// update refuses the clients whose hello is late, runs the model's
// Update at now and sends the clients the model released a bye. It
// returns the Update's error wrapped in ErrUpdate.
func (m *Match) update(now time.Time) error {
	at := m.clock.at(now)
	for slot, t := range m.hello {
		if !t.IsZero() && at.Sub(t) > m.wait {
			m.refuse(slot, "no_hello", fmt.Sprintf("no hello within %v of connecting: the client does not speak this server's handshake (an older or another program?)", m.wait), false)
		}
	}
	err := m.model.Update(at, m.send)
	if r, ok := m.model.(Releaser); ok {
		for slot, j := range m.joined {
			if !j {
				continue
			}
			if code, reason, done := r.Released(slot); done {
				m.joined[slot] = false
				m.model.Leave(at, slot)
				if code != "" {
					m.log.Info("udpdrive: the match released a client", "match", m.id, "slot", slot, "reason", reason)
					m.refuse(slot, "dropped_"+code, reason, true)
				} else {
					m.refuse(slot, "", reason, true)
				}
			}
		}
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUpdate, err)
	}
	return nil
}

// count adds a refusal or release under code.
func (m *Match) count(code string) {
	m.refused.add(code)
	if m.also != nil {
		m.also.add(code)
	}
}

// refuse sends the client in slot a refusal (or, joined, a bye) with
// reason, closes its connection, and counts it under code ("": not
// counted).
func (m *Match) refuse(slot int, code, reason string, joined bool) {
	m.hello[slot] = time.Time{}
	sendAway(m.ts, m.log, m.index(slot), reason, joined)
	if code != "" {
		m.count(code)
	}
}

// sendAway sends the client at index a refusal (or, joined, a bye) with
// reason and closes its connection.
func sendAway(ts *transport.Server, log *slog.Logger, index netcode.ClientIndex, reason string, joined bool) {
	kind := ctlRefuse
	if joined {
		kind = ctlBye
	}
	msg := encodeControl(kind, reason)
	for range byeCopies {
		if err := ts.SendPayload(index, msg); err != nil {
			log.Debug("udpdrive: send", "client", index, "err", err)
			break
		}
	}
	if err := ts.Disconnect(index); err != nil {
		log.Debug("udpdrive: disconnect", "client", index, "err", err)
	}
}

// end closes the connection of every client in the model's match with a
// bye carrying reason: each is a Leave for the model, unless it is dead.
// Counted under code.
func (m *Match) end(now time.Time, code, reason string) {
	m.endSome(now, code, reason, func(int) bool { return true })
}

// endSome is end for the joined clients in the slots which says.
func (m *Match) endSome(now time.Time, code, reason string, which func(slot int) bool) {
	at := m.clock.at(now)
	for slot, j := range m.joined {
		if j && which(slot) {
			m.joined[slot] = false
			if !m.dead {
				m.model.Leave(at, slot)
			}
			m.refuse(slot, code, reason, true)
		}
	}
}

// refuseWaiting refuses the clients still at the handshake with reason,
// counted under code: the match they came for is over.
func (m *Match) refuseWaiting(code, reason string) {
	for slot, t := range m.hello {
		if !t.IsZero() {
			m.refuse(slot, code, reason, false)
		}
	}
}

// join hands the client in slot to the model (with its client id, if the
// model is netmodel.Identified), or as a spectator (watch: the model's
// Watch), or refuses it with the model's reason.
func (m *Match) join(at time.Time, slot int, watch bool) {
	m.hello[slot] = time.Time{}
	var err error
	if watch {
		err = m.model.(Spectated).Watch(at, slot)
	} else if idm, ok := m.model.(netmodel.Identified); ok {
		err = idm.JoinClient(at, slot, m.ids[slot])
	} else {
		err = m.model.Join(at, slot)
	}
	if err != nil {
		// The model refuses the client (the match is full or started):
		// netcode's slot is freed at once.
		m.log.Info("udpdrive: model refused a client", "match", m.id, "slot", slot, "err", err)
		m.refuse(slot, "join_refused", err.Error(), false)
		return
	}
	m.joined[slot], m.watches[slot] = true, watch
	m.traffic[slot] = netmodel.Traffic{}
	if m.agree != "" {
		m.welcome(slot)
	}
}

// welcome tells the client in slot it is in the match, and its slot.
func (m *Match) welcome(slot int) {
	m.ts.SendPayload(m.index(slot), encodeControl(ctlWelcome, strconv.Itoa(slot)))
}

// control handles a driver message from the client in slot.
func (m *Match) control(at time.Time, slot int, b []byte) {
	c, err := decodeControl(b)
	if err != nil || c.kind != ctlHello {
		m.log.Debug("udpdrive: bad control message", "match", m.id, "slot", slot, "err", err, "kind", c.kind)
		return
	}
	switch {
	case m.joined[slot]:
		m.welcome(slot) // our welcome was lost: say it again
	case m.hello[slot].IsZero():
		// Refused already, or the handshake is off.
	case c.text == m.agree:
		m.join(at, slot, false)
	case c.text == Watching(m.agree) && m.spectated():
		m.join(at, slot, true)
	default:
		reason := fmt.Sprintf("server runs %s; you asked for %s", m.agree, c.text)
		m.log.Info("udpdrive: refused a client set up for another match", "match", m.id, "slot", slot, "reason", reason)
		m.refuse(slot, "config_mismatch", reason, false)
	}
}

// spectated reports whether the model takes spectators.
func (m *Match) spectated() bool {
	_, ok := m.model.(Spectated)
	return ok
}

// send is the Update callback: the datagram is sealed and leaves with
// the others of the Step when it ends (transport.Server.Flush), in a few
// system calls rather than one each.
func (m *Match) send(slot int, datagram []byte) {
	if slot < 0 || slot >= len(m.joined) || !m.joined[slot] {
		m.sendErr++
		return
	}
	if err := m.ts.QueuePayload(m.index(slot), datagram); err != nil {
		m.sendErr++
		m.log.Debug("udpdrive: send", "match", m.id, "slot", slot, "err", err)
		return
	}
	t := &m.traffic[slot]
	t.DownPackets++
	t.DownBytes += uint64(len(datagram) + netmodel.PacketOverhead)
	m.down += uint64(len(datagram) + netmodel.PacketOverhead)
}
