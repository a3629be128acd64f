package main

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/wire"
)

// A minute of three bots over 120 ms RTT, 10 ms jitter and 5 % loss: the
// server confirms the predictions made clear of other crafts (at most
// 1 % corrected), bumps are mispredicted (the others' next inputs cannot
// be known) and corrected by reconciliation, by centimetres, knockouts
// are announced once each, in order, and at rest every client's world is
// the server's to the bit.
func TestAMinuteAt120msJitterAndLoss(t *testing.T) {
	var out strings.Builder
	opts := Options{Players: 3, Duration: time.Minute, Settle: 4 * time.Second, RTT: 120 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05, Seed: 1, Out: &out}
	r, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", r)
	for i, st := range r.Clients {
		if st.Compared < 2000 || st.Mispredicted*100 > st.Compared {
			t.Errorf("client %d: %d of %d predictions clear of other crafts corrected", i, st.Mispredicted, st.Compared)
		}
		if st.ComparedContact < 100 || st.MispredictedContact == 0 || st.Reconciles == 0 || st.ResimTicks == 0 {
			t.Errorf("client %d: %d of %d predictions near a bump corrected, %d reconciliations: did the crafts meet?", i, st.MispredictedContact, st.ComparedContact, st.Reconciles)
		}
		if st.CorrectionMax == 0 || st.CorrectionMax > 0.5 {
			t.Errorf("client %d: largest correction %.3f m", i, st.CorrectionMax)
		}
	}
	if r.Server.InputsGuessed == 0 || r.Server.InputsLate == 0 || r.Server.BadPackets != 0 {
		t.Errorf("server %+v: 5 %% loss should cost some inputs", r.Server)
	}
	if len(r.KOs) < 2 {
		t.Fatalf("knockouts %v: the bots did not fight", r.KOs)
	}
	for i := 1; i < len(r.KOs); i++ {
		if r.KOs[i].Tick < r.KOs[i-1].Tick {
			t.Fatalf("knockouts out of order: %v", r.KOs)
		}
	}
	if n := strings.Count(out.String(), "off the rink"); n != len(r.KOs) {
		t.Fatalf("%d knockout lines for %d knockouts:\n%s", n, len(r.KOs), out.String())
	}
	if !r.Resting || r.Apart != 0 {
		t.Fatalf("at rest %v, clients %.4f m from the server", r.Resting, r.Apart)
	}
}

func TestTheSameSeedPlaysTheSameMatch(t *testing.T) {
	opts := Options{Players: 4, Duration: 15 * time.Second, Settle: 3 * time.Second, RTT: 200 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.1, Seed: 3}
	r1, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r1, r2) {
		t.Fatalf("two runs of seed 3 differ:\n%+v\n%+v", r1, r2)
	}
	if err := r1.Check(); err != nil {
		t.Fatal(err)
	}
}

// Over real UDP on loopback: two players connect with netcode tokens,
// play, let go, and end with the server's world.
func TestOverUDP(t *testing.T) {
	r, err := Run(context.Background(), Options{Players: 2, Duration: 1500 * time.Millisecond, Settle: 3 * time.Second, UDP: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
	if len(r.Clients) != 2 || r.Server.Packets < 100 {
		t.Fatalf("%+v", r)
	}
}

func TestCommand(t *testing.T) {
	var out strings.Builder
	if err := command([]string{"-duration", "20s", "-players", "2", "-rtt", "80ms", "-loss", "0.02"}, &out); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); strings.Count(s, "predictions checked") != 2 || !strings.Contains(s, "the clients' worlds are the server's to 0.0000 m") {
		t.Fatalf("output:\n%s", s)
	}
	for _, args := range [][]string{{"-players", "0"}, {"-players", "5"}, {"-duration", "0s"}, {"-settle", "-1s"}, {"-loss", "1"}, {"-jitter", "-1ms"}, {"-nosuchflag"}} {
		if err := command(args, &out); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

// A stick's fourth value of Turn or Thrust is refused, so the server
// drops the packet; every valid stick round-trips.
func TestStickRefusesForgedValues(t *testing.T) {
	var s Stick
	if err := s.Serialize(wire.NewReader([]byte{0xff})); err == nil {
		t.Fatalf("read %+v from all ones", s)
	}
	for turn := int8(-1); turn <= 1; turn++ {
		for thrust := int8(-1); thrust <= 1; thrust++ {
			for _, boost := range []bool{false, true} {
				in := Stick{Turn: turn, Thrust: thrust, Boost: boost}
				w := wire.NewWriter(make([]byte, 4))
				if err := in.Serialize(w); err != nil {
					t.Fatal(err)
				}
				var got Stick
				if err := got.Serialize(wire.NewReader(w.Bytes())); err != nil || got != in {
					t.Fatalf("%+v read back as %+v, %v", in, got, err)
				}
			}
		}
	}
}

// FuzzStick: reading any bytes never panics, and what it reads writes
// back to the same stick.
func FuzzStick(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{0xff})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		var s Stick
		if s.Serialize(wire.NewReader(b)) != nil {
			return
		}
		if s.Turn < -1 || s.Turn > 1 || s.Thrust < -1 || s.Thrust > 1 {
			t.Fatalf("read %+v", s)
		}
		w := wire.NewWriter(make([]byte, 4))
		var again Stick
		if err := s.Serialize(w); err != nil {
			t.Fatal(err)
		}
		if err := again.Serialize(wire.NewReader(w.Bytes())); err != nil || again != s {
			t.Fatalf("%+v read back as %+v, %v", s, again, err)
		}
	})
}
