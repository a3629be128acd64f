package cubegames

import (
	"flag"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/netmodel/statesync"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/viewer"
	"github.com/netphys/netphys/wire"
)

// Statesync registers state synchronization with distributed authority
// (package netmodel/statesync) over the VR world (scene.VR). --players is
// the table, 2 to 4: the host is its player 0, played by its bot, and
// every other player is a guest, a client, so `--players 4` is the
// sample's table of four. Cubes are drawn in the colour of the player with
// authority over them, the avatars' heads and hands in their players'.
func init() {
	match.Register(&match.Model{
		Name:       "statesync",
		Summary:    "state sync with distributed authority: the VR sample, a host (a bot) and up to 3 guests; --players counts the host",
		Flags:      statesyncFlags,
		HostSeats:  1,
		MaxPlayers: scene.VRPlayers,
		Keys:       StatesyncKeys,
		Records:    true, // the snapshots spectators get (spectate.go)
	})
}

// StatesyncKeys are what the page's mouse and keys do to a statesync
// guest's right hand (scene.VRPointer), for the commands' hints;
// statesyncControls say it on the page.
const StatesyncKeys = "the mouse moves your right hand, the left button grips (hold to carry, let go to throw), right-drag lifts; arrows move it too, space raises it, z grips"

var statesyncControls = []viewer.Control{
	{Keys: []string{"mouse"}, Does: "moves your right hand"},
	{Keys: []string{"left button"}, Does: "grips: hold to carry, let go to throw"},
	{Keys: []string{"right drag"}, Does: "lifts"},
	{Keys: []string{"left", "up", "down", "right", "space", "z"}, Does: "move, raise, grip"},
	{Keys: []string{"wheel"}, Does: "zoom"},
}

// statesyncTable checks --players as statesync reads it: the host and at
// least one guest, at most the VR table.
func statesyncTable(players int) error {
	if players < 2 || players > scene.VRPlayers {
		return fmt.Errorf("--players %d: the statesync VR table seats the host and 1 to %d guests, want 2 to %d", players, scene.VRPlayers-1, scene.VRPlayers)
	}
	return nil
}

// StatesyncConfig is the model's config at a packet budget of kbps each
// way per player, and the VR table's: what every side of a match builds
// its node and world with (a test's own guest too).
func StatesyncConfig(kbps int) (statesync.Config, scene.VRConfig) {
	cfg := statesync.DefaultConfig()
	cfg.PacketBytes = statesync.BudgetFor(kbps, 60)
	vcfg := scene.DefaultVRConfig()
	cfg.Ballistic = statesync.BallisticOf(vcfg.Physics)
	return cfg, vcfg
}

func statesyncFlags(fs *flag.FlagSet) func() (match.Sides, error) {
	kbps := fs.Int("statesync-kbps", 256, "statesync: packet budget each way per player, in kbps at 60 packets per second")
	return func() (match.Sides, error) {
		cfg, vcfg := StatesyncConfig(*kbps)
		return match.Sides{
			NewHost: func(s match.Setup) (match.Host, error) {
				if err := oneWorld(s.World, "the VR table"); err != nil {
					return nil, err
				}
				if err := statesyncTable(s.Players); err != nil {
					return nil, err
				}
				world, err := scene.NewVR(vcfg, 0, nil)
				if err != nil {
					return nil, err
				}
				world, err = scene.NewVR(vcfg, 0, scene.NewVRBot(0, scene.VRMatch(world, 0)))
				if err != nil {
					return nil, err
				}
				h, err := statesync.NewHost(cfg, world)
				if err != nil {
					return nil, err
				}
				host := &statesyncHost{Host: h, world: world, players: s.Players, step: cfg.TimeStep}
				return match.WithSpectators(host, host, s, match.WatchedWorld{Model: "statesync", Game: "VR table", Variant: fmt.Sprintf("%d players", s.Players), TickRate: 60, Objects: vrObjects(world), Spec: wire.DefaultStateSpec()})
			},
			NewPlayer: func(s match.PlayerSetup) (match.Player, error) {
				if s.Spectate {
					w, err := scene.NewVR(vcfg, 0, nil)
					if err != nil {
						return nil, err
					}
					return newSpectator(s, match.SpectatorConfig(60, wire.DefaultStateSpec()), vrObjects(w), vrDrawer(vcfg, len(w.Cubes)))
				}
				return newStatesyncPlayer(cfg, vcfg, s)
			},
			World: "the VR table",
		}, nil
	}
}

// statesyncNode is what the views and figures read of a host or guest.
type statesyncNode interface {
	Authority(i int) (auth, holder statesync.Owner, ver statesync.Version)
	Render(i int) vecmath.Transform
	Counters() statesync.Counters
	Tick() statesync.Tick
}

