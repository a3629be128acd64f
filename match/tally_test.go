package match

import (
	"reflect"
	"testing"
)

// countingHost is a Host whose refusals a test sets.
type countingHost struct {
	Host
	counts []Count
}

func (h *countingHost) RefusalCounts() []Count { return h.counts }

// TestRefusalTallySumsTheMatches: the counts of a match that ended stay in
// the tally (a Prometheus counter never goes down) and add to the next's.
func TestRefusalTallySumsTheMatches(t *testing.T) {
	var tally RefusalTally
	first := &countingHost{counts: []Count{{"shot_too_late", 3}, {"shot_refused", 1}}}
	tally.watch(first)
	if got := tally.Counts(); !reflect.DeepEqual(got, first.counts) {
		t.Fatalf("first match: %v", got)
	}
	second := &countingHost{counts: []Count{{"shot_refused", 2}, {"input_too_late", 5}}}
	tally.watch(second)
	want := []Count{{"shot_too_late", 3}, {"shot_refused", 3}, {"input_too_late", 5}}
	if got := tally.Counts(); !reflect.DeepEqual(got, want) {
		t.Fatalf("second match: %v, want %v", got, want)
	}
	tally.watch(struct{ Host }{}) // a host that is no Refuser ends the second
	if got := tally.Counts(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after the second: %v, want %v", got, want)
	}
	if len(first.counts) != 2 || first.counts[1].Count != 1 {
		t.Fatalf("the tally changed a host's counts: %v", first.counts)
	}
}
