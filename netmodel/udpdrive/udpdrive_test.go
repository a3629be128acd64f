package udpdrive

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/transport/netcode"
)

// sumServer is a tiny model: every client sends a counter each frame, and
// every frame the server sends each client the sum of the newest counters
// of every client. It refuses clients beyond max.
type sumServer struct {
	max     int
	counter map[int]uint32
	joins   []int
	leaves  []int
	last    time.Time // the newest time it was given
	back    bool      // time went backwards
	fail    error     // returned by Update
}

func (s *sumServer) tick(now time.Time) {
	if now.Before(s.last) {
		s.back = true
	}
	s.last = now
}

func (s *sumServer) Join(now time.Time, slot int) error {
	s.tick(now)
	if len(s.counter) == s.max {
		return errors.New("full")
	}
	s.counter[slot] = 0
	s.joins = append(s.joins, slot)
	return nil
}

func (s *sumServer) Leave(now time.Time, slot int) {
	s.tick(now)
	delete(s.counter, slot)
	s.leaves = append(s.leaves, slot)
}

func (s *sumServer) Receive(now time.Time, slot int, d []byte) error {
	s.tick(now)
	if len(d) != 4 {
		return errors.New("want 4 bytes")
	}
	s.counter[slot] = max(s.counter[slot], binary.LittleEndian.Uint32(d))
	return nil
}

func (s *sumServer) Update(now time.Time, send func(int, []byte)) error {
	s.tick(now)
	var sum uint32
	for _, c := range s.counter {
		sum += c
	}
	for slot := range s.counter {
		send(slot, binary.LittleEndian.AppendUint32(nil, sum))
	}
	return s.fail
}

// countClient sends its frame count, after one malformed datagram, and
// keeps the newest sum.
type countClient struct {
	frames uint32
	sum    uint32
}

func (c *countClient) Receive(now time.Time, d []byte) error {
	if len(d) != 4 {
		return errors.New("want 4 bytes")
	}
	c.sum = max(c.sum, binary.LittleEndian.Uint32(d))
	return nil
}

func (c *countClient) Update(now time.Time, send func([]byte)) error {
	if c.frames == 0 {
		send([]byte{1, 2, 3}) // dropped by the server's Receive
	}
	c.frames++
	send(binary.LittleEndian.AppendUint32(nil, c.frames))
	return nil
}

var quiet = slog.New(slog.DiscardHandler)

// startServer serves model on a loopback port and returns a token maker.
func startServer(t *testing.T, model netmodel.Server) (*Server, func(id uint64) *netcode.ConnectToken) {
	t.Helper()
	return startServerWith(t, model, func(*ServerConfig) {})
}