// vrView draws one machine's world: the cubes where it renders them
// (smoothed) in the colour of the player with authority over them (or
// holding them), white under nobody's, then the avatars in their players'
// colours, player me last so that the page's camera follows it, from
// behind me's place at the table, facing the table as me does. At-rest
// cubes are not greyed: authority returns to nobody once a cube rests, so
// white is the resting colour of the sample.
func vrView(name string, w *scene.VR, n statesyncNode, me int, dst []viewer.Cube) viewer.View {
	cubes := dst[:0]
	half := float32(w.Config().CubeSize / 2)
	for i := range w.Cubes {
		pose := n.Render(i)
		auth, holder, _ := n.Authority(i)
		if auth == statesync.Nobody {
			auth = holder
		}
		cubes = append(cubes, viewer.Cube{
			ID:          uint32(i),
			Position:    vec32(pose.Pos),
			Rotation:    [4]float32{float32(pose.Rot.X), float32(pose.Rot.Y), float32(pose.Rot.Z), float32(pose.Rot.W)},
			HalfExtents: [3]float32{half, half, half},
			Owner:       uint8(auth),
		})
	}
	for k := range scene.VRPlayers {
		p := (me + 1 + k) % scene.VRPlayers
		if !w.Present(p) {
			continue
		}
		a := w.Avatar(statesync.Player(p))
		for part, t := range []vecmath.Transform{a.Parts[scene.VRLeftHand].Pose, a.Parts[scene.VRRightHand].Pose, a.Parts[scene.VRHead].Pose} {
			r := float32(w.Config().HandRadius)
			if part == 2 {
				r = float32(w.Config().HeadRadius)
			}
			cubes = append(cubes, viewer.Cube{
				ID:       uint32(len(w.Cubes) + 3*p + part),
				Position: vec32(t.Pos), Rotation: [4]float32{0, 0, 0, 1},
				HalfExtents: [3]float32{r, r, r}, Player: true,
				Owner: uint8(statesync.OwnerOf(statesync.Player(p))),
			})
		}
	}
	home := w.Home(me)
	l := math.Sqrt(float64(home.X*home.X) + float64(home.Z*home.Z))
	return viewer.View{Name: name, Cubes: cubes, Facing: [2]float32{float32(-home.X / l), float32(-home.Z / l)}}
}

func vec32(v vecmath.Vec3) [3]float32 { return [3]float32{float32(v.X), float32(v.Y), float32(v.Z)} }

func statesyncFigures(n statesyncNode, dst []viewer.Figure) []viewer.Figure {
	c := n.Counters()
	hit := 0.0
	if c.Predictable > 0 {
		hit = 100 * float64(c.Predicted) / float64(c.Predictable)
	}
	return append(dst,
		viewer.Figure{Name: "tick", Value: float64(n.Tick())},
		viewer.Figure{Name: "corrections", Value: float64(c.Corrections)},
		viewer.Figure{Name: "pops", Value: float64(c.Pops)},
		viewer.Figure{Name: "prediction", Value: hit, Unit: "%"},
	)
}

func statesyncSummary(n statesyncNode, dst []match.Line) []match.Line {
	c := n.Counters()
	return append(dst,
		match.Line{Name: "ticks", Value: fmt.Sprint(n.Tick())},
		match.Line{Name: "packets", Value: fmt.Sprintf("%d sent, %d received, %d malformed, %d duplicates, %d late", c.PacketsSent, c.PacketsReceived, c.Malformed, c.Duplicates, c.Late)},
		match.Line{Name: "claims", Value: fmt.Sprintf("of the authority claims received: %d accepted, %d stale, %d forged, %d implausible, %d on cubes another held", c.Accepted, c.Stale, c.Forged, c.Implausible, c.HeldElsewhere)},
		match.Line{Name: "grabs", Value: fmt.Sprintf("contested grabs: %d won, %d lost", c.GrabsWon, c.GrabsLost)},
		match.Line{Name: "authority", Value: fmt.Sprintf("%d overruled, %d rests confirmed, %d taken back by the host, %d resynced, %d returned by leaves", c.Overruled, c.Confirmed, c.Reclaimed, c.Resynced, c.Returned)},
		match.Line{Name: "prediction", Value: fmt.Sprintf("%d of %d moving cubes predicted exactly", c.Predicted, c.Predictable)},
		match.Line{Name: "corrections", Value: fmt.Sprintf("%d, %d pops over %g cm", c.Corrections, c.Pops, 100*statesync.PopDistance)},
	)
}

