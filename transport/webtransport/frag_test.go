package webtransport

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/webtransport/frag"
)

// TestLargePayloadsInFragments: payloads of netcode's largest size, whose
// packets exceed frag.MaxDatagram, travel in fragments both ways
// between a browser client and the server, and come back whole; none of
// the session's sends fails.
func TestLargePayloadsInFragments(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	srv, mux := startEcho(t)
	bc := dialBrowser(t, ctx, mux, dialSession(t, ctx, mux), testToken(t, srv.Addr(), 5, testKey))
	const messages = 10
	for k := range messages {
		p := bytes.Repeat([]byte{byte(k)}, netcode.MaxPayloadBytes)
		if err := bc.SendPayload(p); err != nil {
			t.Fatal(err)
		}
		select {
		case b := <-bc.got:
			if !bytes.Equal(b, p) {
				t.Fatalf("payload %d came back as %d bytes, not the %d sent", k, len(b), len(p))
			}
		case <-ctx.Done():
			t.Fatalf("no echo of payload %d: mux %+v, client %+v", k, mux.Stats(), bc.conn.Fragments())
		}
	}
	ms, cs := mux.Stats(), bc.conn.Fragments()
	t.Logf("mux %+v\nclient %+v", ms, cs)
	if ms.SendErrors != 0 {
		t.Errorf("the mux failed %d sends", ms.SendErrors)
	}
	if f := ms.Fragments; f.PacketsSplit != messages || f.FragmentsSent != 2*messages || f.PacketsReassembled != messages || f.FragmentsDropped != 0 || f.PacketsLost != 0 {
		t.Errorf("the mux's fragments %+v: want %d packets each way in two fragments, none dropped or lost", f, messages)
	}
	if cs.PacketsSplit != messages || cs.FragmentsSent != 2*messages || cs.PacketsReassembled != messages || cs.FragmentsDropped != 0 {
		t.Errorf("the client's fragments %+v: want %d packets each way in two fragments", cs, messages)
	}
	if d := srv.Stats().Dropped(); d != 0 {
		t.Errorf("the netcode server dropped %d packets", d)
	}
}

// TestPushFragments: the mux puts a session's fragments back together
// before it queues the packet, drops malformed ones and counts both.
func TestPushFragments(t *testing.T) {
	mux := loopbackMux(t, Config{})
	defer mux.Close()
	ses := &session{addr: sessionAddr(1)}
	p := bytes.Repeat([]byte{0x15}, netcode.MaxPacketBytes)
	var ds [][]byte
	if _, err := frag.Split(p, frag.MaxDatagram, 9, func(b []byte) error {
		ds = append(ds, append([]byte(nil), b...))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	mux.push(ses, ds[1])
	mux.push(ses, []byte{frag.Marker, 1, 0, 0x05, 1}) // five fragments: malformed
	if st := mux.Stats(); st.DatagramsIn != 0 {
		t.Fatalf("stats %+v: a packet queued before its last fragment", st)
	}
	mux.push(ses, ds[0])
	b := make([]byte, netcode.MaxPacketBytes)
	n, from, err := mux.ReadFromUDPAddrPort(b)
	if err != nil || from != ses.addr || !bytes.Equal(b[:n], p) {
		t.Fatalf("read %d bytes from %v (err %v), want the %d-byte packet from %v", n, from, err, len(p), ses.addr)
	}
	want := frag.Stats{FragmentsIn: 3, PacketsReassembled: 1, FragmentsDropped: 1}
	mux.forget(ses) // its counts stay in the mux's
	if st := mux.Stats(); st.Fragments != want || st.DatagramsIn != 1 {
		t.Errorf("stats %+v: want fragments %+v and one packet queued", st, want)
	}
}

// TestHostileFragments: over a WebTransport session, fragments of a
// forged packet are put back together and the packet is then dropped by
// netcode (it fails authentication); a flood of first halves of
// distinct packets is given up as lost, a few pending at a time; the
// honest client on the same session goes on.
func TestHostileFragments(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	srv, mux := startEcho(t)
	s := dialSession(t, ctx, mux)
	bc := dialBrowser(t, ctx, mux, s, testToken(t, srv.Addr(), 6, testKey))
	if err := bc.SendPayload([]byte("honest")); err != nil {
		t.Fatal(err)
	}
	waitEcho(t, ctx, bc, "honest")
	before, mbefore := srv.Stats(), mux.Stats()

	forged, err := netcode.NewPacketKey(testProtocol, &netcode.Key{5}).Seal(nil, netcode.PacketPayload, 1<<40, make([]byte, netcode.MaxPayloadBytes))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := frag.Split(forged, frag.MaxDatagram, 60000, s.SendDatagram); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, func() string {
		return fmt.Sprintf("the forged packet reassembled and dropped: netcode %v, mux %+v", srv.Stats().Drops, mux.Stats())
	}, func() bool {
		return srv.Stats().Drops[netcode.DropDecrypt] > before.Drops[netcode.DropDecrypt] &&
			mux.Stats().Fragments.PacketsReassembled > mbefore.Fragments.PacketsReassembled
	})
	// The flood goes ten at a time, within the session's datagram queue
	// (http3's, of 32): the count waited for is of fragments that arrived.
	const flood = 100
	for id := range flood {
		if _, err := frag.Split(forged, frag.MaxDatagram, uint16(id), func(b []byte) error {
			if b[3]>>4 != 0 {
				return nil // the first fragment only
			}
			return s.SendDatagram(b)
		}); err != nil {
			t.Fatal(err)
		}
		if id%10 == 9 {
			want := mbefore.Fragments.FragmentsIn + 2 + uint64(id) + 1
			waitFor(t, ctx, func() string { return fmt.Sprintf("%d fragments in: mux %+v", want, mux.Stats()) }, func() bool {
				return mux.Stats().Fragments.FragmentsIn >= want
			})
		}
	}
	if f := mux.Stats().Fragments; f.PacketsLost < mbefore.Fragments.PacketsLost+flood-frag.Pending {
		t.Errorf("fragments %+v: want the flood's packets but the last %d lost", f, frag.Pending)
	}
	if err := bc.SendPayload([]byte("still here")); err != nil {
		t.Fatal(err)
	}
	waitEcho(t, ctx, bc, "still here")
}
