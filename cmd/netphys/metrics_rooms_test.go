package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/netphys/netphys/netmodel/udpdrive"
)

type fakeRooms struct{ f udpdrive.RoomsFigures }

func (r fakeRooms) Figures() udpdrive.RoomsFigures { return r.f }
func (r fakeRooms) Refusals() []udpdrive.Refusal {
	return []udpdrive.Refusal{{Reason: "no_match", Count: 2}}
}

func TestRoomsCollectorNamesEveryMatch(t *testing.T) {
	r := fakeRooms{udpdrive.RoomsFigures{
		Matches: []udpdrive.MatchFigures{
			{ID: "m-1", Kind: "lockstep", Players: 4, LateTicks: 3, CPUPerTick: 200 * time.Microsecond, UpKbps: 40, DownKbps: 90},
			{ID: "m-2", Kind: "predict", Players: 2, Failed: true},
		},
		Opened: 5, Closed: 3, Failed: 1, Players: 6, LateTicks: 3, CPUPerTick: time.Millisecond, UpKbps: 40, DownKbps: 90,
	}}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(newRoomsCollector(r))
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	n := 0
	for _, f := range families {
		for _, m := range f.GetMetric() {
			key := f.GetName()
			for _, l := range m.GetLabel() {
				key += fmt.Sprintf(" %s=%s", l.GetName(), l.GetValue())
			}
			v := m.GetGauge().GetValue() + m.GetCounter().GetValue()
			got[key] = v
			n++
		}
	}
	for key, want := range map[string]float64{
		"netphys_rooms_matches":                                      2,
		"netphys_rooms_players":                                      6,
		"netphys_rooms_matches_total event=opened":                   5,
		"netphys_rooms_matches_total event=failed":                   1,
		"netphys_rooms_late_ticks_total":                             3,
		"netphys_rooms_cpu_per_tick_seconds":                         0.001,
		"netphys_rooms_kbps direction=down":                          90,
		"netphys_match_refused_total reason=no_match":                2,
		"netphys_room_players match=m-1 model=lockstep":              4,
		"netphys_room_players match=m-2 model=predict":               2,
		"netphys_room_late_ticks_total match=m-1 model=lockstep":     3,
		"netphys_room_cpu_per_tick_seconds match=m-1 model=lockstep": 0.0002,
		"netphys_room_kbps direction=up match=m-1 model=lockstep":    40,
		"netphys_room_failed match=m-2 model=predict":                1,
		"netphys_room_failed match=m-1 model=lockstep":               0,
	} {
		if v, ok := got[key]; !ok || v != want {
			t.Errorf("%s = %v (present %v), want %v", key, v, ok, want)
		}
	}
	if n != 10+2*6 {
		t.Errorf("%d metrics, want 10 of the process and 6 per match: %v", n, got)
	}
}
