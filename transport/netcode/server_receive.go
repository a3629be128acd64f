package netcode

import (
	"net/netip"
	"time"
)

// Receive processes one datagram from address from. Invalid packets are
// dropped and counted by reason (Stats); valid ones may queue answers for
// Send. The packet buffer is decrypted in place and not kept.
func (s *Server) Receive(now time.Time, from netip.AddrPort, packet []byte) {
	s.stats.received(len(packet))
	from = canonical(from)
	if len(packet) == 0 {
		s.drop(DropMalformed, nil)
		return
	}
	if packet[0] == byte(PacketRequest) {
		s.receiveRequest(now, from, packet)
		return
	}
	h, err := ParseHeader(packet)
	if err != nil {
		s.drop(DropMalformed, nil)
		return
	}
	if h.Type == PacketDenied || h.Type == PacketChallenge {
		s.drop(DropUnexpectedType, nil)
		return
	}
	m := s.mappings.find(from, now)
	if m == nil {
		s.drop(DropUnknownAddress, nil)
		return
	}
	var c *serverClient
	if m.client >= 0 {
		c = &s.clients[m.client]
		c.counters.received(len(packet))
	}
	if h.Type >= PacketKeepAlive {
		// Keep-alive, payload, disconnect: only from a slot, replay protected.
		if c == nil {
			s.drop(DropNotConnected, nil)
			return
		}
		if c.replay.AlreadyReceived(h.Sequence) {
			s.drop(DropReplayed, c)
			return
		}
	}
	body, err := m.recv.Open(packet, h)
	if err != nil {
		s.drop(DropDecrypt, c)
		return
	}
	m.lastAccess = now
	if h.Type == PacketResponse {
		s.receiveResponse(now, from, m, body)
		return
	}
	c.replay.Advance(h.Sequence)
	c.lastRecv = now
	switch h.Type {
	case PacketKeepAlive:
		c.confirmed = true
	case PacketPayload:
		c.confirmed = true
		if !c.queue.push(body) {
			s.drop(DropQueueFull, c)
			return
		}
		s.stats.PayloadsReceived++
		c.counters.PayloadsReceived++
	case PacketDisconnect:
		s.release(m.client, false)
	}
}

// receiveRequest runs the standard's checks on a connection request, in its
// order, and answers with a challenge, or denied if the server is full.
// Every answer is smaller than the 1078-byte request: no amplification.
func (s *Server) receiveRequest(now time.Time, from netip.AddrPort, packet []byte) {
	req := &s.request
	if err := ParseRequestPacket(packet, req); err != nil {
		if err == ErrRequestVersion {
			s.drop(DropWrongVersion, nil)
		} else {
			s.drop(DropMalformed, nil)
		}
		return
	}
	if req.ProtocolID != s.cfg.ProtocolID {
		s.drop(DropWrongProtocol, nil)
		return
	}
	if req.ExpireTimestamp <= uint64(now.Unix()) {
		s.drop(DropTokenExpired, nil)
		return
	}
	tok, err := OpenPrivateToken(&req.PrivateData, &s.cfg.PrivateKey, req.ProtocolID, req.ExpireTimestamp, &req.Nonce)
	if err != nil {
		s.drop(DropTokenInvalid, nil)
		return
	}
	if !s.listed(tok.ServerAddresses) {
		s.drop(DropWrongServer, nil)
		return
	}
	if _, ok := s.byAddr[from]; ok || s.holdsClientID(now, tok.ClientID) {
		s.drop(DropAlreadyConnected, nil)
		return
	}
	var mac [MACBytes]byte
	copy(mac[:], req.PrivateData[PrivateTokenBytes-MACBytes:])
	if !s.history.use(&mac, from) {
		s.drop(DropTokenReused, nil)
		return
	}
	send := NewPacketKey(s.cfg.ProtocolID, &tok.ServerToClientKey)
	if s.stats.ClientsConnected >= len(s.clients) {
		s.sendGlobal(from, send, PacketDenied, nil)
		s.stats.DeniedSent++
		return
	}
	timeout := secondsTimeout(tok.TimeoutSeconds)
	// The handshake's own deadline, whatever the idle timeout: the
	// configured bound, and never past the token's expiry.
	expire := now.Add(s.cfg.HandshakeTimeout)
	if req.ExpireTimestamp < uint64(expire.Unix()) {
		expire = time.Unix(int64(req.ExpireTimestamp), 0)
	}
	m := s.mappings.add(from, mapping{
		send:       send,
		recv:       NewPacketKey(s.cfg.ProtocolID, &tok.ClientToServerKey),
		lastAccess: now,
		expire:     expire,
		timeout:    timeout,
		client:     -1,
	}, now)
	if m == nil {
		s.drop(DropMappingsFull, nil)
		return
	}
	body := ChallengeBody{TokenSequence: s.challengeSeq}
	body.Token = s.challenge.Seal(&ChallengeToken{ClientID: tok.ClientID, UserData: tok.UserData}, s.challengeSeq)
	s.challengeSeq++
	var buf [challengeBodyBytes]byte
	s.sendGlobal(from, send, PacketChallenge, body.Append(buf[:0]))
	s.stats.ChallengesSent++
}

