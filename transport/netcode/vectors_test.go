package netcode

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"
)

// vectorsPath holds byte-exact vectors produced by the reference C code with
// fixed keys, nonces and timestamps (the project's shared/vectors file,
// kept beside the tests so they run from any checkout).
const vectorsPath = "testdata/netcode-1.02.txt"

type vectorFile struct {
	params   map[string][]byte
	ints     map[string]uint64
	blobs    map[string][]byte
	seqBytes map[uint64]int
}

func loadVectors(tb testing.TB) *vectorFile {
	tb.Helper()
	f, err := os.Open(vectorsPath)
	if err != nil {
		tb.Fatalf("open vectors: %v", err)
	}
	defer f.Close()
	v := &vectorFile{params: map[string][]byte{}, ints: map[string]uint64{}, blobs: map[string][]byte{}, seqBytes: map[uint64]int{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<16)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		switch {
		case len(fs) == 0:
		case fs[0] == "PARAM" && len(fs) == 3:
			base := 0
			if fs[1] == "protocol_id" {
				base = 16 // written in hex without a 0x prefix
			}
			n, err := strconv.ParseUint(fs[2], base, 64)
			if err != nil {
				tb.Fatalf("param %s: %v", fs[1], err)
			}
			v.ints[fs[1]] = n
		case fs[0] == "PARAM" && len(fs) == 4:
			v.params[fs[1]] = mustHex(tb, fs[2], fs[3])
		case fs[0] == "SEQBYTES":
			s, _ := strconv.ParseUint(fs[1], 10, 64)
			n, _ := strconv.Atoi(fs[2])
			v.seqBytes[s] = n
		case fs[0] == "SELFCHECK":
		case len(fs) == 3:
			v.blobs[fs[0]] = mustHex(tb, fs[1], fs[2])
		default:
			tb.Fatalf("unknown vector line %q", sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return v
}

func mustHex(tb testing.TB, size, s string) []byte {
	tb.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		tb.Fatalf("hex: %v", err)
	}
	if strconv.Itoa(len(b)) != size {
		tb.Fatalf("vector has %d bytes, header says %s", len(b), size)
	}
	return b
}

func (v *vectorFile) key(name string) *Key {
	var k Key
	copy(k[:], v.params[name])
	return &k
}

func (v *vectorFile) blob(tb testing.TB, name string) []byte {
	tb.Helper()
	b, ok := v.blobs[name]
	if !ok {
		tb.Fatalf("vector %s missing", name)
	}
	return b
}

// privateToken is the private token the vectors were made from.
func (v *vectorFile) privateToken() *PrivateToken {
	p := &PrivateToken{
		ClientID:       ClientID(v.ints["client_id"]),
		TimeoutSeconds: int32(v.ints["timeout_s"]),
		ServerAddresses: []netip.AddrPort{
			netip.MustParseAddrPort("127.0.0.1:40000"),
			netip.MustParseAddrPort("[::1]:40001"),
		},
		ClientToServerKey: *v.key("c2s_key"),
		ServerToClientKey: *v.key("s2c_key"),
	}
	copy(p.UserData[:], v.params["user_data"])
	return p
}

func (v *vectorFile) nonce() *[TokenNonceBytes]byte {
	var n [TokenNonceBytes]byte
	copy(n[:], v.params["token_nonce"])
	return &n
}

func (v *vectorFile) protocolID() ProtocolID { return ProtocolID(v.ints["protocol_id"]) }

func (v *vectorFile) connectToken(tb testing.TB) *ConnectToken {
	p := v.privateToken()
	sealed, err := SealPrivateToken(p, v.key("private_key"), v.protocolID(), v.ints["expire_ts"], v.nonce())
	if err != nil {
		tb.Fatal(err)
	}
	return &ConnectToken{
		ProtocolID:        v.protocolID(),
		CreateTimestamp:   v.ints["create_ts"],
		ExpireTimestamp:   v.ints["expire_ts"],
		Nonce:             *v.nonce(),
		PrivateData:       sealed,
		TimeoutSeconds:    p.TimeoutSeconds,
		ServerAddresses:   p.ServerAddresses,
		ClientToServerKey: p.ClientToServerKey,
		ServerToClientKey: p.ServerToClientKey,
	}
}

func expectBytes(t *testing.T, name string, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from the reference:\n got %x\nwant %x", name, got, want)
	}
}

func TestVectorPrivateToken(t *testing.T) {
	v := loadVectors(t)
	p := v.privateToken()
	plain, err := p.Plaintext()
	if err != nil {
		t.Fatal(err)
	}
	expectBytes(t, "PRIVATE_TOKEN_PLAINTEXT", plain[:], v.blob(t, "PRIVATE_TOKEN_PLAINTEXT"))
	sealed, err := SealPrivateToken(p, v.key("private_key"), v.protocolID(), v.ints["expire_ts"], v.nonce())
	if err != nil {
		t.Fatal(err)
	}
	expectBytes(t, "PRIVATE_TOKEN_ENCRYPTED", sealed[:], v.blob(t, "PRIVATE_TOKEN_ENCRYPTED"))
	back, err := OpenPrivateToken(&sealed, v.key("private_key"), v.protocolID(), v.ints["expire_ts"], v.nonce())
	if err != nil {
		t.Fatal(err)
	}
	plain2, _ := back.Plaintext()
	expectBytes(t, "private token round trip", plain2[:], plain[:])
}

func TestVectorConnectToken(t *testing.T) {
	v := loadVectors(t)
	tok := v.connectToken(t)
	b, err := tok.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	expectBytes(t, "CONNECT_TOKEN", b[:], v.blob(t, "CONNECT_TOKEN"))
	back, err := ParseConnectToken(v.blob(t, "CONNECT_TOKEN"))
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := back.Marshal()
	expectBytes(t, "connect token round trip", b2[:], b[:])
}

func TestVectorRequestPacket(t *testing.T) {
	v := loadVectors(t)
	req := NewRequestPacket(v.connectToken(t))
	got := req.Append(nil)
	expectBytes(t, "PKT_REQUEST", got, v.blob(t, "PKT_REQUEST"))
	var back RequestPacket
	if err := ParseRequestPacket(got, &back); err != nil {
		t.Fatal(err)
	}
	if back != *req {
		t.Fatal("request packet round trip differs")
	}
}

func TestVectorChallengeToken(t *testing.T) {
	v := loadVectors(t)
	c := ChallengeToken{ClientID: ClientID(v.ints["client_id"])}
	copy(c.UserData[:], v.params["user_data"])
	plain := c.Plaintext()
	expectBytes(t, "CHALLENGE_TOKEN_PLAINTEXT", plain[:], v.blob(t, "CHALLENGE_TOKEN_PLAINTEXT"))
	k := NewChallengeCipher(v.key("challenge_key"))
	sealed := k.Seal(&c, 7)
	expectBytes(t, "CHALLENGE_TOKEN_ENCRYPTED_seq7", sealed[:], v.blob(t, "CHALLENGE_TOKEN_ENCRYPTED_seq7"))
	back, err := k.Open(&sealed, 7)
	if err != nil || back != c {
		t.Fatalf("challenge token round trip: %v", err)
	}
	if _, err := k.Open(&sealed, 8); err == nil {
		t.Fatal("challenge token opened with the wrong sequence")
	}
}

func TestVectorEncryptedPackets(t *testing.T) {
	v := loadVectors(t)
	id := v.protocolID()
	s2c := NewPacketKey(id, v.key("s2c_key"))
	c2s := NewPacketKey(id, v.key("c2s_key"))
	ch := ChallengeToken{ClientID: ClientID(v.ints["client_id"])}
	copy(ch.UserData[:], v.params["user_data"])
	challenge := ChallengeBody{TokenSequence: 7, Token: NewChallengeCipher(v.key("challenge_key")).Seal(&ch, 7)}
	payload := make([]byte, 16)
	for i := range payload {
		payload[i] = byte(i)
	}
	cases := []struct {
		name string
		key  *PacketKey
		typ  PacketType
		seq  Sequence
		body []byte
	}{
		{"PKT_DENIED_seq0_s2c", s2c, PacketDenied, 0, nil},
		{"PKT_CHALLENGE_seq1_s2c", s2c, PacketChallenge, 1, challenge.Append(nil)},
		{"PKT_RESPONSE_seq2_c2s", c2s, PacketResponse, 2, challenge.Append(nil)},
		{"PKT_KEEPALIVE_seq1000_s2c_idx3_max64", s2c, PacketKeepAlive, 1000, KeepAliveBody{ClientIndex: 3, MaxClients: 64}.Append(nil)},
		{"PKT_PAYLOAD_seq0x123456789a_c2s_16bytes_0to15", c2s, PacketPayload, 0x123456789a, payload},
		{"PKT_DISCONNECT_seqmax_c2s", c2s, PacketDisconnect, ^Sequence(0), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.key.Seal(nil, c.typ, c.seq, c.body)
			if err != nil {
				t.Fatal(err)
			}
			expectBytes(t, c.name, got, v.blob(t, c.name))
			h, err := ParseHeader(got)
			if err != nil {
				t.Fatal(err)
			}
			if h.Type != c.typ || h.Sequence != c.seq {
				t.Fatalf("header %+v, want type %v sequence %d", h, c.typ, c.seq)
			}
			body, err := c.key.Open(got, h)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(body, c.body) {
				t.Fatalf("body %x, want %x", body, c.body)
			}
		})
	}
}

func TestVectorSequenceBytes(t *testing.T) {
	v := loadVectors(t)
	if len(v.seqBytes) == 0 {
		t.Fatal("no SEQBYTES vectors")
	}
	for s, n := range v.seqBytes {
		if got := SequenceBytes(Sequence(s)); got != n {
			t.Errorf("SequenceBytes(%d) = %d, want %d", s, got, n)
		}
	}
}
