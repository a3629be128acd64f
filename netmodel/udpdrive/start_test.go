package udpdrive

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel"
)

// lobbyClient is a countClient that reports whether its session runs.
type lobbyClient struct {
	countClient
	running bool
}

func (c *lobbyClient) Running() bool { return c.running }

func TestStepSaysWhenTheSessionNeverStarts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		within  time.Duration
		running bool
		model   netmodel.Client
		wantErr bool
	}{
		{"waiting past the deadline", 2 * time.Second, false, nil, true},
		{"running", 2 * time.Second, true, nil, false},
		{"waiting forever", -1, false, nil, false},
		{"a model that does not say", 2 * time.Second, false, &countClient{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, token := startServer(t, &sumServer{max: 1, counter: map[int]uint32{}})
			model := tc.model
			if model == nil {
				model = &lobbyClient{running: tc.running}
			}
			cfg := DefaultClientConfig()
			cfg.Logger, cfg.StartWithin = quiet, tc.within
			c, err := Dial(context.Background(), token(1), func(int) (netmodel.Client, error) { return model, nil }, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			// Step takes its time as an argument: no waiting on the clock.
			t0 := time.Now()
			if err := c.Step(t0); err != nil {
				t.Fatal(err)
			}
			if err := c.Step(t0.Add(2 * time.Second)); err != nil {
				t.Fatalf("at the deadline: %v", err)
			}
			err = c.Step(t0.Add(2*time.Second + time.Millisecond))
			if !tc.wantErr {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrNotStarted) || !strings.Contains(err.Error(), "has not started") {
				t.Fatalf("got %v, want ErrNotStarted", err)
			}
		})
	}
}
