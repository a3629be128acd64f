package simmatch

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel"
)

// lobbyServer is a server that waits for want players and says so.
type lobbyServer struct {
	echoServer
	want int
}

func (s *lobbyServer) Lobby() (joined, want int) { return len(s.joined), s.want }

// waitingClient reports whether its session runs.
type waitingClient struct {
	pingClient
	running bool
}

func (c *waitingClient) Running() bool { return c.running }

func TestRunSaysWhenTheSessionNeverStarts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		server netmodel.Server
		want   string
	}{
		{"lobby", &lobbyServer{want: 4}, "2 of the 4 players it waits for have joined"},
		{"plain", &echoServer{}, "2 clients are in the match"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := New(Config{StartWithin: 3 * time.Second}, tc.server)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if _, err := m.Join(&waitingClient{}); err != nil {
					t.Fatal(err)
				}
			}
			if err := m.Run(2 * time.Second); err != nil {
				t.Fatalf("before the deadline: %v", err)
			}
			err = m.Run(time.Minute)
			if !errors.Is(err, ErrNotStarted) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want ErrNotStarted saying %q", err, tc.want)
			}
			if e := m.Elapsed(); e < 3*time.Second || e > 3*time.Second+time.Second/30 {
				t.Fatalf("stopped after %v, want just past the 3 s deadline", e)
			}
		})
	}
}

func TestRunningClientsAndNegativeStartWithinNeverStop(t *testing.T) {
	for _, tc := range []struct {
		within  time.Duration
		running bool
	}{{0, true}, {-1, false}} {
		m, err := New(Config{StartWithin: tc.within}, &lobbyServer{want: 4})
		if err != nil {
			t.Fatal(err)
		}
		c := &waitingClient{running: tc.running}
		if _, err := m.Join(c); err != nil {
			t.Fatal(err)
		}
		if err := m.Run(2 * DefaultStartWithin); err != nil {
			t.Fatalf("StartWithin %v, running %v: %v", tc.within, tc.running, err)
		}
		if len(c.rtts) == 0 {
			t.Fatalf("StartWithin %v, running %v: the client never heard back", tc.within, tc.running)
		}
	}
}

func TestALateJoinerGetsItsOwnDeadline(t *testing.T) {
	m, err := New(Config{StartWithin: 3 * time.Second}, &lobbyServer{want: 2})
	if err != nil {
		t.Fatal(err)
	}
	first := &waitingClient{}
	if _, err := m.Join(first); err != nil {
		t.Fatal(err)
	}
	if err := m.Run(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	// The session starts for the first client when the second joins; the
	// second has 3 s from its own join.
	first.running = true
	if _, err := m.Join(&waitingClient{}); err != nil {
		t.Fatal(err)
	}
	if err := m.Run(2 * time.Second); err != nil {
		t.Fatalf("the second client's deadline ran from the first's join: %v", err)
	}
	if err := m.Run(2 * time.Second); !errors.Is(err, ErrNotStarted) || !strings.Contains(err.Error(), "slot 1") ||
		!strings.Contains(err.Error(), "all 2 players have joined") {
		t.Fatalf("got %v, want ErrNotStarted for slot 1 with every player in", err)
	}
}
