package statesync

import "testing"

// TestPlaybackPace: packets arriving unevenly (two at once, then none)
// are played one tick a step, delay ticks behind the newest; a packet far
// older than the newest is handed back to apply at once, and a full
// queue hands back its oldest entry.
func TestPlaybackPace(t *testing.T) {
	const delay = 3
	p := newPlayback(1, delay)
	var played []Tick
	arrive := map[int][]Tick{0: {1}, 1: {2, 3}, 3: {4, 5}, 4: {6}, 5: {7}, 6: {8}, 7: {9}}
	for step := range 10 {
		for _, tick := range arrive[step] {
			if _, now := p.push(tick, update{id: 0}); now {
				t.Fatalf("tick %d handed back", tick)
			}
		}
		due := p.advance(Tick(step))
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

// TestPlaybackSteersAcrossGaps: between two states of an object more
// than a tick apart, playback steers it to the next one each step, with
// the ticks left; not between consecutive states, not towards a state at
// rest, and not across more than glideTicks.
func TestPlaybackSteersAcrossGaps(t *testing.T) {
	p := newPlayback(3, 4)
	moving := qstate{pos: [3]int64{1, 2, 3}}
	rest := qstate{rest: true}
	// Object 0 at ticks 1 and 5 (a gap), object 1 at every tick, object 2
	// from awake at 1 to rest at 5, all in packets of ticks 1-5 of which
	// 2-4 carry only object 1.
	for tick := Tick(1); tick <= 5; tick++ {
		if tick == 1 || tick == 5 {
			p.push(tick, update{id: 0, baseline: baseline{state: moving}})
			st := moving
			if tick == 5 {
				st = rest
			}
			p.push(tick, update{id: 2, baseline: baseline{state: st}})
		}
		p.push(tick, update{id: 1, baseline: baseline{state: moving}})
	}
	type steer struct {
		id    int
		ticks Tick
	}
	var got []steer
	for step := range Tick(5) {
		p.done(len(p.advance(step)))
		p.between(func(a, b *update, ticks Tick) {
			if a.id != b.id {
				t.Fatalf("steering from object %d to %d", a.id, b.id)
			}
			got = append(got, steer{b.id, ticks})
		})
	}
	// Playback starts at tick 1 (5 - 4) and plays 2, 3, 4, 5: object 0 is
	// steered at 2, 3 and 4, with 3, 2 and 1 ticks to go.
	want := []steer{{0, 3}, {0, 2}, {0, 1}}
	if len(got) != len(want) {
		t.Fatalf("steered %v, want %v", got, want)
	}
	for k := range want {
		if got[k] != want[k] {
			t.Fatalf("steered %v, want %v", got, want)
		}
	}
	// Across more than glideTicks, nothing is steered.
	p = newPlayback(1, glideTicks)
	p.push(1, update{id: 0, baseline: baseline{state: moving}})
	p.push(2+glideTicks, update{id: 0, baseline: baseline{state: moving}})
	p.play, p.playing = 1, true
	p.done(len(p.advance(0)))
	p.between(func(_, b *update, _ Tick) { t.Fatalf("steered across %d ticks", glideTicks+1) })
}

// TestPlaybackDelayAdapts: on a link where every packet comes one step
// after the last the delay falls to 0; where one packet in ten comes 4
// steps late (the packets before it held back with it), to the 4 steps
// that cover it; never beyond the maximum.
func TestPlaybackDelayAdapts(t *testing.T) {
	run := func(max Tick, late func(tick Tick) bool) Tick {
		p := newPlayback(1, max)
		var held []Tick
		for step := range Tick(2 * lagWindow) {
			held = append(held, step)
			if !late(step) {
				for _, tick := range held {
					p.push(tick, update{id: 0})
				}
				held = held[:0]
			}
			p.done(len(p.advance(step + 5)))
		}
		return p.delay
	}
	clean := func(Tick) bool { return false }
	gaps := func(tick Tick) bool { return tick%10 < 4 }
	if d := run(6, clean); d != 0 {
		t.Errorf("clean link: delay %d, want 0", d)
	}
	if d := run(6, gaps); d != 4 {
		t.Errorf("gaps of 4: delay %d, want 4", d)
	}
	if d := run(3, gaps); d != 3 {
		t.Errorf("gaps of 4, at most 3: delay %d, want 3", d)
	}
}
