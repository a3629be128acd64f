package statesync

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/vecmath"
)

// paddleShape is a co-op game's avatar: one part, a kinematic paddle that
// pushes objects and holds nothing.
func paddleShape() AvatarShape { return AvatarShape{Parts: 1, Speed: 20} }

// octoShape is an avatar of every part the model takes: a root, limbs
// near it (two of which hold) and one coded whole (reach 0).
func octoShape() AvatarShape {
	s := AvatarShape{Parts: MaxParts, Speed: 25}
	for k := 1; k < MaxParts; k++ {
		s.Reach[k] = 2
		s.Holds[k] = k == 1 || k == 4
	}
	s.Reach[6] = 0
	return s
}

// grabberShape is a hand that holds (the root) and a thumb near it.
func grabberShape() AvatarShape {
	return AvatarShape{Parts: 2, Reach: [MaxParts]float64{1: 1}, Holds: [MaxParts]bool{true}, Speed: 10}
}

func testShapes() []AvatarShape {
	return []AvatarShape{toyShape(), paddleShape(), octoShape(), grabberShape()}
}

// shapedCodec returns the codec of a guest of a toy of shape and objects
// cubes.
func shapedCodec(t testing.TB, shape AvatarShape, objects int) wireCodec {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Player = 1
	n, err := newNode(cfg, newShapedToy(1, min(objects, 8), 0, shape, 0, false), false)
	if err != nil {
		t.Fatal(err)
	}
	n.wc.objects = objects // the held ids' range, without building that many cubes
	return n.wc
}

func TestAvatarShapeIsChecked(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*AvatarShape)
		want string
	}{
		{"no parts", func(s *AvatarShape) { s.Parts = 0 }, "0 parts, want 1 to 8"},
		{"too many parts", func(s *AvatarShape) { s.Parts = MaxParts + 1 }, "9 parts, want 1 to 8"},
		{"no speed", func(s *AvatarShape) { s.Speed = 0 }, "speed 0 m/s"},
		{"root reach", func(s *AvatarShape) { s.Reach[0] = 1 }, "reach of the root 1"},
		{"negative reach", func(s *AvatarShape) { s.Reach[2] = -1 }, "part 2's reach -1 m"},
		{"reach past the bound", func(s *AvatarShape) { s.Reach[1] = maxAvatarReach + 1 }, "part 1's reach 17 m"},
		{"a part past the shape", func(s *AvatarShape) { s.Holds[3] = true }, "part 3 has a reach or holds, but the shape has 3 parts"},
	} {
		shape := toyShape()
		c.edit(&shape)
		_, err := NewHost(DefaultConfig(), newShapedToy(0, 2, 0, shape, 1, false))
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrConfig saying %q", c.name, err, c.want)
		}
	}
	for _, shape := range testShapes() {
		if _, err := NewHost(DefaultConfig(), newShapedToy(0, 2, 0, shape, 0, false)); err != nil {
			t.Errorf("%+v: %v", shape, err)
		}
	}
}

// TestAnotherShapeIsRefusedOnBothSides: a guest whose game declares
// another avatar shape than the host's is refused by the host, and
// refuses the host's packets, each side's error naming the difference.
func TestAnotherShapeIsRefusedOnBothSides(t *testing.T) {
	otherReach := toyShape()
	otherReach.Reach[2] = 1
	otherHolds := toyShape()
	otherHolds.Holds[2] = false
	for _, c := range []struct {
		name      string
		guest     AvatarShape
		host, gst string // what each side's error says
	}{
		{"parts", paddleShape(), "player 1's avatar has 1 parts, this game's 3", "player 0's avatar has 3 parts, this game's 1"},
		{"holds", otherHolds, "player 1's avatar holds with parts {1}, this game's with {1, 2}", "player 0's avatar holds with parts {1, 2}, this game's with {1}"},
		{"reach", otherReach, "player 1's avatar has this game's 3 parts and holds, but another reach", "player 0's avatar has this game's 3 parts and holds, but another reach"},
	} {
		hand := min(1, c.guest.Parts-1)
		hostErr, guestErr := shapeMatch(t, newToy(0, 4), newShapedToy(1, 4, 0, c.guest, hand, false))
		if !errors.Is(hostErr, ErrAvatarShape) || !strings.Contains(hostErr.Error(), c.host) {
			t.Errorf("%s: the host says %v, want %q", c.name, hostErr, c.host)
		}
		if !errors.Is(guestErr, ErrAvatarShape) || !strings.Contains(guestErr.Error(), c.gst) {
			t.Errorf("%s: the guest says %v, want %q", c.name, guestErr, c.gst)
		}
	}
	// A game without avatars and one with: both refuse.
	hostErr, guestErr := shapeMatch(t, newCoop(0, 4), newToy(1, 4))
	if !errors.Is(hostErr, ErrAvatarShape) || !strings.Contains(hostErr.Error(), "the sender's game has avatars, this one has none") {
		t.Errorf("a host without avatars says %v", hostErr)
	}
	if !errors.Is(guestErr, ErrAvatarShape) || !strings.Contains(guestErr.Error(), "the sender's game has no avatars, this one's have 3 parts") {
		t.Errorf("its guest with avatars says %v", guestErr)
	}
}

