package demo

import (
	"fmt"
	"time"

	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/viewer"
)

// publish sends both worlds and the live figures to the viewer.
func (r *run) publish() {
	down, up, pd, pu := r.link.traffic()
	st := r.link.serverEnd.Stats()
	secs := float64(r.tick) / tickRate
	rate := func(bytes uint64) float64 {
		if secs == 0 {
			return 0
		}
		return float64(bytes) * 8 / 1000 / secs
	}
	loss := viewer.Figure{Name: "loss", Value: st.PacketLoss, Unit: "%"}
	if st.PacketLossSamples == 0 {
		loss.Text = "no estimate yet"
	}
	player := "your keys"
	switch {
	case r.cfg.Script != nil:
		player = "scripted"
	case r.scripted:
		player = "scripted, keys take over"
	}
	r.cfg.Viewer.Publish(viewer.Frame{
		Views: []viewer.View{view("authority", r.authority), view("remote", r.remote)},
		Figures: []viewer.Figure{
			{Name: "tick", Value: float64(r.tick)},
			{Name: "player", Text: player},
			{Name: "latency (set)", Text: latencyText(r.cfg.Conditions.Latency, r.cfg.Conditions.Jitter)},
			{Name: "loss (set)", Text: fmt.Sprintf("%g %% each way", 100*r.cfg.Conditions.Loss)},
			{Name: "state rate", Value: float64(r.cfg.SendRate), Unit: "Hz"},
			{Name: "down", Value: rate(down), Unit: "kbps"},
			{Name: "up", Value: rate(up), Unit: "kbps"},
			{Name: "packets down", Value: float64(pd)},
			{Name: "packets up", Value: float64(pu)},
			loss,
			{Name: "rtt", Value: ms(st.RTTAvg), Unit: "ms"},
			// Millimetres for both: the page shows 3 decimals below 1 and
			// whole numbers from 100, so a mean of 0.4 mm reads beside a
			// worst of 2650 mm.
			{Name: "position error", Value: 1000 * r.errNow(), Unit: "mm"},
			{Name: "worst error", Value: 1000 * r.errMax, Unit: "mm"},
		},
	})
}

// latencyText describes the configured one-way delay.
func latencyText(latency, jitter time.Duration) string {
	if jitter > 0 {
		return fmt.Sprintf("%v ± %v each way", latency, jitter)
	}
	return fmt.Sprintf("%v each way", latency)
}

// view converts a scene to the viewer's cubes: the player first, then the
// cubes, with entity indices as ids.
func view(name string, s *scene.Scene) viewer.View {
	cfg := s.Config()
	cubes := make([]viewer.Cube, 0, len(s.Cubes)+1)
	add := func(id int, half float64, interacting, player bool) {
		st := s.State(bodyOf(s, id))
		h := float32(half)
		cubes = append(cubes, viewer.Cube{
			ID:          uint32(id),
			Position:    [3]float32{float32(st.Position.X), float32(st.Position.Y), float32(st.Position.Z)},
			Rotation:    [4]float32{float32(st.Rotation.X), float32(st.Rotation.Y), float32(st.Rotation.Z), float32(st.Rotation.W)},
			HalfExtents: [3]float32{h, h, h},
			Interacting: interacting, Player: player, AtRest: st.AtRest,
		})
	}
	add(0, cfg.PlayerSize/2, false, true)
	for i := range s.Cubes {
		add(i+1, cfg.CubeSize/2, s.Interacting(i), false)
	}
	return viewer.View{Name: name, Cubes: cubes}
}
