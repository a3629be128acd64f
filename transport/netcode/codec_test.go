package netcode

import (
	"bytes"
	"errors"
	"net/netip"
	"testing"
)

// Every prefix of every encoding must be refused with an error.
func TestTruncationAtEveryByte(t *testing.T) {
	v := loadVectors(t)
	tok := v.blob(t, "CONNECT_TOKEN")
	for n := range len(tok) {
		if _, err := ParseConnectToken(tok[:n]); err == nil {
			t.Fatalf("connect token cut to %d bytes parsed", n)
		}
	}
	req := v.blob(t, "PKT_REQUEST")
	var rp RequestPacket
	for n := range len(req) {
		if err := ParseRequestPacket(req[:n], &rp); err == nil {
			t.Fatalf("request cut to %d bytes parsed", n)
		}
	}
	plain := v.blob(t, "PRIVATE_TOKEN_PLAINTEXT")
	// The decoded private token ends with the user data; any cut inside its
	// fields must fail.
	fields := 8 + 4 + 4 + 7 + 19 + 2*KeyBytes + UserDataBytes
	for n := range fields {
		if _, err := parsePrivateToken(plain[:n]); err == nil {
			t.Fatalf("private token cut to %d bytes parsed", n)
		}
	}
	id := v.protocolID()
	for _, c := range []struct{ name, key string }{
		{"PKT_DENIED_seq0_s2c", "s2c_key"}, {"PKT_CHALLENGE_seq1_s2c", "s2c_key"},
		{"PKT_RESPONSE_seq2_c2s", "c2s_key"}, {"PKT_KEEPALIVE_seq1000_s2c_idx3_max64", "s2c_key"},
		{"PKT_PAYLOAD_seq0x123456789a_c2s_16bytes_0to15", "c2s_key"}, {"PKT_DISCONNECT_seqmax_c2s", "c2s_key"},
	} {
		p := v.blob(t, c.name)
		k := NewPacketKey(id, v.key(c.key))
		for n := range len(p) {
			cut := append([]byte(nil), p[:n]...)
			h, err := ParseHeader(cut)
			if err == nil {
				_, err = k.Open(cut, h)
			}
			if err == nil {
				t.Fatalf("%s cut to %d bytes opened", c.name, n)
			}
		}
	}
}

func TestPacketRoundTripEveryType(t *testing.T) {
	k := NewPacketKey(testProtocol, &Key{1})
	var ch ChallengeBody
	ch.TokenSequence = 99
	ch.Token[5] = 5
	bodies := map[PacketType][]byte{
		PacketDenied:     nil,
		PacketChallenge:  ch.Append(nil),
		PacketResponse:   ch.Append(nil),
		PacketKeepAlive:  KeepAliveBody{ClientIndex: 255, MaxClients: 256}.Append(nil),
		PacketPayload:    bytes.Repeat([]byte{7}, MaxPayloadBytes),
		PacketDisconnect: nil,
	}
	for typ := PacketDenied; typ < numPacketTypes; typ++ {
		for _, seq := range []Sequence{0, 255, 256, 1 << 40, 1 << 63, ^Sequence(0)} {
			p, err := k.Seal(nil, typ, seq, bodies[typ])
			if err != nil {
				t.Fatalf("%v: %v", typ, err)
			}
			if len(p) != 1+SequenceBytes(seq)+len(bodies[typ])+MACBytes {
				t.Fatalf("%v seq %d: %d bytes", typ, seq, len(p))
			}
			h, err := ParseHeader(p)
			if err != nil || h.Type != typ || h.Sequence != seq {
				t.Fatalf("%v seq %d: header %+v %v", typ, seq, h, err)
			}
			body, err := k.Open(p, h)
			if err != nil || !bytes.Equal(body, bodies[typ]) {
				t.Fatalf("%v seq %d: body differs (%v)", typ, seq, err)
			}
		}
	}
	if kb, err := ParseKeepAliveBody(bodies[PacketKeepAlive]); err != nil || kb.MaxClients != 256 {
		t.Fatalf("keep-alive body %+v %v", kb, err)
	}
	if cb, err := ParseChallengeBody(bodies[PacketChallenge]); err != nil || cb != ch {
		t.Fatalf("challenge body %v", err)
	}
	if _, err := k.Seal(nil, PacketPayload, 0, nil); !errors.Is(err, ErrPayloadSize) {
		t.Fatalf("empty payload: %v", err)
	}
	if _, err := k.Seal(nil, PacketPayload, 0, make([]byte, MaxPayloadBytes+1)); !errors.Is(err, ErrPayloadSize) {
		t.Fatalf("oversized payload: %v", err)
	}
}

func TestConnectTokenRoundTripIPv6AndMaxServers(t *testing.T) {
	p := DefaultTokenParams()
	p.ProtocolID = testProtocol
	p.ClientID = 77
	for i := range MaxServers {
		a := netip.MustParseAddrPort("[2001:db8::1]:9")
		if i%2 == 0 {
			a = netip.AddrPortFrom(netip.AddrFrom4([4]byte{192, 168, 0, byte(i)}), uint16(1000+i))
		}
		p.ServerAddresses = append(p.ServerAddresses, a)
	}
	key := Key{9}
	tok, err := GenerateConnectToken(&p, testEpoch, &key, seeded(3))
	if err != nil {
		t.Fatal(err)
	}
	b, err := tok.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseConnectToken(b[:])
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := back.Marshal()
	if b != b2 {
		t.Fatal("token round trip differs")
	}
	priv, err := OpenPrivateToken(&back.PrivateData, &key, testProtocol, back.ExpireTimestamp, &back.Nonce)
	if err != nil {
		t.Fatal(err)
	}
	if priv.ClientID != 77 || len(priv.ServerAddresses) != MaxServers || priv.ServerAddresses[1] != p.ServerAddresses[1] {
		t.Fatalf("private token %+v", priv)
	}
	p.ServerAddresses = append(p.ServerAddresses, p.ServerAddresses[0])
	if _, err := GenerateConnectToken(&p, testEpoch, &key, seeded(3)); !errors.Is(err, ErrServerCount) {
		t.Fatalf("33 servers: %v", err)
	}
}

func TestReplayProtection(t *testing.T) {
	var r ReplayProtection
	if r.AlreadyReceived(0) {
		t.Fatal("fresh window rejects 0")
	}
	r.Advance(0)
	if !r.AlreadyReceived(0) {
		t.Fatal("0 accepted twice")
	}
	r.Advance(1000)
	if !r.AlreadyReceived(1000-ReplayBufferSize) || r.AlreadyReceived(1000-ReplayBufferSize+1) {
		t.Fatal("window edge wrong")
	}
	// Errata §1: no wrap at the top of the sequence space.
	var top ReplayProtection
	top.Advance(^Sequence(0) - 1)
	if top.AlreadyReceived(^Sequence(0)) {
		t.Fatal("sequence 2^64-1 rejected")
	}
	top.Advance(^Sequence(0))
	if !top.AlreadyReceived(^Sequence(0)) {
		t.Fatal("sequence 2^64-1 accepted twice")
	}
}