// startServerWith is startServer with the config changed by set.
func startServerWith(t *testing.T, model netmodel.Server, set func(*ServerConfig)) (*Server, func(id uint64) *netcode.ConnectToken) {
	t.Helper()
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	key := netcode.Key{7}
	cfg := DefaultServerConfig()
	cfg.Logger = quiet
	cfg.Transport.Netcode.PrivateKey = key
	cfg.Transport.Netcode.MaxClients = 4
	set(&cfg)
	srv, err := NewServer(model, conn, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, func(id uint64) *netcode.ConnectToken {
		p := netcode.DefaultTokenParams()
		p.ClientID = netcode.ClientID(id)
		p.ServerAddresses = []netip.AddrPort{srv.Transport().Addr()}
		tok, err := netcode.GenerateConnectToken(&p, time.Now(), &key, nil)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
}

func dial(t *testing.T, tok *netcode.ConnectToken, m netmodel.Client) *Client {
	t.Helper()
	cfg := DefaultClientConfig()
	cfg.Logger = quiet
	c, err := Dial(context.Background(), tok, func(int) (netmodel.Client, error) { return m, nil }, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// stepUntil runs the sides until cond holds, failing after 10 s.
func stepUntil(t *testing.T, what string, cond func() bool, sides ...Stepper) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := Run(ctx, 5*time.Millisecond, func(time.Time) (bool, error) { return cond(), nil }, sides...)
	if ctx.Err() != nil {
		t.Fatalf("%s: not after 10 s", what)
	}
	return err
}

func TestModelsExchangeDatagramsOverUDP(t *testing.T) {
	model := &sumServer{max: 2, counter: map[int]uint32{}}
	srv, token := startServer(t, model)
	a, b := &countClient{}, &countClient{}
	ca, cb := dial(t, token(1), a), dial(t, token(2), b)
	defer ca.Close()
	defer cb.Close()
	if ca.Slot() == cb.Slot() {
		t.Fatalf("both clients in slot %d", ca.Slot())
	}
	// The sum each sees grows past what one client alone can send.
	err := stepUntil(t, "sums of both counters", func() bool { return a.sum > a.frames+20 && b.sum > b.frames+20 }, srv, ca, cb)
	if err != nil {
		t.Fatal(err)
	}
	if c := srv.Cost(); c.Steps == 0 || c.Total <= 0 || c.Max < c.Mean() || ca.Cost().Steps == 0 {
		t.Fatalf("costs: server %+v, client %+v", c, ca.Cost())
	}
	if len(model.joins) != 2 || model.back {
		t.Fatalf("joins %v, time went backwards: %v", model.joins, model.back)
	}
	for _, c := range []*Client{ca, cb} {
		up, down := srv.Traffic(c.Slot()), c.Traffic()
		if up.UpErrors != 1 {
			t.Errorf("slot %d: %d receive errors counted, want the 1 malformed datagram", c.Slot(), up.UpErrors)
		}
		if up.UpPackets == 0 || down.DownPackets == 0 || down.UpPackets < up.UpPackets || up.DownPackets < down.DownPackets {
			t.Errorf("slot %d: server counts %+v, client counts %+v", c.Slot(), up, down)
		}
		if down.UpBytes != down.UpPackets*(4+netmodel.PacketOverhead)-1 {
			t.Errorf("slot %d: %d bytes for %d datagrams of 4 bytes and one of 3", c.Slot(), down.UpBytes, down.UpPackets)
		}
	}
	// A client that leaves is a Leave for the model.
	gone := ca.Slot()
	ca.Close()
	if err := stepUntil(t, "leave", func() bool { return len(model.leaves) == 1 }, srv, cb); err != nil {
		t.Fatal(err)
	}
	if model.leaves[0] != gone || srv.Joined(gone) {
		t.Fatalf("leaves %v, want [%d]", model.leaves, gone)
	}
	// The next match needs every client gone.
	next := &sumServer{max: 2, counter: map[int]uint32{}}
	if err := srv.Replace(next); !errors.Is(err, ErrInMatch) {
		t.Fatalf("Replace with a client in the match: %v", err)
	}
	cb.Close()
	if err := stepUntil(t, "leave", func() bool { return len(model.leaves) == 2 }, srv); err != nil {
		t.Fatal(err)
	}
	if err := srv.Replace(next); err != nil {
		t.Fatal(err)
	}
	c := dial(t, token(3), &countClient{})
	defer c.Close()
	if err := stepUntil(t, "a join in the next match", func() bool { return len(next.joins) == 1 }, srv, c); err != nil {
		t.Fatal(err)
	}
}

func TestRefusedJoinDisconnectsTheClient(t *testing.T) {
	model := &sumServer{max: 1, counter: map[int]uint32{}}
	srv, token := startServer(t, model)
	first := dial(t, token(1), &countClient{})
	defer first.Close()
	if err := stepUntil(t, "join", func() bool { return len(model.joins) == 1 }, srv); err != nil {
		t.Fatal(err)
	}
	second := dial(t, token(2), &countClient{})
	defer second.Close()
	err := stepUntil(t, "second client refused", func() bool { return false }, srv, first, second)
	if !errors.Is(err, ErrDisconnected) {
		t.Fatalf("second client: %v, want ErrDisconnected", err)
	}
	if len(model.joins) != 1 || len(model.leaves) != 0 || srv.Joined(second.Slot()) {
		t.Fatalf("joins %v, leaves %v", model.joins, model.leaves)
	}
}

func TestUpdateErrorStopsTheLoop(t *testing.T) {
	model := &sumServer{max: 1, counter: map[int]uint32{}, fail: io.ErrUnexpectedEOF}
	srv, _ := startServer(t, model)
	err := Run(context.Background(), time.Millisecond, nil, srv)
	if !errors.Is(err, ErrUpdate) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("Run: %v", err)
	}
}

func TestInboxBoundsPayloadsButNeverSlotChanges(t *testing.T) {
	var b inbox
	b.init(nil, maxQueuedPerSlot, 0)
	// Slot 0 floods: it gets its share, and slot 1's payload still queues.
	for range maxQueuedPerSlot + 10 {
		b.push(evPayload, 0, []byte{1})
	}
	b.push(evPayload, 1, []byte{2})
	q, dropped := b.swap(nil)
	if len(q) != maxQueuedPerSlot+1 || dropped != 10 || q[len(q)-1].slot != 1 {
		t.Fatalf("one slot flooding: %d queued, %d dropped", len(q), dropped)
	}
	// Every slot at its share: the whole queue is bounded too.
	slots := maxQueuedPayloads/maxQueuedPerSlot + 1
	for slot := range slots {
		for range maxQueuedPerSlot {
			b.push(evPayload, slot, []byte{1})
		}
	}
	b.push(evLeave, 0, nil)
	q, dropped = b.swap(q)
	if len(q) != maxQueuedPayloads+1 || dropped != 10+maxQueuedPerSlot || q[len(q)-1].kind != evLeave {
		t.Fatalf("%d slots flooding: %d queued, %d dropped", slots, len(q), dropped)
	}
	for i := 1; i < len(q); i++ {
		if q[i].at.Before(q[i-1].at) {
			t.Fatal("queue out of time order")
		}
	}
	if q, _ := b.swap(q); len(q) != 0 {
		t.Fatalf("%d events after the swap", len(q))
	}
}

// idSumServer is a sumServer that is netmodel.Identified: it records the
// client id of every join.
type idSumServer struct {
	sumServer
	ids map[int]uint64
}

func (s *idSumServer) JoinClient(now time.Time, slot int, id uint64) error {
	if err := s.Join(now, slot); err != nil {
		return err
	}
	s.ids[slot] = id
	return nil
}

func TestIdentifiedModelIsToldTheTokensClientID(t *testing.T) {
	for _, agree := range []string{"", "the same match"} {
		model := &idSumServer{sumServer{max: 2, counter: map[int]uint32{}}, map[int]uint64{}}
		srv, token := startAgreeServer(t, model, agree)
		var cs []*Client
		for _, id := range []uint64{41, 42} {
			c, err := dialAgree(t, srv, id, token, agree, &countClient{})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			cs = append(cs, c)
		}
		if err := stepUntil(t, "joins", func() bool { return len(model.joins) == 2 }, srv, cs[0], cs[1]); err != nil {
			t.Fatal(err)
		}
		if model.ids[cs[0].Slot()] != 41 || model.ids[cs[1].Slot()] != 42 {
			t.Fatalf("agree %q: the model was told ids %v for slots %d and %d", agree, model.ids, cs[0].Slot(), cs[1].Slot())
		}
	}
}
