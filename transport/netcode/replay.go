package netcode

// ReplayBufferSize is the number of recent sequences remembered per
// connection: 256 covers seconds of traffic at 20 to 60 Hz.
const ReplayBufferSize = 256

// ReplayProtection rejects encrypted packets that were already received or
// are older than the window. The zero value is ready: nothing received.
//
// Use it in two steps around decryption, as the standard orders them:
// AlreadyReceived before (cheap, rejects replays without decrypting), then
// Advance once the packet authenticated, so forged sequences cannot move the
// window.
type ReplayProtection struct {
	mostRecent Sequence
	seen       [ReplayBufferSize]replaySlot
}

type replaySlot struct {
	seq  Sequence
	used bool // a flag rather than a sentinel: every uint64 is a valid sequence
}

// AlreadyReceived reports whether seq was received or is too old to tell.
func (r *ReplayProtection) AlreadyReceived(seq Sequence) bool {
	// Subtraction side, so sequences near 2^64 cannot wrap (errata §1).
	if r.mostRecent >= ReplayBufferSize && seq <= r.mostRecent-ReplayBufferSize {
		return true
	}
	s := &r.seen[seq%ReplayBufferSize]
	return s.used && s.seq >= seq
}

// Advance records seq as received.
func (r *ReplayProtection) Advance(seq Sequence) {
	if seq > r.mostRecent {
		r.mostRecent = seq
	}
	r.seen[seq%ReplayBufferSize] = replaySlot{seq: seq, used: true}
}
