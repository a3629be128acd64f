package statesync

import (
	"errors"
	"fmt"
	"time"
)

// ErrSeatHeld is JoinClient's error for a client in a slot whose seat is
// held for the guest who left it.
var ErrSeatHeld = errors.New("statesync: the seat is held for the guest who left it")

// seatHold is who a guest seat belongs to: the client id of its guest,
// if the driver named it, and when it left (zero: seated, or never);
// implausible is the guest's count of implausible claims when it left,
// which it takes back with it (JoinClient).
type seatHold struct {
	id          uint64
	known       bool
	away        time.Time
	implausible uint64
}

// JoinClient implements netmodel.Identified: Join, for a client the
// driver names by its client id. A guest's seat is its slot (the guest
// plays the player its slot makes it), so the host cannot move a guest
// that comes back to its old seat; it holds the seat for it instead:
// for Config.RejoinGrace after a named guest left, a client with another
// id in that slot is refused (ErrSeatHeld), and the guest coming back,
// which netcode gives the lowest free slot (its own, unless a lower one
// came free), is seated there again (Counters.Rejoins). The others see
// it as they see any guest taking a seat: present from the host's next
// packet, its avatar a jitter buffer after its first packets. A guest
// dropped for implausible claims (Config.MaxImplausible) has no seat
// held, and its client id is refused (ErrDropped): coming back would
// otherwise start its count afresh.
func (h *Host) JoinClient(now time.Time, slot int, clientID uint64) error {
	p, ok := seat(slot)
	if !ok {
		return fmt.Errorf("%w: slot %d", ErrFull, slot)
	}
	if h.isBanned(clientID) {
		return fmt.Errorf("%w: client %d was dropped from this match and may not take a seat again", ErrDropped, clientID)
	}
	hold := h.holds[p]
	held := hold.known && !hold.away.IsZero() && now.Sub(hold.away) < h.cfg.RejoinGrace
	if held && hold.id != clientID {
		left := now.Sub(hold.away)
		return fmt.Errorf("%w: seat %d (slot %d) is kept %v more for the guest who left it %v ago; connect again then, or to a table with a free seat",
			ErrSeatHeld, p, slot, (h.cfg.RejoinGrace - left).Round(time.Second), left.Round(time.Second))
	}
	// Its implausible claims come along, to whichever seat: a guest that
	// left and came back every MaxImplausible claims would otherwise
	// never be dropped.
	var implausible uint64
	for q := range h.holds {
		if o := &h.holds[q]; o.known && o.id == clientID {
			implausible = max(implausible, o.implausible)
		}
	}
	if err := h.Join(now, slot); err != nil {
		return err
	}
	if held {
		h.stats.Rejoins++
	}
	// Back in another seat (a lower slot came free): the old one is
	// nobody's.
	for q := range h.holds {
		if o := &h.holds[q]; o.known && o.id == clientID {
			*o = seatHold{}
		}
	}
	h.holds[p] = seatHold{id: clientID, known: true}
	h.implausibleBy[p] = implausible
	return nil
}
