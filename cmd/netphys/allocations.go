package main

import (
	"time"
)

// allocations are the matches Agones allocated to a serve --rooms
// process (each allocation names one in the GameServer's annotation
// tokenservice.MatchAnnotation) whose rooms have not opened yet. The
// allocation counted such a match in the GameServer's Counter before its
// players arrive (tokenservice.Allocator.Counter), so serve counts it too,
// and a server whose last running match ends while one waits is not over:
// it must not go Shutdown under the new match's players. A match waits
// until its room opens (its first player's token) or for wait at most.
//
// Its methods take the time, so that tests drive it in virtual time.
type allocations struct {
	wait    time.Duration
	waiting []allocated // in the order the watch showed them
	// seen holds the match ids allocated or opened lately, and when: an
	// allocation the watch shows again (a late or repeated event, or one
	// whose players came first) is no new one. Forgotten after recall.
	seen  map[string]time.Time
	opens uint64 // the rooms opened so far (RoomsConfig.Opened)
}

// allocated is a match allocated whose room the figures do not count yet.
type allocated struct {
	id       string
	at       time.Time
	deadline time.Time
	// open numbers the match's room among the rooms opened (1 on); 0:
	// not open yet. The rooms' figures count it once their Opened
	// reaches open.
	open uint64
}

// recallAtLeast is the least time allocations remember a match id.
const recallAtLeast = 10 * time.Minute

func newAllocations(wait time.Duration) *allocations {
	return &allocations{wait: wait, seen: map[string]time.Time{}}
}

// allocate notes that the watch shows match id allocated at now, and
// reports whether it is new: then it waits for its room.
func (a *allocations) allocate(now time.Time, id string) bool {
	if _, ok := a.seen[id]; ok || id == "" {
		return false
	}
	a.seen[id] = now
	a.waiting = append(a.waiting, allocated{id: id, at: now, deadline: now.Add(a.wait)})
	return true
}

// opened notes that the rooms opened match id (any room, the default
// match's included: the rooms' figures count them all).
func (a *allocations) opened(now time.Time, id string) {
	a.opens++
	for i := range a.waiting {
		if w := &a.waiting[i]; w.id == id && w.open == 0 {
			w.open = a.opens
		}
	}
	if id != "" {
		a.seen[id] = now
	}
}

// settle drops the waiting matches whose rooms the figures count
// (figuresOpened: the rooms' Opened in the figures just read) and those
// not open whose wait has run out by now, which it returns.
func (a *allocations) settle(now time.Time, figuresOpened uint64) (expired []allocated) {
	kept := a.waiting[:0]
	for _, w := range a.waiting {
		switch {
		case w.open != 0 && figuresOpened >= w.open:
		case w.open == 0 && !now.Before(w.deadline):
			expired = append(expired, w)
		default:
			kept = append(kept, w)
		}
	}
	clear(a.waiting[len(kept):])
	a.waiting = kept
	recall := max(a.wait, recallAtLeast)
	for id, at := range a.seen { // order does not matter: each entry alone
		if now.Sub(at) > recall {
			delete(a.seen, id)
		}
	}
	return expired
}

// ids are the waiting matches' ids.
func (a *allocations) ids() []string {
	ids := make([]string, len(a.waiting))
	for i, w := range a.waiting {
		ids[i] = w.id
	}
	return ids
}

// drop forgets the waiting matches (a draining server opens none) and
// returns their ids.
func (a *allocations) drop() []string {
	ids := a.ids()
	a.waiting = a.waiting[:0]
	return ids
}