// handsSeen counts the grabs and throws of each player as one machine
// sees them: a cube whose holder becomes the player is a grab; one it
// lets go of while keeping the authority, so that the cube flies on
// under it, is a throw. On the host and on the other guests, they are
// what a guest's hands did that the others saw.
type handsSeen struct {
	holder        []statesync.Owner // per cube, as last seen
	grabs, throws [scene.VRPlayers]int
}

// look reads n's holders after a tick.
func (h *handsSeen) look(n statesyncNode, cubes int) {
	if h.holder == nil {
		h.holder = make([]statesync.Owner, cubes)
	}
	for i := range h.holder {
		auth, holder, _ := n.Authority(i)
		was := h.holder[i]
		if holder == was {
			continue
		}
		if holder != statesync.Nobody && int(holder) <= scene.VRPlayers {
			h.grabs[holder-1]++
		}
		if was != statesync.Nobody && int(was) <= scene.VRPlayers && holder == statesync.Nobody && auth == was {
			h.throws[was-1]++
		}
		h.holder[i] = holder
	}
}

// line is the summary's line of what handsSeen counted.
func (h *handsSeen) line(players int) match.Line {
	var b strings.Builder
	for p := range players {
		if p > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "player %d %d/%d", p, h.grabs[p], h.throws[p])
	}
	return match.Line{Name: "hands", Value: "grabs/throws seen: " + b.String()}
}

// statesyncHost is the host: player 0 of the table, played by its bot.
type statesyncHost struct {
	*statesync.Host
	refusalScrape
	refused []statesync.Refusal // the host's counters, read every Update
	world   *scene.VR
	players int // the table: the host and players-1 guests
	step    time.Duration
	cubes   []viewer.Cube
	hands   handsSeen
}

// Update is the host's tick; then it looks at the cubes' holders.
func (h *statesyncHost) Update(now time.Time, send func(slot int, datagram []byte)) error {
	err := h.Host.Update(now, send)
	h.hands.look(h.Host, len(h.world.Cubes))
	h.refused = h.Refusals(h.refused[:0])
	keep(&h.refusalScrape, h.refused)
	return err
}

// Join seats a guest if the table of --players has room for it: netcode
// slot s is player s+1.
func (h *statesyncHost) Join(now time.Time, slot int) error {
	if err := h.fits(slot); err != nil {
		return err
	}
	return h.Host.Join(now, slot)
}

// JoinClient is Join for a guest named by its client id, whose seat the
// host holds for it a while after it leaves (statesync.Host.JoinClient).
func (h *statesyncHost) JoinClient(now time.Time, slot int, clientID uint64) error {
	if err := h.fits(slot); err != nil {
		return err
	}
	return h.Host.JoinClient(now, slot, clientID)
}

// fits refuses a slot beyond the table.
func (h *statesyncHost) fits(slot int) error {
	if slot+1 >= h.players {
		return fmt.Errorf("statesync: slot %d: the table of %d players is full", slot, h.players)
	}
	return nil
}

func (h *statesyncHost) Views(dst []viewer.View) []viewer.View {
	v := vrView("host", h.world, h.Host, 0, h.cubes)
	h.cubes = v.Cubes
	return append(dst, v)
}

func (h *statesyncHost) Figures(_ time.Time, dst []viewer.Figure) []viewer.Figure {
	return statesyncFigures(h.Host, dst)
}

func (h *statesyncHost) Summary(_ time.Time, dst []match.Line) []match.Line {
	dst = append(statesyncSummary(h.Host, dst), match.Line{Name: "rejoins", Value: fmt.Sprintf("%d guests back in their seats", h.Counters().Rejoins)},
		h.hands.line(h.players))
	var by []string
	for slot := range h.players - 1 {
		if n := h.Implausible(slot); n > 0 {
			by = append(by, fmt.Sprintf("player %d: %d", slot+1, n))
		}
	}
	if len(by) > 0 {
		dst = append(dst, match.Line{Name: "overruled", Value: strings.Join(by, ", ") + " claims physically impossible from the host's state (too fast, too far, out of reach, never touched)"})
	}
	return dst
}

// Agreement is, for every guest that sent digests of its world, how far
// it agreed with the host's, bit for bit (statesync.Host.Agreement):
// "player 2: bit for bit since host tick 1260, 0.5 s after the host's
// world came to rest (31 of 40 digests matched); ...". Players are numbered as
// the summary's sections: netcode slot s is player s+1, the VR table's.
func (h *statesyncHost) Agreement(time.Time) string {
	var parts []string
	for slot := range h.players - 1 {
		if a := h.Host.Agreement(slot); a.Reports > 0 {
			parts = append(parts, fmt.Sprintf("player %d: %s", slot+1, agreementText(a, h.step)))
		}
	}
	return strings.Join(parts, "; ")
}

