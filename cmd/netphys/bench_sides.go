package main

import (
	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/netmodel/predict"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/netmodel/statesync"
	"github.com/netphys/netphys/scene"
)

// The clients and games the bench reports share: bench lockstep, bench
// predict and bench statesync play these, and bench server drives many
// matches of them to measure what the server side costs.

// joinLockstepPlayers joins players lockstep clients to m, each playing
// its scripted minute (scene.PlayerBot) and stepping inputChain, or a cube
// world of layout when layout is set.
func joinLockstepPlayers(m *simmatch.Match, cfg lockstep.Config, players int, layout *scene.Layout) ([]*lockstep.Client[scene.Input, *scene.Input], error) {
	clients := make([]*lockstep.Client[scene.Input, *scene.Input], players)
	for p := range clients {
		var game lockstep.Game[scene.Input] = &inputChain{}
		if layout != nil {
			var err error
			if game, err = scene.NewLockstep(*layout, scene.DefaultConfig(), players); err != nil {
				return nil, err
			}
		}
		var err error
		if clients[p], err = lockstep.NewClient[scene.Input](cfg, game, scene.LockstepBot(), simmatch.Epoch); err != nil {
			return nil, err
		}
		if _, err := m.Join(clients[p]); err != nil {
			return nil, err
		}
	}
	return clients, nil
}

// newTimedArena builds one side's arena.
func newTimedArena(acfg scene.ArenaConfig) (*timedArena, error) {
	a, err := scene.NewArena(acfg)
	return &timedArena{Arena: a}, err
}

// joinArenaBots joins players predict clients to m, each a bot
// (scene.NewBot) in its own arena.
func joinArenaBots(m *simmatch.Match, cfg predict.Config, acfg scene.ArenaConfig, players int, seed uint64) ([]*predict.Client[scene.ArenaInput, *scene.ArenaInput], []*timedArena, error) {
	clients := make([]*predict.Client[scene.ArenaInput, *scene.ArenaInput], players)
	games := make([]*timedArena, players)
	for p := range clients {
		var err error
		if games[p], err = newTimedArena(acfg); err != nil {
			return nil, nil, err
		}
		bot := scene.NewBot(p, seed, acfg)
		if clients[p], err = predict.NewClient[scene.ArenaInput](cfg, games[p], bot.Input, simmatch.Epoch); err != nil {
			return nil, nil, err
		}
		if _, err := m.Join(clients[p]); err != nil {
			return nil, nil, err
		}
	}
	return clients, games, nil
}

// newVRTable builds the VR table's worlds, one per player, each player
// playing its part of the scripted match (scene.VRMatch): worlds[0] is
// the host's.
func newVRTable(vcfg scene.VRConfig) ([]*scene.VR, []*scene.VRBot, error) {
	worlds := make([]*scene.VR, statesync.MaxPlayers)
	bots := make([]*scene.VRBot, statesync.MaxPlayers)
	for p := range worlds {
		var err error
		if worlds[p], bots[p], err = newVRSeat(vcfg, p); err != nil {
			return nil, nil, err
		}
	}
	return worlds, bots, nil
}

// newVRSeat builds player p's world of the VR table, played by its bot.
func newVRSeat(vcfg scene.VRConfig, p int) (*scene.VR, *scene.VRBot, error) {
	v, err := scene.NewVR(vcfg, statesync.Player(p), nil)
	if err != nil {
		return nil, nil, err
	}
	bot := scene.NewVRBot(p, scene.VRMatch(v, p))
	w, err := scene.NewVR(vcfg, statesync.Player(p), bot)
	return w, bot, err
}

// joinVRGuests joins a guest to m for each of worlds[1:], player 1 up.
func joinVRGuests(m *simmatch.Match, cfg statesync.Config, worlds []*scene.VR) ([]*statesync.Guest, error) {
	var guests []*statesync.Guest
	for p := 1; p < len(worlds); p++ {
		gcfg := cfg
		gcfg.Player = statesync.Player(p)
		g, err := statesync.NewGuest(gcfg, worlds[p], m.Now())
		if err != nil {
			return nil, err
		}
		if _, err := m.Join(g); err != nil {
			return nil, err
		}
		guests = append(guests, g)
	}
	return guests, nil
}
