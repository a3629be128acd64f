package compression

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/wire/snapshot"
)

// ErrMismatch: the receiver decoded a snapshot that differs from the one
// the sender quantized: a codec or prediction desync.
var ErrMismatch = errors.New("compression: decoded snapshot differs from the sent one")

// pipeline is one stage of the table: the snapshot-interpolation model's
// encoder and receiver (package netmodel/interp), each end with a
// reliable endpoint, joined by their own simulated network. One snapshot
// a tick: snapshot n is tick n.
type pipeline struct {
	enc       *interp.Encoder
	baselines interp.Baselines
	recv      *interp.Receiver
	simulated bool
	net       *netsim.Sim

	sendEnd, recvEnd *reliable.Endpoint
	pkt              []byte
	stats            stageStats
}

// The two ends' addresses on the simulated network.
var (
	senderAddr   = netip.MustParseAddrPort("127.0.0.1:1")
	receiverAddr = netip.MustParseAddrPort("127.0.0.1:2")
)

func newPipeline(stage snapshot.Stage, cfg Config, cubes int, start time.Time) (*pipeline, error) {
	sim, err := netsim.New(netsim.Config{Seed: cfg.Seed, Conditions: cfg.Conditions})
	if err != nil {
		return nil, err
	}
	rcfg := reliable.DefaultConfig()
	rcfg.MaxPacketSize = maxPacket
	rcfg.MaxFragments = maxPacket / rcfg.FragmentSize
	send := snapshot.Codec{Stage: stage, Config: cfg.Snapshot}
	recv := send
	if stage == snapshot.RangeCoded {
		for _, c := range []*snapshot.Codec{&send, &recv} {
			if c.Simulator, err = scene.NewPredictor(scene.Cubes900, scene.DefaultConfig()); err != nil {
				return nil, err
			}
		}
	}
	p := &pipeline{net: sim, simulated: send.Simulator != nil, pkt: make([]byte, maxPacket)}
	if p.enc, err = interp.NewEncoder(send, 1, maxPacket); err != nil {
		return nil, err
	}
	if p.recv, err = interp.NewReceiver(recv, 1, cubes, maxPacket); err != nil {
		return nil, err
	}
	if p.sendEnd, err = reliable.NewEndpoint(rcfg, start); err != nil {
		return nil, err
	}
	if p.recvEnd, err = reliable.NewEndpoint(rcfg, start); err != nil {
		return nil, err
	}
	return p, nil
}

// maxPacket bounds one snapshot packet: the uncompressed stage needs
// 321 bits × 901 cubes ≈ 36 KB, sent in fragments.
const maxPacket = 48 * 1024

// send codes the snapshot of tick (coded, the clamped truth) against what
// the receiver acknowledged and puts it on the network.
func (p *pipeline) send(now time.Time, tick int, coded *snapshot.Snapshot, input uint32) error {
	p.enc.SetInput(int64(tick), input)
	if err := p.enc.Begin(interp.Number(tick), coded); err != nil {
		return err
	}
	packet, err := p.enc.Encode(&p.baselines, p.pkt)
	if err != nil {
		return err
	}
	seq, datagrams, err := p.sendEnd.SendPacket(now, packet)
	if err != nil {
		return err
	}
	p.baselines.Sent(seq, interp.Number(tick))
	bytes := 0
	for _, d := range datagrams {
		bytes += len(d) + udpIPv4Header
		p.net.Send(now, senderAddr, receiverAddr, d)
	}
	p.stats.addPacket(len(packet), bytes)
	return nil
}

// deliver runs the network up to now: snapshots into the receiver, acks
// back to the sender, and the receiver's ack packet for this tick.
func (p *pipeline) deliver(now time.Time, truth *truthRing) error {
	for _, pk := range p.net.Receive(now) {
		if pk.To == receiverAddr {
			_, payload, err := p.recvEnd.ReceivePacket(now, pk.Data)
			if err == nil && payload != nil {
				if err := p.decode(payload, truth); err != nil {
					return err
				}
			}
			continue
		}
		if _, _, err := p.sendEnd.ReceivePacket(now, pk.Data); err != nil {
			continue
		}
		for _, seq := range p.sendEnd.Acks() {
			p.baselines.Acked(seq)
		}
		p.sendEnd.ClearAcks()
	}
	_, datagrams, err := p.recvEnd.SendPacket(now, nil)
	if err != nil {
		return err
	}
	for _, d := range datagrams {
		p.net.Send(now, receiverAddr, senderAddr, d)
	}
	p.recvEnd.ClearAcks()
	p.sendEnd.Update(now)
	p.recvEnd.Update(now)
	return nil
}

// decode decodes a snapshot packet and checks it: it must equal, bit for
// bit, the snapshot the sender quantized (a stage-9 prediction desync
// cannot hide under an error bound), and its error is measured against
// the real, unclamped state of that tick.
func (p *pipeline) decode(packet []byte, truth *truthRing) error {
	n, got, err := p.recv.Decode(packet)
	if errors.Is(err, interp.ErrStale) {
		return nil
	}
	if err != nil {
		return err
	}
	sent := p.enc.Sent(n)
	if sent == nil {
		return fmt.Errorf("compression: snapshot %d decoded after the sender forgot it", n)
	}
	for i := range sent.Cubes {
		a, b := sent.Cubes[i], got.Cubes[i]
		if a != b {
			return fmt.Errorf("%w: stage %v, tick %d, cube %d: sent %+v, decoded %+v", ErrMismatch, p.enc.Stage(), n, i, a, b)
		}
	}
	if t := truth.at(int(n)); t != nil {
		p.stats.addError(t, got)
	}
	return nil
}
