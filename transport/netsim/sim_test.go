package netsim

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"net/netip"
	"testing"
	"time"
)

var (
	t0    = time.Unix(1_700_000_000, 0)
	alice = netip.MustParseAddrPort("10.0.0.1:5000")
	bob   = netip.MustParseAddrPort("10.0.0.2:40000")
)

func newSim(t testing.TB, seed uint64, c Conditions) *Sim {
	t.Helper()
	s, err := New(Config{Seed: seed, Conditions: c})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// run sends n numbered packets alice→bob, one every gap, and returns
// every delivery after all are due.
func run(s *Sim, n int, gap time.Duration) []Packet {
	var got []Packet
	now := t0
	buf := make([]byte, 8)
	for i := range n {
		binary.LittleEndian.PutUint64(buf, uint64(i))
		s.Send(now, alice, bob, buf)
		got = append(got, s.Receive(now)...)
		now = now.Add(gap)
	}
	return append(got, s.Receive(now.Add(time.Hour))...)
}

func index(p Packet) int { return int(binary.LittleEndian.Uint64(p.Data)) }

var rough = Conditions{
	Latency: 100 * time.Millisecond, Jitter: 20 * time.Millisecond,
	Loss: 0.05, Duplicate: 0.01, Reorder: 0.01, ReorderDelay: 30 * time.Millisecond,
	Bandwidth: 100_000, QueueBytes: 2000,
}

func TestSameSeedSameDeliveries(t *testing.T) {
	a := run(newSim(t, 7, rough), 5000, time.Millisecond)
	b := run(newSim(t, 7, rough), 5000, time.Millisecond)
	c := run(newSim(t, 8, rough), 5000, time.Millisecond)
	if len(a) != len(b) {
		t.Fatalf("same seed: %d and %d deliveries", len(a), len(b))
	}
	for i := range a {
		if a[i].Due != b[i].Due || !bytes.Equal(a[i].Data, b[i].Data) || a[i].From != b[i].From || a[i].To != b[i].To {
			t.Fatalf("same seed: delivery %d differs: %+v vs %+v", i, a[i], b[i])
		}
	}
	same := len(a) == len(c)
	for i := 0; same && i < len(a); i++ {
		same = a[i].Due == c[i].Due && bytes.Equal(a[i].Data, c[i].Data)
	}
	if same {
		t.Fatal("another seed gave the same deliveries")
	}
}

func TestLossRate(t *testing.T) {
	const n = 40_000
	for _, loss := range []float64{0.01, 0.05, 0.25} {
		got := run(newSim(t, 1, Conditions{Loss: loss}), n, time.Millisecond)
		rate := 1 - float64(len(got))/n
		// Allow 4 binomial standard deviations (0.0022 at 25 %).
		if math.Abs(rate-loss) > 4*math.Sqrt(loss*(1-loss)/n) {
			t.Errorf("loss %.2f: measured %.4f", loss, rate)
		}
	}
}

func TestBurstLoss(t *testing.T) {
	const n = 100_000
	got := run(newSim(t, 1, Conditions{Burst: BurstLoss(0.10, 5)}), n, time.Millisecond)
	arrived := make([]bool, n)
	for _, p := range got {
		arrived[index(p)] = true
	}
	lost, bursts := 0, 0
	for i := range n {
		if !arrived[i] {
			lost++
			if i == 0 || arrived[i-1] {
				bursts++
			}
		}
	}
	rate, mean := float64(lost)/n, float64(lost)/float64(bursts)
	if math.Abs(rate-0.10) > 0.01 || math.Abs(mean-5) > 0.3 {
		t.Fatalf("loss %.4f in bursts of %.2f on average, want 0.10 in bursts of 5", rate, mean)
	}
}

func TestLatencyAndJitterBounds(t *testing.T) {
	const lat, jit = 100 * time.Millisecond, 20 * time.Millisecond
	got := run(newSim(t, 3, Conditions{Latency: lat, Jitter: jit}), 20_000, time.Millisecond)
	if len(got) != 20_000 {
		t.Fatalf("%d of 20000 delivered on a lossless link", len(got))
	}
	lo, hi, sum, swapped := time.Hour, time.Duration(0), time.Duration(0), 0
	for i, p := range got {
		d := p.Due.Sub(p.Sent)
		lo, hi, sum = min(lo, d), max(hi, d), sum+d
		if i > 0 && index(p) < index(got[i-1]) {
			swapped++
		}
	}
	if lo < lat-jit || hi > lat+jit {
		t.Fatalf("delays in [%v, %v], want within [%v, %v]", lo, hi, lat-jit, lat+jit)
	}
	if lo > lat-jit+time.Millisecond || hi < lat+jit-time.Millisecond {
		t.Fatalf("delays in [%v, %v] do not span the jitter", lo, hi)
	}
	if mean := sum / time.Duration(len(got)); mean < lat-time.Millisecond || mean > lat+time.Millisecond {
		t.Fatalf("mean delay %v, want %v", mean, lat)
	}
	if swapped == 0 {
		t.Fatal("jitter of 20ms on packets 1ms apart never reordered")
	}
	// Zero jitter: exact latency, order kept.
	for i, p := range run(newSim(t, 3, Conditions{Latency: lat}), 1000, time.Millisecond) {
		if p.Due.Sub(p.Sent) != lat || index(p) != i {
			t.Fatalf("packet %d: delay %v, position %d", index(p), p.Due.Sub(p.Sent), i)
		}
	}
}

func TestDuplication(t *testing.T) {
	const n = 50_000
	s := newSim(t, 4, Conditions{Latency: 10 * time.Millisecond, Duplicate: 0.01})
	got := run(s, n, time.Millisecond)
	seen := make([]int, n)
	for _, p := range got {
		seen[index(p)]++
	}
	twice := 0
	for _, c := range seen {
		if c == 0 || c > 2 {
			t.Fatalf("a packet arrived %d times", c)
		}
		if c == 2 {
			twice++
		}
	}
	if c := s.Counters(); uint64(twice) != c.Duplicated || math.Abs(float64(twice)/n-0.01) > 0.002 {
		t.Fatalf("%d duplicated (counter %d), want about 1%%", twice, c.Duplicated)
	}
}

func TestReorder(t *testing.T) {
	const lat, extra = 50 * time.Millisecond, 30 * time.Millisecond
	s := newSim(t, 5, Conditions{Latency: lat, Reorder: 0.1, ReorderDelay: extra})
	const n = 10_000
	got := run(s, n, 10*time.Millisecond)
	pos, isHeld := make([]int, n), make([]bool, n)
	held := 0
	for i, p := range got {
		pos[index(p)] = i
		switch d := p.Due.Sub(p.Sent); d {
		case lat:
		case lat + extra:
			held++
			isHeld[index(p)] = true
		default:
			t.Fatalf("delay %v, want %v or %v", d, lat, lat+extra)
		}
	}
	// Packets are 10 ms apart: the next one overtakes a held packet
	// unless it is held too.
	for i := range n - 1 {
		if isHeld[i] && !isHeld[i+1] && pos[i+1] > pos[i] {
			t.Fatalf("held packet %d not overtaken by %d", i, i+1)
		}
	}
	if c := s.Counters(); uint64(held) != c.Reordered || held < 900 || held > 1100 {
		t.Fatalf("%d packets held back (counter %d), want about 1000", held, c.Reordered)
	}
}

func TestBandwidthQueueAndTailDrop(t *testing.T) {
	// 1000 bytes/s, 500-byte queue, 10 ms latency; ten 100-byte packets
	// at once: five fit in the queue and leave 100 ms apart.
	s := newSim(t, 6, Conditions{Latency: 10 * time.Millisecond, Bandwidth: 1000, QueueBytes: 500})
	data := make([]byte, 100)
	for range 10 {
		s.Send(t0, alice, bob, data)
	}
	got := s.Receive(t0.Add(time.Hour))
	if len(got) != 5 || s.Counters().QueueDropped != 5 {
		t.Fatalf("%d delivered, %d tail-dropped; want 5 and 5", len(got), s.Counters().QueueDropped)
	}
	for i, p := range got {
		if want := time.Duration(i+1)*100*time.Millisecond + 10*time.Millisecond; p.Due.Sub(t0) != want {
			t.Fatalf("packet %d due after %v, want %v", i, p.Due.Sub(t0), want)
		}
	}
	// 250 ms later 2.5 packets have left the queue: two more fit, the
	// next one waits behind them.
	now := t0.Add(250 * time.Millisecond)
	for range 3 {
		s.Send(now, alice, bob, data)
	}
	if c := s.Counters(); c.QueueDropped != 6 {
		t.Fatalf("%d tail-dropped after the queue drained, want 6", c.QueueDropped)
	}
	got = s.Receive(t0.Add(time.Hour))
	if len(got) != 2 || got[1].Due.Sub(t0) != 710*time.Millisecond {
		t.Fatalf("after draining: %d delivered, last due %v; want 2, 710ms", len(got), got[len(got)-1].Due.Sub(t0))
	}
	// The other direction has its own queue.
	s.Send(t0.Add(250*time.Millisecond), bob, alice, data)
	if got := s.Receive(t0.Add(time.Hour)); len(got) != 1 || got[0].Due.Sub(t0) != 360*time.Millisecond {
		t.Fatalf("reverse direction: %+v", got)
	}
}

func TestPerLinkConditionsAndCopies(t *testing.T) {
	s := newSim(t, 9, Conditions{Latency: 5 * time.Millisecond})
	if err := s.SetLink(alice, bob, Conditions{Loss: 1}); err != nil {
		t.Fatal(err)
	}
	data := []byte("hello")
	s.Send(t0, alice, bob, data)
	s.Send(t0, bob, alice, data)
	data[0] = 'J' // the sender reuses its buffer
	if due, ok := s.NextDue(); !ok || due != t0.Add(5*time.Millisecond) {
		t.Fatalf("NextDue = %v, %v", due, ok)
	}
	if got := s.Receive(t0.Add(4 * time.Millisecond)); len(got) != 0 {
		t.Fatalf("delivered early: %+v", got)
	}
	got := s.Receive(t0.Add(5 * time.Millisecond))
	if len(got) != 1 || got[0].From != bob || got[0].To != alice || string(got[0].Data) != "hello" {
		t.Fatalf("got %+v, want bob's hello only", got)
	}
	// SetConditions changes the defaults, not the link set on its own.
	if err := s.SetConditions(Conditions{}); err != nil {
		t.Fatal(err)
	}
	s.Send(t0.Add(time.Second), alice, bob, data)
	s.Send(t0.Add(time.Second), bob, alice, data)
	if got := s.Receive(t0.Add(time.Second)); len(got) != 1 || got[0].From != bob {
		t.Fatalf("after SetConditions: %+v", got)
	}
	c := s.Counters()
	if c.Sent+c.Duplicated != c.Delivered+c.Lost+c.QueueDropped+c.Pending || c.Lost != 2 {
		t.Fatalf("counters do not add up: %+v", c)
	}
}

func TestConditionsValidate(t *testing.T) {
	for _, c := range []Conditions{
		{Loss: 1.5}, {Loss: math.NaN()}, {Duplicate: -0.1}, {Latency: -1},
		{Bandwidth: -1}, {Burst: GilbertElliott{GoodToBad: 0.1}},
	} {
		if _, err := New(Config{Conditions: c}); !errors.Is(err, ErrConditions) {
			t.Errorf("%+v: err = %v, want ErrConditions", c, err)
		}
	}
	if err := rough.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestBurstLossEdges(t *testing.T) {
	for _, tc := range []struct {
		loss, burst float64
		want        float64 // share of packets lost
	}{{1, 5, 1}, {0.9, 1, 0.5}, {0, 5, 0}} {
		g := BurstLoss(tc.loss, tc.burst)
		if err := (Conditions{Burst: g}).Validate(); err != nil {
			t.Fatalf("BurstLoss(%v, %v) = %+v: %v", tc.loss, tc.burst, g, err)
		}
		const n = 20_000
		got := run(newSim(t, 2, Conditions{Burst: g}), n, time.Millisecond)
		if rate := 1 - float64(len(got))/n; math.Abs(rate-tc.want) > 0.02 {
			t.Errorf("BurstLoss(%v, %v): lost %.3f, want %.3f", tc.loss, tc.burst, rate, tc.want)
		}
	}
}