// receiveResponse admits the client whose challenge token comes back from
// the address it was sent to.
func (s *Server) receiveResponse(now time.Time, from netip.AddrPort, m *mapping, data []byte) {
	body, err := ParseChallengeBody(data)
	if err != nil {
		s.drop(DropMalformed, nil)
		return
	}
	tok, err := s.challenge.Open(&body.Token, body.TokenSequence)
	if err != nil {
		s.drop(DropChallengeInvalid, nil)
		return
	}
	if _, ok := s.byAddr[from]; ok || s.holdsClientID(now, tok.ClientID) {
		// The client repeats its response until the first keep-alive lands.
		s.drop(DropAlreadyConnected, nil)
		return
	}
	if old := s.findClientID(tok.ClientID); old >= 0 {
		s.release(old, true) // silent for ReplaceSilentAfter: the client is back
		s.stats.Replaced++
	}
	i := s.freeSlot()
	if i < 0 {
		s.sendGlobal(from, m.send, PacketDenied, nil)
		s.stats.DeniedSent++
		return
	}
	s.mappings.admit(from, m, i)
	c := &s.clients[i]
	c.connected = true
	c.id = tok.ClientID
	c.addr = from
	c.userData = tok.UserData
	c.lastRecv = now
	c.timeout = m.timeout
	c.keys = m
	s.byAddr[from] = i
	s.byID[c.id] = i
	s.used.set(i)
	s.stats.ClientsConnected++
	s.stats.Connects++
	if s.cfg.OnConnect != nil {
		s.cfg.OnConnect(i, c.id, &c.userData)
	}
	s.sendKeepAlive(now, i)
}

func (s *Server) listed(list []netip.AddrPort) bool {
	for _, a := range list {
		if sameEndpoint(a, s.cfg.PublicAddress) {
			return true
		}
	}
	return false
}

// holdsClientID reports whether a connected slot keeps client id from
// connecting again: it was heard within ReplaceSilentAfter, or
// replacement is off.
func (s *Server) holdsClientID(now time.Time, id ClientID) bool {
	i := s.findClientID(id)
	if i < 0 {
		return false
	}
	after := s.cfg.ReplaceSilentAfter
	return after <= 0 || now.Sub(s.clients[i].lastRecv) < after
}

func (s *Server) findClientID(id ClientID) ClientIndex {
	if i, ok := s.byID[id]; ok {
		return i
	}
	return -1
}

// freeSlot returns the lowest free slot, or -1.
func (s *Server) freeSlot() ClientIndex { return s.used.firstClear() }

// secondsTimeout converts a token's timeout; zero or negative disables it.
func secondsTimeout(seconds int32) time.Duration {
	if seconds <= 0 {
		return 0
	}
	return time.Duration(seconds) * time.Second
}
