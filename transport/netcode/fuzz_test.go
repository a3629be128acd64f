package netcode

import (
	"bytes"
	"net/netip"
	"testing"
	"time"
)

func addVectorSeeds(f *testing.F) {
	v := loadVectors(f)
	for _, b := range v.blobs {
		f.Add(b)
	}
}

// FuzzParseConnectToken: whatever parses re-encodes to the same bytes.
func FuzzParseConnectToken(f *testing.F) {
	addVectorSeeds(f)
	f.Add(mappedAddressToken(f))
	f.Fuzz(func(t *testing.T, b []byte) {
		tok, err := ParseConnectToken(b)
		if err != nil {
			return
		}
		out, err := tok.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(canonicalTokenBytes(b), out[:]) {
			t.Fatal("connect token does not re-encode to its bytes")
		}
	})
}

// canonicalTokenBytes rewrites, in the bytes of a parsed token, the IPv6
// server addresses that are IPv4-mapped into the IPv4 entries Marshal
// writes for them (7 bytes instead of 19, the rest moving up over the zero
// padding); other bytes are kept. It reads the input, not a decoding of it,
// so a Marshal that drops or garbles an address cannot match.
func canonicalTokenBytes(b []byte) []byte {
	off := versionBytes + 24 + TokenNonceBytes + PrivateTokenBytes + 4
	out := append([]byte(nil), b[:off+4]...)
	n := int(le.Uint32(b[off:]))
	off += 4
	for range n {
		e := b[off:]
		if e[0] == addressIPv6 && isZero(e[1:11]) && e[11] == 0xff && e[12] == 0xff {
			// Groups are uint16 LE: the IPv4 bytes a.b.c.d sit as b a d c.
			out = append(out, addressIPv4, e[14], e[13], e[16], e[15], e[17], e[18])
			off += 19
			continue
		}
		size := 7
		if e[0] == addressIPv6 {
			size = 19
		}
		out = append(out, e[:size]...)
		off += size
	}
	out = append(out, b[off:]...)
	return append(out, make([]byte, ConnectTokenBytes-len(out))...)
}

// mappedAddressToken returns token bytes whose second server address is
// an IPv6 entry holding the IPv4-mapped [::ffff:10.0.0.1]:40000, as another
// implementation may write it, between an IPv4 and an IPv6 address.
func mappedAddressToken(tb testing.TB) []byte {
	p := DefaultTokenParams()
	p.ServerAddresses = []netip.AddrPort{netip.MustParseAddrPort("10.0.0.2:40000"),
		netip.MustParseAddrPort("[1::ffff:a00:1]:40000"), netip.MustParseAddrPort("[2001:db8::1]:40001")}
	tok, err := GenerateConnectToken(&p, time.Unix(1700000000, 0), &Key{1}, seeded(3))
	if err != nil {
		tb.Fatal(err)
	}
	b, err := tok.Marshal()
	if err != nil {
		tb.Fatal(err)
	}
	first := versionBytes + 24 + TokenNonceBytes + PrivateTokenBytes + 4 + 4 + 7
	b[first+1], b[first+2] = 0, 0 // the group 1:: becomes 0::
	if back, err := ParseConnectToken(b[:]); err != nil || !back.ServerAddresses[1].Addr().Is4In6() {
		tb.Fatalf("seed is not an IPv4-mapped address: %v", err)
	}
	return b[:]
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// FuzzParsePrivateToken: decrypted private tokens re-encode to their fields.
func FuzzParsePrivateToken(f *testing.F) {
	addVectorSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := parsePrivateToken(b)
		if err != nil {
			return
		}
		plain, err := p.Plaintext()
		if err != nil {
			t.Fatal(err)
		}
		q, err := parsePrivateToken(plain[:])
		if err != nil {
			t.Fatal(err)
		}
		plain2, _ := q.Plaintext()
		if plain != plain2 {
			t.Fatal("private token not stable under re-encoding")
		}
	})
}

// FuzzParseRequestPacket: whatever parses re-encodes to the same bytes.
func FuzzParseRequestPacket(f *testing.F) {
	addVectorSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		var p RequestPacket
		if ParseRequestPacket(b, &p) != nil {
			return
		}
		if !bytes.Equal(p.Append(nil), b) {
			t.Fatal("request packet does not re-encode to its bytes")
		}
	})
}

// FuzzOpenPacket: a packet that parses and authenticates re-seals to the
// same bytes; headers re-encode to the same prefix and sequence.
func FuzzOpenPacket(f *testing.F) {
	addVectorSeeds(f)
	v := loadVectors(f)
	keys := []*PacketKey{NewPacketKey(v.protocolID(), v.key("c2s_key")), NewPacketKey(v.protocolID(), v.key("s2c_key"))}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ParseHeader(b)
		if err != nil {
			return
		}
		nseq := int(b[0] >> 4)
		if nseq == SequenceBytes(h.Sequence) {
			hdr := append([]byte{b[0]}, b[1:1+nseq]...)
			re, _ := keys[0].Seal(nil, h.Type, h.Sequence, make([]byte, len(b)-h.DataOffset-MACBytes))
			if !bytes.Equal(re[:1+nseq], hdr) {
				t.Fatalf("header %x re-encodes as %x", hdr, re[:1+nseq])
			}
		}
		for _, k := range keys {
			pkt := append([]byte(nil), b...)
			body, err := k.Open(pkt, h)
			if err != nil {
				continue
			}
			body = append([]byte(nil), body...)
			re, err := k.Seal(nil, h.Type, h.Sequence, body)
			if err != nil {
				t.Fatal(err)
			}
			if nseq == SequenceBytes(h.Sequence) && !bytes.Equal(re, b) {
				t.Fatal("authenticated packet does not re-seal to its bytes")
			}
		}
	})
}

// FuzzServerReceive: arbitrary datagrams never panic the server, every one
// is counted, and nothing is answered with more bytes than it came with.
func FuzzServerReceive(f *testing.F) {
	addVectorSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		h := newHarness(t, 2)
		from := netip.MustParseAddrPort("10.0.1.1:50000")
		h.server.Receive(h.now, from, b)
		st := h.server.Stats()
		if st.PacketsReceived != 1 || st.BytesReceived != uint64(len(b)) {
			t.Fatalf("counters %+v", st.Counters)
		}
		for _, d := range h.server.Send() {
			if len(d.Data) >= len(b) {
				t.Fatalf("%d-byte answer to a %d-byte packet", len(d.Data), len(b))
			}
		}
	})
}

// FuzzClientReceive: arbitrary datagrams never panic a connecting client.
func FuzzClientReceive(f *testing.F) {
	addVectorSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		h := newHarness(t, 2)
		c := h.addClient(h.token(1, 5))
		c.Receive(h.now, testServer, b)
		if c.Counters().PacketsReceived != 1 {
			t.Fatal("datagram not counted")
		}
	})
}

// FuzzParseBodies: the per-type bodies re-encode to their bytes.
func FuzzParseBodies(f *testing.F) {
	var ch ChallengeBody
	ch.TokenSequence = 7
	ch.Token[0] = 1
	f.Add(ch.Append(nil))
	f.Add(KeepAliveBody{ClientIndex: 3, MaxClients: 64}.Append(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		if c, err := ParseChallengeBody(b); err == nil && !bytes.Equal(c.Append(nil), b) {
			t.Fatal("challenge body does not re-encode to its bytes")
		}
		if k, err := ParseKeepAliveBody(b); err == nil && !bytes.Equal(k.Append(nil), b) {
			t.Fatal("keep-alive body does not re-encode to its bytes")
		}
	})
}
