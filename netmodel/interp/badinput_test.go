package interp_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/wire"
	"github.com/netphys/netphys/wire/snapshot"
)

const orbitObjects = 6

// feed is a server side for the bad-input tests: an Encoder over the
// orbit game and a reliable endpoint, producing the datagrams a real
// server would, one snapshot at a time, every snapshot acked at once.
type feed struct {
	enc  *interp.Encoder
	base interp.Baselines
	end  *reliable.Endpoint
	game orbits
	n    interp.Number
	snap snapshot.Snapshot
	buf  []byte
	last []byte // the last packet's payload
}

func newFeed(t testing.TB) *feed {
	cfg := interp.DefaultConfig()
	enc, err := interp.NewEncoder(cfg.Codec, 2, cfg.Reliable.MaxPacketSize)
	if err != nil {
		t.Fatal(err)
	}
	end, _ := reliable.NewEndpoint(cfg.Reliable, simmatch.Epoch)
	return &feed{enc: enc, end: end, game: orbits{n: orbitObjects},
		snap: snapshot.Snapshot{Cubes: make([]snapshot.Cube, orbitObjects)}, buf: make([]byte, 4096)}
}

// next codes the next snapshot (acking it right away when ack) and
// returns its datagrams.
func (f *feed) next(t testing.TB, ack bool) [][]byte {
	f.game.Step()
	f.game.Step()
	f.n++
	f.game.Capture(f.snap.Cubes)
	if err := f.enc.Begin(f.n, &f.snap); err != nil {
		t.Fatal(err)
	}
	pkt, err := f.enc.Encode(&f.base, f.buf)
	if err != nil {
		t.Fatal(err)
	}
	f.last = append(f.last[:0], pkt...)
	seq, d, err := f.end.SendPacket(simmatch.Epoch, pkt)
	if err != nil {
		t.Fatal(err)
	}
	f.base.Sent(seq, f.n)
	if ack {
		f.base.Acked(seq)
	}
	var out [][]byte
	for _, x := range d {
		out = append(out, bytes.Clone(x))
	}
	return out
}

// wrap frames payload as the feed's next reliable packet.
func (f *feed) wrap(t testing.TB, payload []byte) []byte {
	_, d, err := f.end.SendPacket(simmatch.Epoch, payload)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Clone(d[0])
}

