package reliable

// Sequence is a 16-bit packet sequence number. It wraps from 65535 to 0;
// compare two sequences with SequenceGreaterThan, never with < or >.
type Sequence uint16

// SequenceGreaterThan reports whether s1 is newer than s2, treating the
// 16-bit space as a circle: s1 is newer when it lies at most half the
// circle (32768) ahead of s2. This is reliable.c's
// reliable_sequence_greater_than, bit for bit.
func SequenceGreaterThan(s1, s2 Sequence) bool {
	return (s1 > s2 && s1-s2 <= 32768) || (s1 < s2 && s2-s1 > 32768)
}

// SequenceLessThan reports whether s1 is older than s2 (see SequenceGreaterThan).
func SequenceLessThan(s1, s2 Sequence) bool {
	return SequenceGreaterThan(s2, s1)
}