// shapeMatch runs a host of hg and a guest of gg for a second in virtual
// time, and returns the last error each side's Receive returned; the
// guest's objects must not have moved the host's.
func shapeMatch(t *testing.T, hg, gg Game) (hostErr, guestErr error) {
	t.Helper()
	host, err := NewHost(DefaultConfig(), hg)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Player = 1
	now := simmatch.Epoch
	guest, err := NewGuest(cfg, gg, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Join(now, 0); err != nil {
		t.Fatal(err)
	}
	for range 60 {
		now = now.Add(time.Second / 60)
		var toGuest, toHost [][]byte
		if err := host.Update(now, func(_ int, d []byte) { toGuest = append(toGuest, bytes.Clone(d)) }); err != nil {
			t.Fatal(err)
		}
		if err := guest.Update(now, func(d []byte) { toHost = append(toHost, bytes.Clone(d)) }); err != nil {
			t.Fatal(err)
		}
		for _, d := range toGuest {
			if err := guest.Receive(now, d); err != nil {
				guestErr = err
			}
		}
		for _, d := range toHost {
			if err := host.Receive(now, 0, d); err != nil {
				hostErr = err
			}
		}
	}
	if c := host.Counters(); c.Accepted != 0 || host.relayed[1] {
		t.Fatalf("the host took from a refused guest: %+v, relayed %v", c, host.relayed[1])
	}
	return hostErr, guestErr
}

// newShapedMatch is a host and three guests of the toy of shape over the
// simulator, the sphere being part hand.
func newShapedMatch(t *testing.T, cubes int, cond netsim.Conditions, shape AvatarShape, hand int) *testMatch {
	t.Helper()
	tm := &testMatch{t: t, hg: newShapedToy(0, cubes, 0, shape, hand, true)}
	var err error
	if tm.host, err = NewHost(DefaultConfig(), tm.hg); err != nil {
		t.Fatal(err)
	}
	if tm.m, err = simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 11, Conditions: cond}}, tm.host); err != nil {
		t.Fatal(err)
	}
	for p := Player(1); p < MaxPlayers; p++ {
		g := newShapedToy(p, cubes, 0, shape, hand, true)
		cfg := DefaultConfig()
		cfg.Player = p
		guest, err := NewGuest(cfg, g, tm.m.Now())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tm.m.Join(guest); err != nil {
			t.Fatal(err)
		}
		tm.guests, tm.gg = append(tm.guests, guest), append(tm.gg, g)
	}
	return tm
}

// avatarError returns the largest distance between a part of a player's
// avatar as it sees it and as another player sees it.
func (tm *testMatch) avatarError(shape AvatarShape) float64 {
	games := append([]*toyGame{tm.hg}, tm.gg...)
	worst := 0.0
	for p, own := range games {
		for q, other := range games {
			if p == q {
				continue
			}
			for k := range shape.Parts {
				d := own.avatars[p].Parts[k].Pose.Pos.Sub(other.avatars[p].Parts[k].Pose.Pos).Length()
				worst = max(worst, d)
			}
		}
	}
	return worst
}

