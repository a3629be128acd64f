package match

import "sync"

// Refuser is a Host that refuses some of what its clients send (predict:
// shots stamped beyond the rewind cap, inputs too late to apply, shots
// during the cooldown) and counts each refusal by reason. RefusalCounts
// may be called from any goroutine: a metrics scrape reads it.
type Refuser interface {
	RefusalCounts() []Count
}

// Count is how many times something happened for one stable reason, a
// metric label such as "shot_too_late".
type Count struct {
	Reason string
	Count  uint64
}

// RefusalTally sums the refusals of a server process's matches by reason:
// those of the matches that ended and those of the current one, whose
// Host (if a Refuser) Serve hands it, or of every running one
// (ServeRooms). It is safe for concurrent use.
type RefusalTally struct {
	mu      sync.Mutex
	ended   []Count // in the order the reasons were first seen
	current Refuser
	running []followed // ServeRooms: every running match's host, oldest first
}

// watch retires the current host's counts and follows h instead.
func (t *RefusalTally) watch(h Host) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.current != nil {
		t.ended = addCounts(t.ended, t.current.RefusalCounts())
	}
	t.current, _ = h.(Refuser)
}

// followed is a running match's host the tally follows.
type followed struct {
	match string
	r     Refuser
}

// follow adds h, the host of match, which runs beside others
// (ServeRooms), to the tally.
func (t *RefusalTally) follow(match string, h Host) {
	if r, ok := h.(Refuser); ok {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.running = append(t.running, followed{match, r})
	}
}

// retire keeps the counts of match, which ended, and stops following
// its host.
func (t *RefusalTally) retire(match string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, f := range t.running {
		if f.match == match {
			t.ended = addCounts(t.ended, f.r.RefusalCounts())
			t.running = append(t.running[:i], t.running[i+1:]...)
			return
		}
	}
}

// Counts returns the refusals of every match so far, by reason.
func (t *RefusalTally) Counts() []Count {
	t.mu.Lock()
	defer t.mu.Unlock()
	sum := append([]Count(nil), t.ended...)
	if t.current != nil {
		sum = addCounts(sum, t.current.RefusalCounts())
	}
	for _, f := range t.running {
		sum = addCounts(sum, f.r.RefusalCounts())
	}
	return sum
}

func addCounts(sum, more []Count) []Count {
next:
	for _, m := range more {
		for i := range sum {
			if sum[i].Reason == m.Reason {
				sum[i].Count += m.Count
				continue next
			}
		}
		sum = append(sum, m)
	}
	return sum
}
