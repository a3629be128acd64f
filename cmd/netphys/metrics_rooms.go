package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/netphys/netphys/netmodel/udpdrive"
)

// roomsSource is what a rooms collector reads at each scrape: a
// udpdrive.Rooms.
type roomsSource interface {
	Figures() udpdrive.RoomsFigures
	Refusals() []udpdrive.Refusal
}

// roomsCollector reads the figures of a server hosting many matches.
type roomsCollector struct {
	r                                  roomsSource
	matches, players, events, late     *prometheus.Desc
	cpu, kbps, refused                 *prometheus.Desc
	mPlayers, mLate, mCPU, mKbps, mBad *prometheus.Desc
}

// newRoomsCollector returns a Prometheus collector of the figures of r,
// a server hosting many matches (netphys serve --rooms): the process's,
// named netphys_rooms_*, and each running match's, named netphys_room_*
// with the labels match (its id) and model. The rates are those of the
// last second (udpdrive.RoomsFigures).
func newRoomsCollector(r roomsSource) prometheus.Collector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, labels, nil)
	}
	m := []string{"match", "model"}
	return &roomsCollector{r: r,
		matches:  d("netphys_rooms_matches", "Matches running."),
		players:  d("netphys_rooms_players", "Players in the running matches."),
		events:   d("netphys_rooms_matches_total", "Matches since the start: opened, closed, and failed (closed with an error, ended by the server included).", "event"),
		late:     d("netphys_rooms_late_ticks_total", "Frames the server stepped late: it fell behind 60 Hz."),
		cpu:      d("netphys_rooms_cpu_per_tick_seconds", "Mean wall time of a frame over the last second: every match's model calls, the driver and the sends."),
		kbps:     d("netphys_rooms_kbps", "Every match's traffic over the last second, kilobits per second, UDP and netcode overhead included.", "direction"),
		refused:  d("netphys_match_refused_total", "Clients refused at the door (config_mismatch, no_hello, join_refused, no_match, open_failed) or sent away from a match (dropped_<reason>, match_failed, match_ended).", "reason"),
		mPlayers: d("netphys_room_players", "Players in the match.", m...),
		mLate:    d("netphys_room_late_ticks_total", "Frames the server stepped late while the match ran.", m...),
		mCPU:     d("netphys_room_cpu_per_tick_seconds", "Mean time of the match's model calls per frame over the last second.", m...),
		mKbps:    d("netphys_room_kbps", "The match's traffic over the last second, kilobits per second.", append(m, "direction")...),
		mBad:     d("netphys_room_failed", "1 if the match failed and is sending its players away.", m...),
	}
}

func (c *roomsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.matches, c.players, c.events, c.late, c.cpu, c.kbps, c.refused, c.mPlayers, c.mLate, c.mCPU, c.mKbps, c.mBad} {
		ch <- d
	}
}

func (c *roomsCollector) Collect(ch chan<- prometheus.Metric) {
	f := c.r.Figures()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	gauge(c.matches, float64(len(f.Matches)))
	gauge(c.players, float64(f.Players))
	counter(c.events, f.Opened, "opened")
	counter(c.events, f.Closed, "closed")
	counter(c.events, f.Failed, "failed")
	counter(c.late, f.LateTicks)
	gauge(c.cpu, f.CPUPerTick.Seconds())
	gauge(c.kbps, f.UpKbps, "up")
	gauge(c.kbps, f.DownKbps, "down")
	for _, x := range c.r.Refusals() {
		counter(c.refused, x.Count, x.Reason)
	}
	for _, m := range f.Matches {
		gauge(c.mPlayers, float64(m.Players), m.ID, m.Kind)
		counter(c.mLate, m.LateTicks, m.ID, m.Kind)
		gauge(c.mCPU, m.CPUPerTick.Seconds(), m.ID, m.Kind)
		gauge(c.mKbps, m.UpKbps, m.ID, m.Kind, "up")
		gauge(c.mKbps, m.DownKbps, m.ID, m.Kind, "down")
		failed := 0.0
		if m.Failed {
			failed = 1
		}
		gauge(c.mBad, failed, m.ID, m.Kind)
	}
}
