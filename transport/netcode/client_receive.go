package netcode

import (
	"net/netip"
	"time"
)

// Receive processes one datagram from address from. Invalid packets are
// dropped and counted by reason (Counters). The packet buffer is decrypted
// in place and not kept.
func (c *Client) Receive(now time.Time, from netip.AddrPort, packet []byte) {
	c.counters.received(len(packet))
	if c.state <= StateDisconnected || !sameEndpoint(from, c.ServerAddress()) {
		c.drop(DropUnknownAddress)
		return
	}
	if len(packet) > 0 && packet[0] == byte(PacketRequest) {
		c.drop(DropUnexpectedType)
		return
	}
	h, err := ParseHeader(packet)
	if err != nil {
		c.drop(DropMalformed)
		return
	}
	if h.Type == PacketResponse {
		c.drop(DropUnexpectedType)
		return
	}
	protected := h.Type >= PacketKeepAlive // replay protected types
	if protected && c.replay.AlreadyReceived(h.Sequence) {
		c.drop(DropReplayed)
		return
	}
	body, err := c.recv.Open(packet, h)
	if err != nil {
		c.drop(DropDecrypt)
		return
	}
	if protected {
		c.replay.Advance(h.Sequence)
	}
	switch {
	case h.Type == PacketDenied && c.state < StateConnected:
		c.fail(now, StateDenied)
	case h.Type == PacketChallenge && c.state == StateSendingRequest:
		ch, err := ParseChallengeBody(body)
		if err != nil {
			c.drop(DropMalformed)
			return
		}
		c.challenge = ch
		c.state = StateSendingResponse
		c.lastRecv = now
		c.lastSend = time.Time{} // answer at the next Update
	case h.Type == PacketKeepAlive && c.state >= StateSendingResponse:
		ka, err := ParseKeepAliveBody(body)
		if err != nil {
			c.drop(DropMalformed)
			return
		}
		if c.state == StateSendingResponse {
			c.state = StateConnected
			c.index = ClientIndex(ka.ClientIndex)
			c.maxClients = int(ka.MaxClients)
		}
		c.lastRecv = now
	case h.Type == PacketPayload && c.state == StateConnected:
		c.lastRecv = now
		if !c.queue.push(body) {
			c.drop(DropQueueFull)
			return
		}
		c.counters.PayloadsReceived++
	case h.Type == PacketDisconnect && c.state == StateConnected:
		c.state = StateDisconnected
	case h.Type == PacketPayload:
		c.drop(DropNotConnected)
	default:
		c.drop(DropWrongState)
	}
}

func (c *Client) drop(r DropReason) { c.counters.Drops[r]++ }