// TestPaddlesAndLimbsPlayAMatch: two games the VR table's avatar could
// not take play a match over a lossy link: paddles (a one-part avatar that
// pushes cubes and holds nothing) and an eight-part body whose limbs
// follow its hand. Every player pushes a cube of its own across the row;
// the pushes take authority, the cubes move, and when the players stand
// still every machine sees every avatar where its player has it (within
// the avatar grid) and every cube with the host's bits.
func TestPaddlesAndLimbsPlayAMatch(t *testing.T) {
	for _, c := range []struct {
		name  string
		shape AvatarShape
		hand  int
	}{{"paddle", paddleShape(), 0}, {"limbs", octoShape(), 1}} {
		t.Run(c.name, func(t *testing.T) {
			tm := newShapedMatch(t, 8, netsim.Conditions{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.1}, c.shape, c.hand)
			start := make([]vecmath.Vec3, 4)
			for p := range Player(MaxPlayers) {
				i := 2 * int(p) // each player's own cube
				start[p] = tm.hg.Object(i).Position
				tm.handTo(p, start[p].Add(vecmath.V3(0, 0, 1.5)), false)
			}
			tm.run(2 * time.Second)
			moving := 0.0
			for p := range Player(MaxPlayers) {
				tm.handTo(p, start[p].Add(vecmath.V3(0, 0, -2)), false)
			}
			for range 10 {
				tm.run(100 * time.Millisecond)
				moving = max(moving, tm.avatarError(c.shape))
			}
			// 6 m/s over the playback delay and the link: well within a metre.
			if moving > 1.5 {
				t.Errorf("while moving, a player sees another's avatar %.2f m off", moving)
			}
			for p := range Player(MaxPlayers) {
				tm.handTo(p, start[p].Add(vecmath.V3(0, 0, 3)), false)
			}
			tm.run(6 * time.Second)
			if d := tm.avatarError(c.shape); d > 0.002 {
				t.Errorf("standing still, a player sees another's avatar %.4f m off", d)
			}
			for p := range Player(MaxPlayers) {
				if i := 2 * int(p); tm.hg.Object(i).Position.Sub(start[p]).Length() < 0.5 {
					t.Errorf("player %d's cube did not move: %v from %v", p, tm.hg.Object(i).Position, start[p])
				}
			}
			if d := tm.differing(); len(d) != 0 {
				t.Errorf("objects %v differ", d)
			}
			hc := tm.host.Counters()
			if hc.Accepted == 0 || hc.Forged != 0 || hc.Implausible != 0 || hc.Malformed != 0 {
				t.Errorf("host counters %+v", hc)
			}
		})
	}
}

// FuzzAvatarDecode feeds the avatar decoder of each test shape arbitrary
// bytes after a valid packet head: it must never panic, and what it
// accepts must encode back to the same bytes and decode to the same
// avatars. The first byte picks the shape and the coder.
func FuzzAvatarDecode(f *testing.F) {
	shapes := testShapes()
	codecs := make([]wireCodec, len(shapes))
	for s, shape := range shapes {
		codecs[s] = shapedCodec(f, shape, 6)
		for _, c := range []Coder{CoderPlain, CoderRange} {
			a := avatarSample{player: 2, time: 77, offset: 9}
			for k := range shape.Parts {
				a.avatar.Parts[k].Pose = vecmath.Transform{Pos: vecmath.V3(1, 2, 3).Add(limbOffset(k)), Rot: vecmath.QuatIdentity}
				if shape.Holds[k] {
					a.avatar.Parts[k].Held = Held{Holding: true, Object: 3, Relative: vecmath.TransformIdentity}
					a.held[k] = Version{4, 5}
				}
			}
			a.avatar.Parts[shape.Parts-1].Pose.Pos = vecmath.V3(9, 1, -3) // out of reach
			data := encodePacket(f, codecs[s], c, packet{tick: 80, player: 2, present: 7, avatars: []avatarSample{a}})
			data[0] |= byte(s) << 4
			f.Add(data)
		}
	}
	objects, avatars := newReceivedRing(6), newRing[avatarBaseline](MaxPlayers) // no baselines
	find := &lookup{objects: &objects, avatars: &avatars, seq: fuzzSeq}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 1 {
			return
		}
		wc := codecs[int(data[0]>>4)%len(codecs)]
		data = append([]byte{data[0] & 0x0F}, data[1:]...)
		roundTrip(t, wc, find, data)
	})
}
