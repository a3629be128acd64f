// Package netsim simulates a bad network: latency, jitter, loss
// (independent or in Gilbert–Elliott bursts), duplication, reordering and
// a bandwidth cap with a tail-drop queue.
//
// Sim is the core: an in-process network in virtual time, with no
// sockets, goroutines or clock, deterministic from a seed. Tests put
// endpoints on it and run whole matches at 250 ms latency and 25 % loss
// in a fraction of real time, reproducibly:
//
//	sim, _ := netsim.New(netsim.Config{Seed: 1, Conditions: netsim.Conditions{
//		Latency: 100 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.05,
//	}})
//	for now := start; now.Before(end); now = now.Add(tick) {
//		sim.Send(now, client, server, datagram) // copied; reuse datagram freely
//		for _, p := range sim.Receive(now) {    // due at or before now
//			deliver(p.To, p.From, p.Data)
//		}
//	}
//
// Conditions hold per direction of a link: a Config's Conditions apply
// to every link, SetLink overrides one direction between two addresses.
// Each link direction has its own bandwidth queue and burst state; the
// random draws come from one PCG generator seeded by Config.Seed, in call
// order, so the same seed and the same calls give the same deliveries.
//
// Package netsim/proxy is the driver that puts the same core between real
// processes: a UDP relay on the real clock (`netphys netsim` on the
// command line).
package netsim