// agreementText says an agreement in words, its ticks the host's.
func agreementText(a statesync.Agreement, step time.Duration) string {
	matched := fmt.Sprintf("%d of %d digests matched", a.Agreed, a.Reports)
	if !a.Agrees {
		return fmt.Sprintf("not converged: the newest digest (host tick %d) differs (%s)", a.Last, matched)
	}
	return fmt.Sprintf("bit for bit since host tick %d, %s s after the host's world came to rest (%s)", a.Since, match.Round((time.Duration(a.Rested) * step).Seconds()), matched)
}

// statesyncPlayer is a guest: netcode slot s is VR player s+1.
type statesyncPlayer struct {
	*statesync.Guest
	world   *scene.VR
	me      int
	ticks   int
	players int
	bot     *scene.VRBot // nil for a player on the page's keys
	step    time.Duration
	cubes   []viewer.Cube
	hands   handsSeen
}

func newStatesyncPlayer(cfg statesync.Config, vcfg scene.VRConfig, s match.PlayerSetup) (match.Player, error) {
	if err := statesyncTable(s.Players); err != nil {
		return nil, err
	}
	me := s.Slot + 1
	if me >= s.Players {
		return nil, fmt.Errorf("statesync: slot %d: the table of %d players seats the host and %d guests", s.Slot, s.Players, s.Players-1)
	}
	var (
		ctl scene.VRController
		bot *scene.VRBot
	)
	if s.Bot || s.Keys == nil {
		layout, err := scene.NewVR(vcfg, statesync.Player(me), nil)
		if err != nil {
			return nil, err
		}
		bot = scene.NewVRBot(me, scene.VRMatch(layout, me))
		ctl = bot
	} else {
		// The viewer's page drives the guest's right hand with its mouse
		// as well as its keys, and says so; while nobody plays the page's
		// autoplay runs the cube world's script through the hand.
		s.Keys.Mouse = true
		s.Keys.Viewer.SetControls(statesyncControls)
		controls := newCubeControls(s)
		tick := 0
		ctl = scene.NewVRPointer(scene.DefaultVRPointerConfig(), me, func() scene.VRInput {
			tick++
			in := scene.VRInput{Keys: controls.Input(me, tick)}
			var ptr viewer.Pointer
			if ptr, in.Pointing = s.Keys.Pointer(); in.Pointing {
				in.Pointer = scene.Pointer{
					From: vecmath.V3(ptr.From[0], ptr.From[1], ptr.From[2]),
					Dir:  vecmath.V3(ptr.Dir[0], ptr.Dir[1], ptr.Dir[2]),
					Lift: ptr.Lift, Grip: ptr.Grip,
				}
			}
			return in
		})
	}
	world, err := scene.NewVR(vcfg, statesync.Player(me), ctl)
	if err != nil {
		return nil, err
	}
	cfg.Player = statesync.Player(me)
	g, err := statesync.NewGuest(cfg, world, s.Now)
	if err != nil {
		return nil, err
	}
	return &statesyncPlayer{Guest: g, world: world, me: me, ticks: s.Ticks, players: s.Players, bot: bot, step: cfg.TimeStep}, nil
}

// Update steps the guest. A bot stops acting once the guest has played
// its ticks: its hands let go and go back to rest, so that the world
// comes to rest while the player lingers, and its agreement with the
// host at the end is the world's at rest. Then it looks at the cubes'
// holders.
func (p *statesyncPlayer) Update(now time.Time, send func([]byte)) error {
	if p.bot != nil && p.Done() {
		p.bot.Stop()
	}
	err := p.Guest.Update(now, send)
	p.hands.look(p.Guest, len(p.world.Cubes))
	return err
}

// Agreement is how far this guest's world agreed with the host's, bit
// for bit, from the host's digests (statesync.Guest.Agreement).
func (p *statesyncPlayer) Agreement(time.Time) string {
	a := p.Guest.Agreement()
	if a.Reports == 0 {
		return "no digest of the host's world heard"
	}
	return "with the host: " + agreementText(a, p.step)
}

func (p *statesyncPlayer) Views(dst []viewer.View) []viewer.View {
	v := vrView(fmt.Sprintf("guest %d", p.me), p.world, p.Guest, p.me, p.cubes)
	p.cubes = v.Cubes
	return append(dst, v)
}

func (p *statesyncPlayer) Figures(_ time.Time, dst []viewer.Figure) []viewer.Figure {
	return statesyncFigures(p.Guest, dst)
}

func (p *statesyncPlayer) Summary(_ time.Time, dst []match.Line) []match.Line {
	return append(statesyncSummary(p.Guest, dst), p.hands.line(p.players))
}

// Done: the guest has simulated the ticks it was asked to play.
func (p *statesyncPlayer) Done() bool { return p.ticks > 0 && int(p.Tick()) >= p.ticks }
