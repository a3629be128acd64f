package match

import (
	"strings"

	"github.com/netphys/netphys/viewer"
)

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
