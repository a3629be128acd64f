package simmatch

import (
	"encoding/binary"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netsim"
)

// echoServer sends every datagram back to the slot it came from, at its
// next Update.
type echoServer struct {
	joined, left []int
	pending      []struct {
		slot int
		data []byte
	}
}

func (s *echoServer) Join(now time.Time, slot int) error {
	s.joined = append(s.joined, slot)
	return nil
}
func (s *echoServer) Leave(now time.Time, slot int) { s.left = append(s.left, slot) }
func (s *echoServer) Receive(now time.Time, slot int, d []byte) error {
	if len(d) != 8 {
		return errors.New("bad length")
	}
	s.pending = append(s.pending, struct {
		slot int
		data []byte
	}{slot, append([]byte(nil), d...)})
	return nil
}
func (s *echoServer) Update(now time.Time, send func(int, []byte)) error {
	for _, p := range s.pending {
		send(p.slot, p.data)
	}
	s.pending = s.pending[:0]
	return nil
}

// pingClient sends the time of every frame and records round trips.
type pingClient struct {
	rtts []time.Duration
	fail error
}

func (c *pingClient) Receive(now time.Time, d []byte) error {
	sent := time.Unix(0, int64(binary.LittleEndian.Uint64(d)))
	c.rtts = append(c.rtts, now.Sub(sent))
	return nil
}
func (c *pingClient) Update(now time.Time, send func([]byte)) error {
	send(binary.LittleEndian.AppendUint64(nil, uint64(now.UnixNano())))
	return c.fail
}

func TestRoundTripsTakeTheSimulatedLatency(t *testing.T) {
	srv := &echoServer{}
	m, err := New(Config{Sim: netsim.Config{Seed: 1, Conditions: netsim.Conditions{Latency: 50 * time.Millisecond}}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	a, b := &pingClient{}, &pingClient{}
	for _, c := range []*pingClient{a, b} {
		if _, err := m.Join(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	if m.Elapsed() != time.Second {
		t.Fatalf("elapsed %v", m.Elapsed())
	}
	// 100 ms there and back, plus up to one frame waiting for the
	// server's Update.
	for _, rtt := range a.rtts {
		if rtt < 100*time.Millisecond || rtt > 100*time.Millisecond+time.Second/60 {
			t.Fatalf("round trip %v", rtt)
		}
	}
	if len(a.rtts) < 50 || len(a.rtts) != len(b.rtts) {
		t.Fatalf("%d and %d round trips", len(a.rtts), len(b.rtts))
	}
	tr := m.Traffic(0)
	if tr.UpPackets != 61 || tr.UpBytes != 61*(8+47) || tr.DownPackets < uint64(len(a.rtts)) || tr.DownPackets > tr.UpPackets {
		t.Fatalf("traffic %+v, %d round trips", tr, len(a.rtts))
	}
}

func TestLeaveDropsDatagramsInFlight(t *testing.T) {
	srv := &echoServer{}
	m, _ := New(Config{Sim: netsim.Config{Conditions: netsim.Conditions{Latency: 50 * time.Millisecond}}}, srv)
	c := &pingClient{}
	slot, _ := m.Join(c)
	if err := m.Run(40 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	m.Leave(slot)
	if err := m.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	if len(c.rtts) != 0 || len(srv.left) != 1 {
		t.Fatalf("%d round trips after leaving, left %v", len(c.rtts), srv.left)
	}
	again := &pingClient{}
	if s, _ := m.Join(again); s != slot {
		t.Fatalf("rejoined in slot %d, want the free slot %d", s, slot)
	}
}

func TestUpdateErrorStopsTheRun(t *testing.T) {
	m, _ := New(Config{}, &echoServer{})
	c := &pingClient{}
	m.Join(c)
	c.fail = errors.New("desync")
	if err := m.Run(time.Second); err == nil || m.Elapsed() != 0 {
		t.Fatalf("err %v after %v", err, m.Elapsed())
	}
}

// idServer is an echoServer that is netmodel.Identified.
type idServer struct {
	echoServer
	ids []uint64
}

func (s *idServer) JoinClient(now time.Time, slot int, id uint64) error {
	s.ids = append(s.ids, id)
	return s.Join(now, slot)
}

func TestCrashSilencesAClientUntilItLeavesAndJoinIDNamesItsReturn(t *testing.T) {
	srv := &idServer{}
	m, _ := New(Config{Sim: netsim.Config{Conditions: netsim.Conditions{Latency: 20 * time.Millisecond}}}, srv)
	a, b := &pingClient{}, &pingClient{}
	m.Join(a)
	slot, _ := m.Join(b)
	if err := m.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	m.Crash(slot)
	n, up := len(b.rtts), m.Traffic(slot).UpPackets
	if err := m.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	if len(b.rtts) != n || m.Traffic(slot).UpPackets != up || len(srv.left) != 0 {
		t.Fatalf("the crashed client went on: %d round trips (had %d), %d packets up (had %d), left %v", len(b.rtts), n, m.Traffic(slot).UpPackets, up, srv.left)
	}
	if len(a.rtts) < 100 {
		t.Fatalf("the other client has %d round trips", len(a.rtts))
	}
	m.Leave(slot)
	back := &pingClient{}
	if s, err := m.JoinID(back, m.ClientID(slot)); err != nil || s != slot {
		t.Fatalf("came back in slot %d: %v", s, err)
	}
	if err := m.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	if want := []uint64{1, 2, 2}; !slices.Equal(srv.ids, want) || len(srv.left) != 1 || len(back.rtts) < 50 {
		t.Fatalf("the server saw ids %v (want %v), left %v; %d round trips after coming back", srv.ids, want, srv.left, len(back.rtts))
	}
	if _, err := m.Join(&pingClient{}); err != nil || m.ClientID(2) != 3 {
		t.Fatalf("a new client got id %d: %v", m.ClientID(2), err)
	}
}
