package statesync

// Seq is an authority or ownership sequence: 16 bits that wrap, compared
// within half their range.
type Seq uint16

// after returns how far s is ahead of t: positive when newer, negative
// when older, within ±32767.
func (s Seq) after(t Seq) int { return int(int16(s - t)) }

// Version orders the claims on one object: Own increments on every grab,
// Auth whenever a player takes authority and when an object under a
// player's authority comes to rest. Ownership beats authority, so
// versions compare by Own first.
type Version struct {
	Own, Auth Seq
}

// Compare returns +1 when v is newer than w, -1 when older, 0 when equal.
func (v Version) Compare(w Version) int {
	d := v.Own.after(w.Own)
	if d == 0 {
		d = v.Auth.after(w.Auth)
	}
	switch {
	case d > 0:
		return 1
	case d < 0:
		return -1
	}
	return 0
}

// lead returns how far v runs ahead of w in the sequence that decides the
// comparison, 0 when v is not newer.
func (v Version) lead(w Version) int {
	if d := v.Own.after(w.Own); d != 0 {
		return max(d, 0)
	}
	return max(v.Auth.after(w.Auth), 0)
}
