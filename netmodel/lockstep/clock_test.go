package lockstep

import "testing"

// TestClockFollowsTheFastestDatagram: the estimate is the largest
// server − local sample plus half the round trip; the applied offset
// jumps to the first estimate and then moves by at most the slew.
func TestClockFollowsTheFastestDatagram(t *testing.T) {
	var k clock
	// The server is 1000 ms ahead; datagrams take 50 to 90 ms.
	for i, transit := range []float64{70, 50, 90, 60} {
		local := float64(100 * i)
		k.sample(local, local+1000-transit, 50)
	}
	if k.target < 999 || k.target > 1001 {
		t.Fatalf("target %v, want 1000 (fastest sample 950 + half of a 100 ms round trip)", k.target)
	}
	if k.offset != 1000-70+50 {
		t.Fatalf("offset %v, want the first estimate %v", k.offset, 1000-70+50)
	}
	before := k.offset
	k.slew(100, 0.05)
	if d := k.offset - before; d < -5.0001 || d > 5.0001 {
		t.Fatalf("slewed by %v ms in 100 ms, want at most 5", d)
	}
}

// TestClockFollowsDrift: a client clock 0.3 % slow sees server − local
// grow; the estimate follows, and the decay lets it follow a fast clock
// too.
func TestClockFollowsDrift(t *testing.T) {
	for _, rate := range []float64{0.997, 1.003} {
		var k clock
		for i := range 60 * 120 { // 2 minutes at 60 Hz
			server := float64(i) * 1000 / 60
			local := server * rate
			k.sample(local+40*rate, server, 40) // 40 ms transit each way
			k.slew(1000.0/60, 0.05)
		}
		server := float64(60*120-1) * 1000 / 60
		local := server*rate + 40*rate
		if est := local + k.offset; est < server+40-10 || est > server+40+10 {
			t.Errorf("rate %v: estimated server clock %v at true %v", rate, est, server+40)
		}
	}
}

func TestWindowMax(t *testing.T) {
	var w windowMax
	if _, ok := w.get(0); ok {
		t.Fatal("an empty window has a maximum")
	}
	w.add(0, 5)
	w.add(3, 2)
	w.add(3, 4)
	if m, _ := w.get(9); m != 5 {
		t.Fatalf("max %v at second 9, want 5", m)
	}
	if m, _ := w.get(10); m != 4 {
		t.Fatalf("max %v at second 10, want 4 (second 0 left the window)", m)
	}
	w.add(13, 1) // reuses second 3's bucket
	if m, _ := w.get(13); m != 1 {
		t.Fatalf("max %v at second 13, want 1", m)
	}
}
