package statesync

import "testing"

// TestPlaybackPace: packets arriving unevenly (two at once, then none)
// are played one tick a step, delay ticks behind the newest; a packet far
// older than the newest is handed back to apply at once, and a full
// queue hands back its oldest entry.
func TestPlaybackPace(t *testing.T) {
	p := newPlayback(1)
	const delay = 3
	var played []Tick
	arrive := map[int][]Tick{0: {1}, 1: {2, 3}, 3: {4, 5}, 4: {6}, 5: {7}, 6: {8}, 7: {9}}
	for step := range 10 {
		for _, tick := range arrive[step] {
			if _, now := p.push(tick, update{id: 0}); now {
				t.Fatalf("tick %d handed back", tick)
			}
		}
		due := p.advance(delay)
		for _, q := range due {
			played = append(played, q.tick)
		}
		p.done(len(due))
	}
	// Playback starts 3 behind the first tick, plays one tick a step
	// whatever arrives (it reaches tick 1 at step 3), and so 7 by step 9.
	want := []Tick{1, 2, 3, 4, 5, 6, 7}
	if len(played) != len(want) {
		t.Fatalf("played %v, want %v", played, want)
	}
	for k := range want {
		if played[k] != want[k] {
			t.Fatalf("played %v, want %v", played, want)
		}
	}
	nine, back := Tick(9), Tick(catchUpLimit+1)
	old := nine - back // wraps: ticks compare within half their range
	if q, now := p.push(old, update{id: 0}); !now || q.tick != old {
		t.Fatal("a packet far older than the newest was queued")
	}
	for k := len(p.queue); k < p.limit; k++ {
		p.push(9, update{id: 0})
	}
	if q, now := p.push(10, update{id: 0}); !now || q.tick != 8 || len(p.queue) != p.limit {
		t.Fatalf("full: handed back %v %v, %d queued", q.tick, now, len(p.queue))
	}
}
