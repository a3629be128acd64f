package match

import "testing"

func TestViewLabel(t *testing.T) {
	for _, tt := range []struct{ label, name, want string }{
		{"player 1 (keys)", "player 1 predicted", "player 1 (keys) predicted"},
		{"player 2 (bot)", "client 2 interpolated", "player 2 (bot) interpolated"},
		{"player 12 (bot)", "player 12 predicted", "player 12 (bot) predicted"},
		{"player 1 (bot)", "player 12 predicted", "player 1 (bot) player 12 predicted"},
		{"player 3 (bot)", "", "player 3 (bot)"},
		{"player 3 (bot)", "player 3", "player 3 (bot)"},
		{"player 3 (bot)", "guest", "player 3 (bot) guest"},
	} {
		if got := viewLabel(tt.label, tt.name); got != tt.want {
			t.Errorf("viewLabel(%q, %q) = %q, want %q", tt.label, tt.name, got, tt.want)
		}
	}
}
