package match

import (
	"strings"

	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/viewer"
)

// SceneView draws a cube world for the viewer: the player cubes first
// (blue), then the cubes, with ids that stay the same across frames and
// across the worlds of one match. Player me comes last of the players: the
// page takes a view's last player cube as the one its camera follows.
func SceneView(name string, s *scene.Scene, me int, dst []viewer.Cube) viewer.View {
	cfg := s.Config()
	cubes := dst[:0]
	add := func(id uint32, body physics.BodyID, half float64, interacting, player bool) {
		st := s.State(body)
		h := float32(half)
		cubes = append(cubes, viewer.Cube{
			ID:          id,
			Position:    [3]float32{float32(st.Position.X), float32(st.Position.Y), float32(st.Position.Z)},
			Rotation:    [4]float32{float32(st.Rotation.X), float32(st.Rotation.Y), float32(st.Rotation.Z), float32(st.Rotation.W)},
			HalfExtents: [3]float32{h, h, h},
			Interacting: interacting, Player: player, AtRest: st.AtRest,
		})
	}
	for p, body := range s.Players {
		if p != me {
			add(uint32(p), body, cfg.PlayerSize/2, false, true)
		}
	}
	if me >= 0 && me < len(s.Players) {
		add(uint32(me), s.Players[me], cfg.PlayerSize/2, false, true)
	}
	for i, body := range s.Cubes {
		add(uint32(scene.MaxPlayers+i), body, cfg.CubeSize/2, s.Interacting(i), false)
	}
	return viewer.View{Name: name, Cubes: cubes}
}

// hostViews marks the views of a host that plays no seat of its own (the
// lockstep relay, the interp and predict servers) as overviews, whose
// cameras frame the whole world; a host that plays (statesync's) keeps its
// player's view.
func hostViews(m *Model, views []viewer.View) []viewer.View {
	if m.HostSeats == 0 {
		for i := range views {
			views[i].Overview = true
		}
	}
	return views
}

// viewLabel names a player's view for the page: the player's label
// ("player 2 (bot)") and the view's own name less the player it repeats,
// so that "client 2 interpolated" and "player 2 predicted" read "player 2
// (bot) interpolated" and "player 2 (bot) predicted".
func viewLabel(label, name string) string {
	for _, who := range []string{"player ", "client "} {
		rest, ok := strings.CutPrefix(name, who)
		if !ok {
			continue
		}
		num, tail, _ := strings.Cut(rest, " ")
		if num != "" && strings.HasPrefix(label, "player "+num+" ") || label == "player "+num {
			name = tail
		}
		break
	}
	return strings.TrimSpace(label + " " + name)
}
