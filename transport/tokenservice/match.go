package tokenservice

import (
	"errors"
	"fmt"

	"github.com/netphys/netphys/transport/netcode"
)

// Match is what a connect token tells a server that hosts many matches
// (netphys serve --rooms) about the match its player is for: the server
// opens the match on the first token naming its id, and puts every later
// token of that id in it. It travels in netcode's 256 bytes of user data,
// which only the server can read (the client never sees them):
//
//	magic     3 bytes  "NPM"
//	version   1 byte   1
//	id        1 byte length (1 to 64), then the bytes
//	model     1 byte length (1 to 32), then the bytes
//	game      1 byte length (0 to 32), then the bytes
//	layout    1 byte length (0 to 32), then the bytes
//	players   1 byte   1 to 255
//	the rest  zero
//
// The text fields hold letters, digits and . _ - : only (they appear in
// logs and metric labels). User data without the magic name no match:
// such a token is for a server that hosts one match at a time.
type Match struct {
	ID    string `json:"id"`
	Model string `json:"model"`
	// Game is the world the match plays; "" is the server's default (the
	// cube world).
	Game string `json:"game,omitempty"`
	// Layout is the game's starting arrangement (the cube world's
	// cubes900, tower20, pyramid10); "" is the server's default.
	Layout  string `json:"layout,omitempty"`
	Players int    `json:"players"`
}

// The encoding's bounds.
const (
	MaxMatchID    = 64
	MaxMatchField = 32
	matchVersion  = 1
)

var matchMagic = [3]byte{'N', 'P', 'M'}

// ErrMatch reports a Match that cannot be encoded, or user data that name
// a match but do not decode.
var ErrMatch = errors.New("tokenservice: bad match")

// Validate says what is wrong with m, if anything.
func (m Match) Validate() error {
	for _, f := range []struct {
		name, v  string
		min, max int
	}{{"id", m.ID, 1, MaxMatchID}, {"model", m.Model, 1, MaxMatchField}, {"game", m.Game, 0, MaxMatchField}, {"layout", m.Layout, 0, MaxMatchField}} {
		if len(f.v) < f.min || len(f.v) > f.max {
			return fmt.Errorf("%w: %s %.80q: want %d to %d characters", ErrMatch, f.name, f.v, f.min, f.max)
		}
		for i := 0; i < len(f.v); i++ {
			if !matchChar(f.v[i]) {
				return fmt.Errorf("%w: %s %.80q: want letters, digits and . _ - : only", ErrMatch, f.name, f.v)
			}
		}
	}
	if m.Players < 1 || m.Players > 255 {
		return fmt.Errorf("%w: players %d: want 1 to 255", ErrMatch, m.Players)
	}
	return nil
}

func matchChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == ':'
}

// UserData encodes m as a token's user data.
func (m Match) UserData() (netcode.UserData, error) {
	var ud netcode.UserData
	if err := m.Validate(); err != nil {
		return ud, err
	}
	b := append(matchMagic[:], matchVersion)
	for _, f := range []string{m.ID, m.Model, m.Game, m.Layout} {
		b = append(append(b, byte(len(f))), f...)
	}
	copy(ud[:], append(b, byte(m.Players))) // at most 169 bytes
	return ud, nil
}

// MatchFromUserData reads the match a token's user data name. ok is
// false for user data that name none (no magic); err says what is wrong
// with user data that do, and are malformed, of another version or
// invalid. It never panics, whatever the bytes.
func MatchFromUserData(ud *netcode.UserData) (m Match, ok bool, err error) {
	if [3]byte(ud[:3]) != matchMagic {
		return Match{}, false, nil
	}
	if ud[3] != matchVersion {
		return Match{}, true, fmt.Errorf("%w: version %d of the match encoding, this server reads %d (a newer token service?)", ErrMatch, ud[3], matchVersion)
	}
	rest := ud[4:]
	var fields [4]string
	for i := range fields {
		if len(rest) < 1 || int(rest[0]) > len(rest)-1 {
			return Match{}, true, fmt.Errorf("%w: user data cut short", ErrMatch)
		}
		n := int(rest[0])
		fields[i], rest = string(rest[1:1+n]), rest[1+n:]
	}
	if len(rest) < 1 {
		return Match{}, true, fmt.Errorf("%w: user data cut short", ErrMatch)
	}
	m = Match{ID: fields[0], Model: fields[1], Game: fields[2], Layout: fields[3], Players: int(rest[0])}
	if err := m.Validate(); err != nil {
		return Match{}, true, err
	}
	return m, true, nil
}
