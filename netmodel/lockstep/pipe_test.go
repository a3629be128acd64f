package lockstep

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
)

// TestStreamPipeFrames sends messages over two stream pipes with 5-byte
// segments: frames split across segments come out whole, in order.
func TestStreamPipeFrames(t *testing.T) {
	cfg := DefaultStreamConfig()
	cfg.Stream.MSS = 5
	now := simmatch.Epoch
	a, _ := newPipe(&cfg, now)
	b, err := newPipe(&cfg, now)
	if err != nil {
		t.Fatal(err)
	}
	var segs [][]byte
	collect := func(d []byte) { segs = append(segs, append([]byte(nil), d...)) }
	var want, got [][]byte
	for i := range 20 {
		msg := []byte(fmt.Sprintf("message %d: %s", i, bytes.Repeat([]byte{'x'}, i)))
		want = append(want, msg)
		if _, err := a.send(now, msg, collect); err != nil {
			t.Fatal(err)
		}
		// Deliver, and let b's acks open a's window.
		for len(segs) > 0 {
			d := segs[0]
			segs = segs[1:]
			if err := b.receive(now, d, func(m []byte) error { got = append(got, append([]byte(nil), m...)); return nil }); err != nil {
				t.Fatal(err)
			}
			b.(*streamPipe).conn.Flush(now, func(ack []byte) {
				if err := a.receive(now, ack, func([]byte) error { return nil }); err != nil {
					t.Fatal(err)
				}
			})
			a.(*streamPipe).conn.Flush(now, collect)
		}
		now = now.Add(time.Millisecond)
	}
	if len(got) != len(want) {
		t.Fatalf("%d messages delivered of %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("message %d: %q, want %q", i, got[i], want[i])
		}
	}
}

// TestStreamPipeBadFrame: a frame longer than any message is malformed,
// and nothing after it is delivered: the bytes that follow are not framed
// where the sender meant them to be.
func TestStreamPipeBadFrame(t *testing.T) {
	cfg := DefaultStreamConfig()
	now := simmatch.Epoch
	a, _ := newPipe(&cfg, now)
	b, _ := newPipe(&cfg, now)
	raw := a.(*streamPipe).conn
	var errs []error
	delivered := 0
	deliver := func([]byte) error { delivered++; return nil }
	for _, frame := range [][]byte{{0xff, 0xff, 1, 2, 3}, {2, 0, 7, 7}} {
		if err := raw.Write(frame); err != nil {
			t.Fatal(err)
		}
		raw.Flush(now, func(d []byte) { errs = append(errs, b.receive(now, d, deliver)) })
		now = now.Add(time.Millisecond)
	}
	if len(errs) != 2 || !errors.Is(errs[0], ErrMalformed) || !errors.Is(errs[1], ErrMalformed) || delivered != 0 {
		t.Fatalf("errors %v, %d delivered; want two ErrMalformed, none delivered", errs, delivered)
	}
}