func newOrbitClient(t testing.TB) *interp.Client {
	c, err := interp.NewClient(interp.DefaultConfig(), orbitObjects, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSnapshotAgainstAMissingBaselineIsDropped(t *testing.T) {
	f := newFeed(t)
	f.next(t, true)      // never delivered, but acked (forged)
	d := f.next(t, true) // coded against the first
	c := newOrbitClient(t)
	err := c.Receive(simmatch.Epoch, d[0])
	if !errors.Is(err, interp.ErrNoBaseline) {
		t.Fatalf("got %v, want ErrNoBaseline", err)
	}
	if k := c.Counters(); k.NoBaseline != 1 || k.Dropped != 1 || k.Snapshots != 0 {
		t.Fatalf("counters %+v", k)
	}
}

func TestSequenceFarAheadIsDropped(t *testing.T) {
	f := newFeed(t)
	c := newOrbitClient(t)
	for range 5 {
		for _, d := range f.next(t, false) {
			if err := c.Receive(simmatch.Epoch, d); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The last packet (a keyframe: nothing was acked) with its sequence
	// moved 10,000 snapshots on.
	pkt := bytes.Clone(f.last)
	var h interp.Header
	if err := h.Serialize(wire.NewReader(pkt[:interp.HeaderBytes])); err != nil {
		t.Fatal(err)
	}
	h.Seq += 10000
	w := wire.NewWriter(pkt[:interp.HeaderBytes])
	if err := h.Serialize(w); err != nil {
		t.Fatal(err)
	}
	err := c.Receive(simmatch.Epoch, f.wrap(t, pkt))
	if !errors.Is(err, interp.ErrFarAhead) {
		t.Fatalf("got %v, want ErrFarAhead", err)
	}
	if k := c.Counters(); k.FarAhead != 1 || k.Snapshots != 5 {
		t.Fatalf("counters %+v", k)
	}
	// The stream goes on.
	for _, d := range f.next(t, false) {
		if err := c.Receive(simmatch.Epoch, d); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTruncatedAndOversizedPacketsAreDropped cuts a real snapshot packet
// at every byte and pads it past the limit: each is an error, counted,
// and a good packet decodes afterwards.
// TestPrevInTheNewSnapshotsSlotIsRefused: a Prev Ring snapshots back
// lies in the slot the new snapshot is decoded into; the receiver would
// decode against memory it overwrites (found by FuzzReceiverDecode). The
// header is refused, counted, and the baseline stays intact.
func TestPrevInTheNewSnapshotsSlotIsRefused(t *testing.T) {
	cfg := interp.DefaultConfig()
	f := newFeed(t)
	r, err := interp.NewReceiver(cfg.Codec, 2, orbitObjects, cfg.Reliable.MaxPacketSize)
	if err != nil {
		t.Fatal(err)
	}
	for range 4 {
		f.next(t, false)
		if _, _, err := r.Decode(f.last); err != nil {
			t.Fatal(err)
		}
	}
	held := *r.At(1)
	held.Cubes = slices.Clone(held.Cubes)
	// Snapshot 65 against base 2 and prev 1: ages 63 and 1, each below
	// Ring, together Ring; prev 1 shares slot 1 with 65.
	pkt := []byte{0x41, 0x00, 0x7f, 0x00, 0xff, 0x31, 0x42}
	if _, _, err := r.Decode(pkt); !errors.Is(err, interp.ErrHeader) {
		t.Fatalf("got %v, want ErrHeader", err)
	}
	if got := r.At(1); got == nil || !slices.Equal(got.Cubes, held.Cubes) {
		t.Fatalf("snapshot 1 changed by a refused packet: %v", got)
	}
	c := newOrbitClient(t)
	if err := c.Receive(simmatch.Epoch, f.wrap(t, pkt)); !errors.Is(err, interp.ErrHeader) {
		t.Fatalf("client got %v, want ErrHeader", err)
	}
	if k := c.Counters(); k.Dropped != 1 {
		t.Fatalf("counters %+v", k)
	}
}

func TestTruncatedAndOversizedPacketsAreDropped(t *testing.T) {
	f := newFeed(t)
	f.next(t, true)
	f.next(t, true)
	c := newOrbitClient(t)
	f.next(t, false)
	full := bytes.Clone(f.last)
	for n := range len(full) {
		if err := c.Receive(simmatch.Epoch, f.wrap(t, full[:n])); err == nil {
			t.Fatalf("a %d-byte prefix of %d decoded", n, len(full))
		}
	}
	if k := c.Counters(); k.Dropped != uint64(len(full)) || k.Snapshots != 0 {
		t.Fatalf("counters %+v after %d prefixes", k, len(full))
	}
	cfg := interp.DefaultConfig()
	huge := make([]byte, 2*cfg.Reliable.MaxPacketSize)
	if err := c.Receive(simmatch.Epoch, huge); err == nil {
		t.Fatal("an oversized datagram was accepted")
	}
	if err := c.Receive(simmatch.Epoch, f.wrap(t, append(bytes.Clone(full), 0))); err == nil {
		t.Fatal("a packet with a trailing byte decoded")
	}
	// A keyframe decodes after all that.
	fresh := newFeed(t)
	if err := c.Receive(simmatch.Epoch, f.wrap(t, fresh.nextPayload(t))); err != nil {
		t.Fatal(err)
	}
}

// nextPayload codes the next snapshot and returns the packet itself.
func (f *feed) nextPayload(t testing.TB) []byte {
	f.next(t, false)
	return bytes.Clone(f.last)
}

// TestAcksNeverNameUnsentBaselines drives a peer's Baselines with random
// sends and acks, forged sequences among them, and checks every packet's
// header: its baselines are snapshots sent to this peer in packets the
// peer acknowledged.
func TestAcksNeverNameUnsentBaselines(t *testing.T) {
	cfg := interp.DefaultConfig()
	enc, err := interp.NewEncoder(cfg.Codec, 1, 4096)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var b interp.Baselines
	g := orbits{n: orbitObjects}
	snap := snapshot.Snapshot{Cubes: make([]snapshot.Cube, orbitObjects)}
	sentTo := map[interp.Number]reliable.Sequence{} // snapshot → its packet
	acked := map[interp.Number]bool{}
	seq := reliable.Sequence(0)
	buf := make([]byte, 4096)
	for n := interp.Number(1); n < 3000; n++ {
		g.Step()
		g.Capture(snap.Cubes)
		if err := enc.Begin(n, &snap); err != nil {
			t.Fatal(err)
		}
		if rng.IntN(4) == 0 {
			seq++ // a packet for another snapshot stream, never recorded
		}
		for range rng.IntN(4) { // acks, forged ones too
			s := seq - reliable.Sequence(rng.IntN(40))
			if rng.IntN(3) == 0 {
				s = reliable.Sequence(rng.Uint32())
			}
			if m, ok := b.Acked(s); ok {
				if sentTo[m] != s {
					t.Fatalf("ack of sequence %d confirmed snapshot %d, sent in %d", s, m, sentTo[m])
				}
				acked[m] = true
			}
		}
		if rng.IntN(10) == 0 {
			continue // skipped: this peer gets no packet for n
		}
		pkt, err := enc.Encode(&b, buf)
		if err != nil {
			t.Fatal(err)
		}
		var h interp.Header
		if err := h.Serialize(wire.NewReader(pkt)); err != nil {
			t.Fatal(err)
		}
		if h.BaseAge > 0 {
			base := n - interp.Number(h.BaseAge)
			if !acked[base] {
				t.Fatalf("snapshot %d coded against %d, never acknowledged", n, base)
			}
			if h.PrevAge > 0 && !acked[base-interp.Number(h.PrevAge)] {
				t.Fatalf("snapshot %d coded against prev %d, never acknowledged", n, base-interp.Number(h.PrevAge))
			}
		}
		seq++
		b.Sent(seq, n)
		sentTo[n] = seq
	}
}

// FuzzClientReceive feeds arbitrary datagrams to a client that holds a
// few real snapshots. Each is dropped with an error and counted, or is a
// snapshot put on the timeline or kept as a baseline; the client then
// still decodes the real stream.
func FuzzClientReceive(f *testing.F) {
	fd := newFeed(f)
	var seeds [][]byte
	for i := range 8 {
		if i == 5 {
			fd.enc.Reset(3, int64(2*fd.n+1)) // packets from here on carry a reset section
		}
		for _, d := range fd.next(f, i%2 == 0) {
			seeds = append(seeds, d)
			f.Add(d)
		}
	}
	f.Add(fd.wrap(f, []byte{0, 9, 0, 0}))
	f.Fuzz(func(t *testing.T, datagram []byte) {
		c := newOrbitClient(t)
		for _, d := range seeds[:4] {
			if err := c.Receive(simmatch.Epoch, d); err != nil {
				t.Fatal(err)
			}
		}
		before := c.Counters()
		err := c.Receive(simmatch.Epoch, datagram)
		k := c.Counters()
		if err != nil && k.Dropped != before.Dropped+1 {
			t.Fatalf("error %v not counted: %+v", err, k)
		}
		if err == nil && k.Dropped != before.Dropped {
			t.Fatalf("counted a drop without an error: %+v", k)
		}
		if err := c.Update(simmatch.Epoch.Add(time.Second), func([]byte) {}); err != nil {
			t.Fatal(err)
		}
		if view, _, ok := c.View(); ok {
			for i, v := range view {
				if !v.Position.IsFinite() || !v.Rotation.IsFinite() {
					t.Fatalf("object %d drawn at %+v", i, v)
				}
			}
		}
	})
}

// FuzzReceiverDecode decodes arbitrary packets against a receiver holding
// real baselines. A packet that decodes is canonical: its header and the
// snapshot re-encoded against the same baselines give the packet back.
func FuzzReceiverDecode(f *testing.F) {
	cfg := interp.DefaultConfig()
	fd := newFeed(f)
	var pkts [][]byte
	for i := range 6 {
		if i == 4 {
			fd.enc.Reset(1, int64(2*fd.n+1)) // a packet with a reset section
		}
		fd.next(f, i%2 == 0)
		pkts = append(pkts, bytes.Clone(fd.last))
		f.Add(bytes.Clone(fd.last))
	}
	f.Fuzz(func(t *testing.T, pkt []byte) {
		r, err := interp.NewReceiver(cfg.Codec, 2, orbitObjects, cfg.Reliable.MaxPacketSize)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pkts[:4] {
			if _, _, err := r.Decode(p); err != nil {
				t.Fatal(err)
			}
		}
		h, n, err := r.Peek(pkt)
		if err != nil {
			return
		}
		var ref snapshot.Reference
		if h.BaseAge > 0 {
			ref.Base, ref.BaseAge = r.At(n-interp.Number(h.BaseAge)), 2*h.BaseAge
			if h.PrevAge > 0 {
				ref.Prev, ref.PrevAge = r.At(n-interp.Number(h.BaseAge+h.PrevAge)), 2*h.PrevAge
			}
		}
		_, got, err := r.Decode(pkt)
		if err != nil {
			return
		}
		body, err := cfg.Codec.Encode(make([]byte, 4096), got, ref)
		if err != nil {
			t.Fatalf("re-encoding snapshot %d: %v", n, err)
		}
		w := wire.NewWriter(make([]byte, 8192))
		if err := h.Serialize(w); err != nil {
			t.Fatal(err)
		}
		if h.Resets {
			maxAge := interp.Ring*2 - 1
			if h.BaseAge > 0 {
				maxAge = 2*h.BaseAge - 1
			}
			if err := r.Section().Serialize(w, orbitObjects, maxAge); err != nil {
				t.Fatalf("re-encoding the reset section %+v: %v", r.Section(), err)
			}
		}
		again := append(w.Bytes(), body...)
		if !bytes.Equal(again, pkt) {
			t.Fatalf("snapshot %d re-encodes to another packet:\n% x\n% x", n, again, pkt)
		}
	})
}
