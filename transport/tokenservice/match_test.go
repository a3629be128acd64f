package tokenservice

import (
	"errors"
	"strings"
	"testing"

	"github.com/netphys/netphys/transport/netcode"
)

func TestMatchRoundTripsThroughUserData(t *testing.T) {
	for _, m := range []Match{
		{ID: "m-1", Model: "lockstep", Layout: "tower20", Players: 4},
		{ID: strings.Repeat("x", MaxMatchID), Model: strings.Repeat("m", MaxMatchField), Game: strings.Repeat("g", MaxMatchField), Layout: strings.Repeat("l", MaxMatchField), Players: 255},
	} {
		ud, err := m.UserData()
		if err != nil {
			t.Fatal(err)
		}
		got, ok, err := MatchFromUserData(&ud)
		if err != nil || !ok || got != m {
			t.Fatalf("%+v: read back %+v, %v, %v", m, got, ok, err)
		}
	}
	var none netcode.UserData
	copy(none[:], "team=red")
	if _, ok, err := MatchFromUserData(&none); ok || err != nil {
		t.Fatalf("user data naming no match: ok %v, err %v", ok, err)
	}
}

func TestMatchRefusesWhatItCannotCarry(t *testing.T) {
	for _, tt := range []struct {
		m    Match
		want string
	}{
		{Match{Model: "lockstep", Players: 4}, "id"},
		{Match{ID: "m 1", Model: "lockstep", Players: 4}, "letters"},
		{Match{ID: "m", Model: "lockstep", Players: 0}, "players"},
		{Match{ID: "m", Model: "lockstep", Players: 256}, "players"},
		{Match{ID: "m", Model: strings.Repeat("m", MaxMatchField+1), Players: 2}, "model"},
		{Match{ID: "m", Model: "predict", Layout: "é", Players: 2}, "layout"},
	} {
		if _, err := tt.m.UserData(); !errors.Is(err, ErrMatch) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want an error naming %s", tt.m, err, tt.want)
		}
	}
	ud, _ := Match{ID: "m", Model: "lockstep", Players: 2}.UserData()
	bad := ud
	bad[3] = 2
	if _, ok, err := MatchFromUserData(&bad); !ok || err == nil || !strings.Contains(err.Error(), "version 2") {
		t.Errorf("another version: %v %v", ok, err)
	}
	bad = ud
	bad[4] = 250 // the id's length runs past the end
	if _, ok, err := MatchFromUserData(&bad); !ok || !errors.Is(err, ErrMatch) {
		t.Errorf("a length past the end: %v %v", ok, err)
	}
}

// FuzzMatchFromUserData: any user data read or fail, never panic, and
// what reads encodes back to the same match.
func FuzzMatchFromUserData(f *testing.F) {
	ud, _ := Match{ID: "m-1", Model: "lockstep", Layout: "tower20", Players: 4}.UserData()
	f.Add(ud[:])
	f.Add([]byte("NPM\x01\xff"))
	f.Add([]byte("team=red"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var ud netcode.UserData
		copy(ud[:], b)
		m, ok, err := MatchFromUserData(&ud)
		if !ok || err != nil {
			return
		}
		again, err := m.UserData()
		if err != nil {
			t.Fatalf("%+v read from %q does not encode: %v", m, b, err)
		}
		if back, _, err := MatchFromUserData(&again); err != nil || back != m {
			t.Fatalf("%+v encodes to what reads as %+v, %v", m, back, err)
		}
	})
}
