package demo

import (
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
	var errNow float64
	if n := len(r.errMeans); n > 0 {
		errNow = r.errMeans[n-1]
	}
	r.cfg.Viewer.Publish(viewer.Frame{
		Views: []viewer.View{view("authority", r.authority), view("remote", r.remote)},
		Figures: []viewer.Figure{
			{Name: "tick", Value: float64(r.tick)},
			{Name: "down", Value: rate(down), Unit: "kbps"},
			{Name: "up", Value: rate(up), Unit: "kbps"},
			{Name: "packets down", Value: float64(pd)},
			{Name: "packets up", Value: float64(pu)},
			{Name: "loss", Value: st.PacketLoss, Unit: "%"},
			{Name: "rtt", Value: ms(st.RTTAvg), Unit: "ms"},
			{Name: "position error", Value: 100 * errNow, Unit: "cm"},
			{Name: "worst error", Value: 100 * r.errMax, Unit: "cm"},
		},
	})
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
