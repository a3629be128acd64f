package statesync

import (
	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/vecmath"
)

// Player numbers the players of a match: 0 is the host, 1 to 3 the guests
// (netcode slot + 1).
type Player uint8

// MaxPlayers is the host and three guests, the VR sample's table.
const MaxPlayers = 4

// Owner names who has authority over an object, or holds it: Nobody (the
// default authority, simulated by the host, white in the viewer) or a
// player.
type Owner uint8

// Nobody is the default authority and the holder of an object nobody holds.
const Nobody Owner = 0

// OwnerOf returns the Owner value of player p.
func OwnerOf(p Player) Owner { return Owner(p) + 1 }

// Player returns the player o names; false for Nobody.
func (o Owner) Player() (Player, bool) { return Player(o - 1), o != Nobody }

// Held is what one part of an avatar (a hand) holds: an object, placed
// in the part's frame.
type Held struct {
	Holding  bool
	Object   int
	Relative vecmath.Transform // the object's pose in the part's frame
}

// MaxParts bounds the parts of an avatar.
const MaxParts = 8

// Part is one part of an avatar: its pose and, for a part its shape lets
// hold (AvatarShape.Holds), what it holds.
type Part struct {
	Pose vecmath.Transform
	Held Held
}

// Avatar is a player's body in the world: the parts its game's
// AvatarShape declares, Parts[0] the root (the VR table's head), the
// parts past AvatarShape.Parts zero.
type Avatar struct {
	Parts [MaxParts]Part
}

// AvatarShape is what an avatar is made of, declared once by the game
// (Avatars.AvatarShape): the model codes and judges avatars of that shape,
// and no code of the game runs on a peer's bytes. Host and guests must
// declare the same shape; a peer whose avatars have another is refused
// with ErrAvatarShape, on both sides.
type AvatarShape struct {
	// Parts is how many parts an avatar has, 1 to MaxParts; part 0 is
	// the root.
	Parts int
	// Reach[k], m, of a part k > 0, at most 16: when the receiver has
	// no earlier avatar of the player to code against, the part is coded
	// from the root when it lies within ±Reach[k] of it on every axis
	// (a hand from its head: 12 bits an axis instead of 19), else whole;
	// 0 codes it whole always. Reach shortens the coding only: a part
	// may be anywhere in Config.AvatarPosition. Reach[0] must be 0.
	Reach [MaxParts]float64
	// Holds[k]: part k may hold an object (a hand); a hold takes
	// ownership.
	Holds [MaxParts]bool
	// Speed bounds, m/s, how fast any part moves between two samples:
	// the host overrules a guest's avatar whose parts move faster.
	Speed float64
}

// Game is what the model needs from a world to share it: every machine
// runs its own copy, and the model quantizes and corrects its objects.
// It speaks of players, objects and interaction only: which player
// touches which object (touch takes authority) and, for a game that
// implements Avatars, which player holds which object (a hold takes
// ownership).
//
// Objects are numbered 0 to Objects()-1 and never change. The local
// player acts inside Step (a human's controls or a bot), grabbing only
// what the model allows.
//
// Optional interfaces add to it: Avatars (a per-player body of the parts
// the game declares, which the model sends to the others, some parts
// holding objects), Bodies (players
// that drive objects of their own rather than an avatar) and
// Plausibility (the bounds the host judges guests' claims by).
type Game interface {
	// Objects is the number of synchronized objects.
	Objects() int
	// Object returns object i's state.
	Object(i int) physics.BodyState
	// SetObject overwrites object i's state. A state with AtRest and zero
	// velocities must put the object to rest without waking its
	// neighbours (physics.World.SetState does).
	SetObject(i int, s physics.BodyState) error
	// Step advances the world one fixed step. The local player acts first
	// and may grab object i only if mayGrab(i) (a game without Avatars
	// grabs nothing and may ignore it).
	Step(mayGrab func(i int) bool)
	// Touches reports the contacts of the last Step: every pair of
	// touching objects, and every object a player touches (any part of
	// its avatar, or whatever the player pushes with). Only the local
	// player's touches take authority.
	Touches(objects func(a, b int), player func(p Player, i int))
}

// Avatars is an optional interface of a Game whose players have a body
// the model shares: parts, each a pose, of the shape the game declares,
// and what the parts that hold hold (the VR table: a head and two hands;
// a paddle: one part that pushes). The model samples the local player's
// avatar after every step, sends it, plays the remote ones back through a
// jitter buffer and poses them before each step. What an avatar holds is
// how a game grabs: the grab takes ownership.
type Avatars interface {
	// AvatarShape declares the avatars' parts, once: the model asks when
	// it is built and checks it (ErrConfig).
	AvatarShape() AvatarShape
	// Avatar returns player p's avatar as this machine sees it.
	Avatar(p Player) Avatar
	// SetAvatar poses remote player p's avatar for the next Step, with the
	// objects its parts hold attached.
	SetAvatar(p Player, a Avatar)
	// ClearAvatar removes remote player p's avatar from the world (the
	// player left, or has not been heard from yet).
	ClearAvatar(p Player)
	// Drop makes the local player let go of object i at once, without
	// throwing it: another player's grab won.
	Drop(i int)
}

// Bodies is an optional interface of a Game without avatars whose
// players each drive an object of their own (a player's cube that pushes
// the others). The host then judges a guest's taking of an object by
// that object's place as it would by an avatar's: a guest may take its
// own body, and what lies within Limits.ContactRange of it.
type Bodies interface {
	// Body returns the object player p drives, or -1 for none.
	Body(p Player) int
}
