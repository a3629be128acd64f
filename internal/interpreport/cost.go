package interpreport

import (
	"time"

	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/transport/reliable"
)

// ackClient is a client that only acknowledges: the server's cost
// depends on its clients' baselines, not on what they draw, so the cost
// rows measure a server feeding many of these.
type ackClient struct {
	end *reliable.Endpoint
	due bool
}

func (c *ackClient) Receive(now time.Time, d []byte) error {
	_, payload, err := c.end.ReceivePacket(now, d)
	if payload != nil {
		c.due = true
	}
	return err
}

func (c *ackClient) Update(now time.Time, send func([]byte)) error {
	if !c.due {
		return nil
	}
	c.due = false
	_, ds, err := c.end.SendPacket(now, nil)
	for _, d := range ds {
		send(d)
	}
	c.end.ClearAcks()
	return err
}

// CostRow is the server's cost for many clients with one codec.
type CostRow struct {
	Codec            string
	Clients, PPS     int
	Condition        string
	MicrosPerClient  float64 // CPU time of Update per client per snapshot
	EncodingsPerPkt  float64
	ClientsPerCore   float64 // at PPS, encoding only
	Snapshots        uint64
	PacketsPerSecond float64
}

// costMatch is one server of the cost rows.
type costMatch struct {
	name string
	m    *simmatch.Match
	srv  *timedServer
	enc0 interp.EncoderCounters
	snap uint64
}

func newCostMatch(cfg Config, name string, model interp.Config, game interp.Game, start time.Time) (*costMatch, error) {
	model.PPS = cfg.CostRate
	srv, err := interp.NewServer(model, game, start)
	if err != nil {
		return nil, err
	}
	ts := &timedServer{Server: srv}
	cond := cfg.Conditions[cfg.VelocityCondition].Conditions
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: cfg.Seed, Conditions: cond}, Frame: model.TickInterval, Start: start}, ts)
	if err != nil {
		return nil, err
	}
	for range cfg.CostClients {
		end, err := reliable.NewEndpoint(model.Reliable, start)
		if err != nil {
			return nil, err
		}
		if _, err := m.Join(&ackClient{end: end}); err != nil {
			return nil, err
		}
	}
	return &costMatch{name: name, m: m, srv: ts}, nil
}

// startMeasuring forgets the warm-up.
func (c *costMatch) startMeasuring() {
	c.srv.spent, c.enc0, c.snap = 0, c.srv.EncoderCounters(), c.srv.Counters().Snapshots
}

func (c *costMatch) row(cfg Config) CostRow {
	e := c.srv.EncoderCounters()
	pkts := float64(e.Packets - c.enc0.Packets)
	us := float64(c.srv.spent.Microseconds()) / max(1, pkts)
	return CostRow{
		Codec: c.name, Clients: cfg.CostClients, PPS: cfg.CostRate,
		Condition:       cfg.Conditions[cfg.VelocityCondition].Name,
		MicrosPerClient: us,
		EncodingsPerPkt: float64(e.Encodings-c.enc0.Encodings) / max(1, pkts),
		ClientsPerCore:  1e6 / max(1, us*float64(cfg.CostRate)),
		Snapshots:       c.srv.Counters().Snapshots - c.snap,
	}
}

// costCodecs are the cost rows' codecs: the default, and stage 9 with
// the cube world's simulation (each server its own predictor).
func costCodecs(cfg Config) ([]string, []interp.Config, error) {
	sim := cfg.Model
	p, err := scene.NewPredictor(scene.Cubes900, scene.DefaultConfig())
	if err != nil {
		return nil, nil, err
	}
	sim.Codec.Simulator = p
	return []string{"range coded (default)", "range coded + simulation"}, []interp.Config{cfg.Model, sim}, nil
}
