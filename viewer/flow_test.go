package viewer_test

import (
	"testing"

	"github.com/netphys/netphys/viewer"
)

// TestSlowPageSkipsFrames publishes far more than a page that does not read
// can take: Publish must not wait for it, and when the page reads and acks
// again it gets the newest frame, having skipped the ones in between.
func TestSlowPageSkipsFrames(t *testing.T) {
	h := newHarness(t, viewer.Config{})
	slow := h.dial(t)
	big := benchFrame() // the demo's size: two views of 901 cubes
	const published = 500
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range published {
			if err := h.srv.Publish(big); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	select {
	case <-done:
	case <-h.ctx.Done():
		t.Fatal("Publish blocked on a page that does not read")
	}
	// The first frame carries the figures; the later ones must not, as the
	// figures did not change: readFrame fails on text.
	seq, _ := readFrame(t, h.ctx, slow)
	var figs figuresMsg
	readJSON(t, h.ctx, slow, &figs)
	got := []viewer.FrameSeq{seq}
	for got[len(got)-1] != published {
		ack(t, h.ctx, slow, got[len(got)-1])
		seq, _ := readFrame(t, h.ctx, slow)
		if seq <= got[len(got)-1] {
			t.Fatalf("seq %d after %d", seq, got[len(got)-1])
		}
		got = append(got, seq)
	}
	if len(got) > 2*viewer.DefaultConfig().FramesInFlight {
		t.Errorf("the page received frames %v; want the newest after at most %d", got, viewer.DefaultConfig().FramesInFlight)
	}
}

// TestFlowControl checks that a page is sent no more than FramesInFlight
// unacknowledged frames, and then the newest one.
func TestFlowControl(t *testing.T) {
	h := newHarness(t, viewer.Config{FramesInFlight: 1})
	page := h.dial(t)
	next := func() viewer.FrameSeq {
		t.Helper()
		seq, _ := readFrame(t, h.ctx, page)
		var figs figuresMsg // the tick figure changes every frame
		readJSON(t, h.ctx, page, &figs)
		return seq
	}
	h.srv.Publish(smallFrame(1))
	if seq := next(); seq != 1 {
		t.Fatalf("seq %d, want 1", seq)
	}
	h.srv.Publish(smallFrame(2)) // not sent: frame 1 awaits its ack
	h.srv.Publish(smallFrame(3))
	ack(t, h.ctx, page, 1)
	if seq := next(); seq != 3 {
		t.Fatalf("seq %d after the ack, want the newest, 3", seq)
	}
}
