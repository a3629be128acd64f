package replay

import (
	"errors"
	"fmt"
	"time"

	"github.com/netphys/netphys/netmodel/internal/replayfile"
	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/wire"
)

// The file
//
//	file   = magic "NPRP" | version (1 byte) | block(header) | block(chunk)*
//	block  = length (unsigned varint, 1 to MaxBlock) | that many bytes
//
// Every block is one bit stream (package wire) read with bounds; a reader
// allocates at most one block's bytes, and those grow with the bytes
// actually present, never with the length a block claims.
//
//	header:
//	  model          bytes ≤ 32     "lockstep"
//	  game, variant  bytes ≤ 64     the game and its setup: "cube world", "cubes900"
//	  party          bytes ≤ 64     who recorded: "server", "player 2"
//	  note           bytes ≤ 256    free text: the session's flags
//	  players        2 bits         1 to 4
//	  tick duration  40 bits        nanoseconds, 1 ns to ~18 min
//	  checksum every 16 bits        lockstep.Config.ChecksumEvery, 1 to 65535
//	  rollback       11 bits        lockstep.Config.Rollback, 0 to 1024
//	  sum every      16 bits        this file's checksum interval, 1 to 65535
//
//	chunk of ticks (kind 0):
//	  kind           2 bits
//	  first tick     31 bits        the tick after the previous chunk's last
//	  count          8 bits         1 to 256 ticks
//	  per tick, per player:
//	    same         1 bit          (not in the chunk's first tick) as this
//	                                player's input of the tick before
//	    input        the game's Serialize, when not the same
//	  per tick that is a multiple of sum every:
//	    checksum     32 bits        low 32 bits of Game.Checksum after the tick
//
//	chunk of a state (kind 1), see State:
//	  kind 2 bits | tick 31 bits | note bytes ≤ 256 | names: count ≤ 256,
//	  each bytes ≤ 32 | objects ≤ MaxObjects, each: name bytes ≤ 64,
//	  fields ≤ 64, each: name index, value 64 bits (IEEE 754)
//
// A chunk's inputs start whole, so every chunk decodes on its own. The
// file ends after its last complete chunk: a recording cut short by a
// crash reads up to there.

// Magic opens every replay file; Version is the format's version.
const (
	Magic   = "NPRP"
	Version = 1
)

// Bounds of the format. A reader never allocates beyond them.
const (
	// MaxBlock is the largest block: a state of 1,000 cubes takes ~130 kB.
	MaxBlock = 8 << 20
	// ChunkTicks is the most ticks of one chunk.
	ChunkTicks = 256
	// MaxObjects and MaxFields bound a state: objects, and fields of one.
	MaxObjects = 1 << 16
	MaxFields  = 64
	maxNames   = 256
	maxTickNs  = 1<<40 - 1
)

// Errors of the package, wrapped with context.
var (
	// ErrFormat: the bytes are not a replay this reader can take (another
	// magic or version, a bound exceeded, a gap between chunks, a value
	// the game's Serialize rejects). Wraps the wire error when there is one.
	ErrFormat = errors.New("replay: malformed replay")
	// ErrHeader: a header that cannot be written, or two replays whose
	// headers do not describe the same match.
	ErrHeader = errors.New("replay: bad header")
	// ErrRecord: the recorder was used out of its contract (a rollback
	// beyond the ticks it keeps, a write that failed).
	ErrRecord = errors.New("replay: recording failed")
	// ErrMismatch: a re-simulation's checksum differs from the recorded one.
	ErrMismatch = errors.New("replay: checksum differs from the recording")
)

// format is the container of a replay file.
var format = replayfile.Format{Magic: Magic, Version: Version, MaxBlock: MaxBlock, Name: "replay", Err: ErrFormat}

const (
	kindTicks = 0
	kindState = 1
)

// Header describes the match a replay holds: enough to build the same
// game in the same starting state and to check the sessions agree.
type Header struct {
	Model   string // "lockstep"
	Game    string // the game's name, such as "cube world"
	Variant string // its setup, such as the layout "cubes900"
	Party   string // who recorded: "server", "player 2"
	Note    string // free text, such as the session's flags
	Players int    // 1 to lockstep.MaxPlayers
	// TickDuration is the fixed step, usually 1/60 s.
	TickDuration time.Duration
	// ChecksumEvery and Rollback are the session's lockstep.Config values:
	// a desync names a multiple of ChecksumEvery, and a recorder wrapping
	// a rollback client keeps Rollback ticks unwritten (see Game).
	ChecksumEvery lockstep.Tick
	Rollback      int
	// SumEvery is how often the file holds a checksum, in ticks: 1 costs
	// 4 bytes a tick and names the exact first tick a re-simulation
	// differs; 60 costs 4 bytes a second.
	SumEvery lockstep.Tick
}

// NewHeader returns the header of a lockstep session of cfg playing game
// in variant, recorded by party, with a checksum every tick.
func NewHeader(cfg lockstep.Config, game, variant, party string) Header {
	return Header{
		Model: "lockstep", Game: game, Variant: variant, Party: party,
		Players: cfg.Players, TickDuration: cfg.TickDuration,
		ChecksumEvery: cfg.ChecksumEvery, Rollback: cfg.Rollback, SumEvery: 1,
	}
}

// Serialize writes, reads or measures the header.
func (h *Header) Serialize(s wire.Stream) error {
	if err := replayfile.SerializeLabels(s, &h.Model, &h.Game, &h.Variant, &h.Party, &h.Note); err != nil {
		return err
	}
	ns := int64(h.TickDuration)
	if err := wire.SerializeInt(s, &h.Players, 1, lockstep.MaxPlayers); err != nil {
		return err
	}
	if err := wire.SerializeInt(s, &ns, 1, maxTickNs); err != nil {
		return err
	}
	h.TickDuration = time.Duration(ns)
	if err := wire.SerializeInt(s, &h.ChecksumEvery, 1, 65535); err != nil {
		return err
	}
	if err := wire.SerializeInt(s, &h.Rollback, 0, 1024); err != nil {
		return err
	}
	return wire.SerializeInt(s, &h.SumEvery, 1, 65535)
}

// check returns what makes the header unwritable.
func (h *Header) check() error {
	var m wire.Measurer
	if err := h.Serialize(&m); err != nil {
		return fmt.Errorf("%w: %w", ErrHeader, err)
	}
	return nil
}

// Compatible reports why replays with headers h and o cannot be of the
// same match, or nil. Party and Note may differ.
func (h *Header) Compatible(o *Header) error {
	switch {
	case h.Model != o.Model || h.Game != o.Game || h.Variant != o.Variant:
		return fmt.Errorf("%w: %s %s %s against %s %s %s", ErrHeader, h.Model, h.Game, h.Variant, o.Model, o.Game, o.Variant)
	case h.Players != o.Players:
		return fmt.Errorf("%w: %d players against %d", ErrHeader, h.Players, o.Players)
	case h.TickDuration != o.TickDuration:
		return fmt.Errorf("%w: tick of %v against %v", ErrHeader, h.TickDuration, o.TickDuration)
	}
	return nil
}
