package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/internal/browsertest"
)

// TestPredictReplayBrowser: a recorded predict match (25 s, two bots)
// plays in Debian's chromium: `netphys replay --http` draws the arena's
// two players and 24 cubes and its tick runs; space pauses it, the left
// arrow seeks 10 s back (decoding from the keyframe before), and every
// snapshot decoded agrees with its recorded checksum.
func TestPredictReplayBrowser(t *testing.T) {
	heavyTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	path := recordPredict(t, 25*time.Second)
	addr := freeAddrs(t, "tcp", 1)[0]
	served, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- run(served, []string{"replay", "--http", addr, path}, io.Discard) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("replay --http: %v", err)
		}
	})
	b := browsertest.Start(t, ctx, 960, 540)
	t.Cleanup(b.Close)
	b.Open("http://" + addr + "/")
	const bodies = 2 + 24
	st := b.WaitState("the arena drawn with both players", func(s browsertest.PageState) bool {
		return s.Drawn(1) && s.Views[0].Cubes == bodies
	})
	from := st.MustFigure(t, "tick")
	b.WaitState("the replay playing", func(s browsertest.PageState) bool {
		tick, ok := s.Figure("tick")
		return ok && tick >= from+30
	})
	// A key acts when the playback's frame sees it held: hold each a few
	// frames, as a finger does.
	tap := func(k browsertest.Key) {
		b.Press(k)
		time.Sleep(300 * time.Millisecond)
		b.Release(k)
	}
	tap(browsertest.Key{Key: " ", Code: "Space", VirtualCode: 32})
	st = b.WaitState("paused", func(s browsertest.PageState) bool { return figureText(s, "replay", "paused") })
	paused := st.MustFigure(t, "tick")
	time.Sleep(500 * time.Millisecond)
	if st, _ = b.State(); st.MustFigure(t, "tick") != paused {
		t.Fatalf("paused at tick %g, then at %g", paused, st.MustFigure(t, "tick"))
	}
	// 10 s back (the page may have taken a while to start: the replay
	// could be near its end).
	tap(browsertest.Key{Key: "ArrowLeft", Code: "ArrowLeft", VirtualCode: 37})
	want := max(2, paused-600)
	st = b.WaitState("10 s back", func(s browsertest.PageState) bool {
		tick, ok := s.Figure("tick")
		return ok && tick == want && s.Drawn(1)
	})
	if !figureText(st, "snapshots agree", "") || st.Error != "" {
		t.Fatalf("figures %+v, page error %q", st.Figures, st.Error)
	}
	for _, f := range st.Figures {
		if f.Name == "snapshots agree" {
			var agreed, checked int
			if _, err := fmt.Sscanf(f.Text, "%d of %d", &agreed, &checked); err != nil || agreed != checked || checked < 30 {
				t.Fatalf("snapshots agree: %q", f.Text)
			}
		}
	}
}

// figureText reports whether the page shows the text figure name, with
// want in its text.
func figureText(s browsertest.PageState, name, want string) bool {
	for _, f := range s.Figures {
		if f.Name == name && strings.Contains(f.Text, want) {
			return true
		}
	}
	return false
}
