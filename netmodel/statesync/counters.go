package statesync

// Counters are what a host or a guest counts. Claims are a guest's
// updates and grabs as the host judges them; a guest counts what the host
// overruled.
type Counters struct {
	Steps           uint64
	PacketsSent     uint64
	PacketsReceived uint64
	// Malformed counts packets that failed to decode or came from a seat
	// the packet denies; none of their content was applied.
	Malformed uint64
	// Duplicates counts datagrams received twice (the network copied
	// them); Late counts packets older than the endpoint's window and
	// updates older than one already taken for the same object from the
	// same sender (reordered): none of them is applied.
	Duplicates, Late uint64
	// Flood counts, on the host, datagrams a guest sent beyond its rate
	// (floodRate a step, floodBurst at once), refused unread.
	Flood uint64
	// FromDropped counts, on the host, datagrams from a guest it dropped
	// for implausible claims (ErrDropped), refused unread.
	FromDropped uint64
	// Accepted counts guest updates the host applied; Stale those it
	// dropped because its own claims were as new or newer (lost races,
	// updates sent before the guest heard of a newer claim).
	Accepted, Stale uint64
	// Forged counts claims the host rejected as impossible from an honest
	// guest: authority for another player, sequences far ahead, states
	// outside the arena.
	Forged uint64
	// Implausible counts claims the host overruled as physically
	// impossible from its own state (see Limits): too fast, too far,
	// out of reach, never touched.
	Implausible uint64
	// HeldElsewhere counts guest claims on an object another player holds.
	HeldElsewhere uint64
	// GrabsWon and GrabsLost count, on the host, grab claims accepted and
	// refused; on a guest, GrabsLost counts its own grabs the host gave
	// to another player.
	GrabsWon, GrabsLost uint64
	// Overruled counts, on a guest, objects under its authority that the
	// host's newer claims took back.
	Overruled uint64
	// Confirmed counts returns of authority to the default after rest: on
	// the host the confirmations it gave, on a guest those it received.
	Confirmed uint64
	// Reclaimed counts, on the host, objects under a guest's authority it
	// took back after they only crept for YieldTicks, and rests it
	// confirmed at its own resting state for a guest whose copy only
	// settled there.
	Reclaimed uint64
	// Resynced counts, on a guest, objects whose own newer version it gave
	// up for the host's (Config.Resync, MaxSequenceLead).
	Resynced uint64
	// Returned counts objects whose authority or holder went back to the
	// host when a guest left.
	Returned uint64
	// Rejoins counts, on the host, guests back in their seats (the same
	// client id) within Config.RejoinGrace of leaving them.
	Rejoins uint64
	// Predictable counts moving objects coded against a moving baseline,
	// Predicted those the ballistic prediction matched bit for bit;
	// FlightPredictable and FlightPredicted the same for those that flew
	// freely from the baseline on (their velocities are exactly what
	// gravity alone made of the baseline's; a contact changes them).
	Predictable, Predicted             uint64
	FlightPredictable, FlightPredicted uint64
	// PayloadBytes counts the bytes of the packets sent (the format byte
	// included, the transport's headers not); AvatarBytes the bytes their
	// avatars took, UpdateBytes those of their object updates (with the
	// flags between them) and UpdatesSent the updates.
	PayloadBytes, AvatarBytes, UpdateBytes, UpdatesSent uint64
	// Corrections counts network states applied to objects, Pops those
	// that moved an object by more than PopDistance.
	Corrections, Pops uint64
}

// Refusal is how many times the host refused something of its guests
// for one reason, for a summary or a metrics exporter (a counter
// labelled by Reason).
type Refusal struct {
	Reason string // snake_case, stable: a metric label
	Count  uint64
}

// Refusals appends every refusal the counters hold, one per reason, in a
// fixed order, zeros included: what the guests sent that the host did
// not take as it came.
func (c Counters) Refusals(dst []Refusal) []Refusal {
	return append(dst,
		Refusal{"malformed_packet", c.Malformed},       // undecodable, another seat's, another avatar shape
		Refusal{"duplicate_packet", c.Duplicates},      // a datagram received twice
		Refusal{"late_packet", c.Late},                 // older than the window, or than a state already taken
		Refusal{"packet_flood", c.Flood},               // over the rate: refused unread
		Refusal{"dropped_guest", c.FromDropped},        // from a guest dropped for implausible claims
		Refusal{"claim_stale", c.Stale},                // the host's claims as new or newer
		Refusal{"claim_forged", c.Forged},              // for another player, far ahead, outside the arena
		Refusal{"claim_implausible", c.Implausible},    // physically impossible from the host's state
		Refusal{"claim_on_held_cube", c.HeldElsewhere}, // on a cube another player holds
	)
}

// Refusals appends the host's refusals by reason (Counters.Refusals).
func (h *Host) Refusals(dst []Refusal) []Refusal { return h.Counters().Refusals(dst) }
