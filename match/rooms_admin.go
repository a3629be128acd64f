package match

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/netphys/netphys/netmodel/udpdrive"
)

// The admin API of a rooms server (RoomsConfig.Admin), for the backend
// (tokenservice.EndAt):
//
//	GET    /matches       the running matches, as JSON (RoomInfo)
//	DELETE /matches/{id}  end one: its players get a bye saying the backend
//	                      ended it; 404 if no such match runs
//
// It has no authentication of its own: listen on a private address.

// RoomInfo is a running match as the admin API lists it.
type RoomInfo struct {
	ID      string    `json:"id"`
	Model   string    `json:"model"`
	Layout  string    `json:"layout,omitempty"`
	Players int       `json:"players"` // the match's, as its token says
	Joined  int       `json:"joined"`  // in the match now
	Opened  time.Time `json:"opened"`
	Failed  string    `json:"failed,omitempty"`
	// CPUPerTickMs, UpKbps and DownKbps are the last second's
	// (udpdrive.MatchFigures).
	CPUPerTickMs float64 `json:"cpu_per_tick_ms"`
	UpKbps       float64 `json:"up_kbps"`
	DownKbps     float64 `json:"down_kbps"`
}

// loopCalls hands functions to the loop's goroutine, which runs them
// between frames: the Rooms and the lobby are its own.
type loopCalls struct {
	c       chan func(now time.Time)
	stopped chan struct{} // closed when the loop has returned
}

func newLoopCalls() *loopCalls {
	return &loopCalls{c: make(chan func(time.Time)), stopped: make(chan struct{})}
}

var errStopped = errors.New("rooms: the server is stopping")

// do runs f on the loop's goroutine and waits for it.
func (l *loopCalls) do(ctx context.Context, f func(now time.Time)) error {
	done := make(chan struct{})
	select {
	case l.c <- func(now time.Time) { f(now); close(done) }:
	case <-ctx.Done():
		return ctx.Err()
	case <-l.stopped:
		return errStopped
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run runs the functions waiting, on the loop's goroutine.
func (l *loopCalls) run(now time.Time) {
	for {
		select {
		case f := <-l.c:
			f(now)
		default:
			return
		}
	}
}

// adminHandler serves the admin API of rooms.
func adminHandler(rooms *udpdrive.Rooms, lobby *roomLobby, calls *loopCalls) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /matches", func(w http.ResponseWriter, r *http.Request) {
		figs := map[string]udpdrive.MatchFigures{}
		for _, f := range rooms.Figures().Matches {
			figs[f.ID] = f
		}
		var out []RoomInfo
		err := calls.do(r.Context(), func(time.Time) {
			out = []RoomInfo{}
			for _, m := range rooms.Matches(nil) {
				rm := lobby.rooms[m.ID()]
				if rm == nil {
					continue
				}
				f := figs[m.ID()]
				info := RoomInfo{ID: m.ID(), Model: rm.spec.Model, Layout: rm.spec.Layout, Players: rm.spec.Players, Joined: m.Players(),
					Opened: m.Opened().UTC(), CPUPerTickMs: ms(f.CPUPerTick), UpKbps: f.UpKbps, DownKbps: f.DownKbps}
				if err := m.Err(); err != nil {
					info.Failed = err.Error()
				}
				out = append(out, info)
			}
		})
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	})
	mux.HandleFunc("DELETE /matches/{id}", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		var endErr error
		err := calls.do(r.Context(), func(now time.Time) {
			endErr = rooms.End(now, id, "the backend ended the match")
		})
		switch {
		case err != nil:
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
		case errors.Is(endErr, udpdrive.ErrNoSuchMatch):
			http.Error(w, fmt.Sprintf("no match %.80q runs here", id), http.StatusNotFound)
		case endErr != nil:
			http.Error(w, endErr.Error(), http.StatusInternalServerError)
		default:
			lobby.log.Info("rooms: the backend ended a match", "match", id)
			fmt.Fprintf(w, "match %s ended\n", id)
		}
	})
	return mux
}
