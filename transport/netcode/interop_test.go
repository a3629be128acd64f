package netcode

import (
	"encoding/hex"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// referenceTokenTimeoutDisabled was produced by the reference C
// implementation (mas-bandwidth/netcode netcode.c at 01bf1531, the NETCODE
// 1.02 code), by netcode_generate_connect_token with the private key
// 000102..1f, protocol id 0x1122334455667788, client id 0x0123456789abcdef,
// servers 127.0.0.1:40000 and [::1]:40001, expiry 30 s, timeout -1 and user
// data "reference user data". Its nonce and session keys are random. These
// are its first 1183 bytes; the other 865 are zero padding.
const referenceTokenTimeoutDisabled = "" +
	"4e4554434f444520312e30320088776655443322112358026b000000004158026b00000000ca5b29d452e08d3f83571d" +
	"46b99df639859e3244f4f7dbde2d8d2b2406790d41ac02eba22e87230a9c2a6e992a28078464ed294bd1a732d8ae9ee6" +
	"9949e0dff4c01aae8089789a6d16a4dbda6e700d1d5938e7ad83ac0b8fe1ff7a4bca8387bfd0d983630eac5306beb50a" +
	"606bb0dafc1824d01708f2c1031af70879d11ddba28eacae14337981ffae60ca6fc52fdc149513633593cad8449d7024" +
	"7928c0de3ae1d55e03ed29e8cddad5dd346b25f0417cd37ffd66ae866e7a86f3b129e1547ef64a8a473c09a7e752e08f" +
	"e537adb2d0fc6a7701d94ce802f552cd566421fb635be0e58c63dcbf993a000a31d2a4dc33c5f13a9e71cce94b52f237" +
	"51e983406a94164c9b250cedaf62cf9db1b4bbc886ec6569d78372a25fb0f98806b68ce9498e9e59c8e05505eb08c273" +
	"efb60d3ff16e79a2b5243724528b241c431639e69783f31c32b7bc7e5bc65e786f7d86bf86e50da846798c26357cecc6" +
	"8744eac90990d904c0aad82de4a82b3dfe40d2b51b4270f977225f4cd5b66b41412ee8ba1616c25557ea7e60bd641885" +
	"7a0c9930eb03a434de1e632f5fde9c4d4a260dd2f6fb60de1ee1539b2d856743fc921a472c9c737822b9806fa6644b06" +
	"2605c942ebc7db7f70fb08a9b12e6d577b3eb57eb7acb5c77344b45b69540332da401578aecde45fa135efe824b8651c" +
	"eff1c5f03731abbc27d4aa161d6d33a8abd6e2567d51151e11c6ea62507613c7eefbcaff97ad519b1a7a4025a0756cba" +
	"cefa5a4edccc1e2bcf7d59ad11b30b829f9e864413b8a1fce6d55d743b4e66d6d834bac351d81b8163d155d5349e74dc" +
	"5393fb7367d7dd2c912b8d3e38e70395fd5bdb9b87d0b9eb4c4d09b2acb58414db5d5d9a4fca6c520cc27b3d549d40ec" +
	"d3e878075958214dfa675e15ab8ee74d7369aa44cb6b306d12b3703014e371536ba655917343d0f8d5fa944782c51a18" +
	"c811ea997eb03ce405af8b3c65e259ea6ea7811cb1307904bc037b1524a684828f664a0f60f0aaa2ad35159c423785dc" +
	"339f15925e4e18a159fc5539348dd357639ba2eee0700ca4df402272e3ee38aab892ce1330cbd8ca0b93174ee465d02f" +
	"54ac7d853a142432650b40edd04d2083fc4d2b1e5143453ebc6540ac3c098092e405f0404d477c719ba16b1445696bd2" +
	"e72811d92bd33a549a07c6df059b3f29ebf6ef76c96690ecc9795408ab07758b179311f6d18b214ce6e259078594a4cb" +
	"73509921934e41c3db5ec3695219f1f23ea6f746fc8ffa960821f8ed24e544b790b1fa6756a528fe4618e35745b76a14" +
	"4fe997dc7cd270ea7c957b950248c38ae48a350acdfd1bab319e0fa271f0b65813cc648373980863da8856374b93db2b" +
	"a50c7331b8316c7ffab4d1e8e09b3a6fdf1083be33ae5a4b085cf83a20ea154cbd4b26e1fc21641e0555c88a23afadaa" +
	"e8e7564466b6a64c0ec4a0b2d8a1337dd98c2042062a9545e0ab731439ffffffff02000000017f000001409c02000000" +
	"00000000000000000000000100419cb3fc3e21ea172aba289daeb9f6513781225f0b4c95bffb96911aa9bca5597f001e" +
	"f84650a3a7f04b0b7139078a5c43e765499cf809fa476444821eeb14031d03"

// The reference encodes "no timeout" as -1 and its server gives a handshake
// timeout-seconds to complete: a token with timeout 0 never connects to it.
// netphys used to document and issue timeout 0 as "never"; it now rejects
// zero and issues -1, byte for byte as the reference does.
func TestReferenceTokenWithTimeoutDisabled(t *testing.T) {
	raw, err := hex.DecodeString(referenceTokenTimeoutDisabled)
	if err != nil {
		t.Fatal(err)
	}
	raw = append(raw, make([]byte, ConnectTokenBytes-len(raw))...)
	tok, err := ParseConnectToken(raw)
	if err != nil {
		t.Fatal(err)
	}
	wantServers := []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:40000"), netip.MustParseAddrPort("[::1]:40001")}
	if tok.ProtocolID != 0x1122334455667788 || tok.TimeoutSeconds != -1 || tok.ExpireTimestamp-tok.CreateTimestamp != 30 ||
		len(tok.ServerAddresses) != 2 || tok.ServerAddresses[0] != wantServers[0] || tok.ServerAddresses[1] != wantServers[1] {
		t.Fatalf("public token %+v", tok)
	}
	back, err := tok.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if string(back[:]) != string(raw) {
		t.Fatal("reference token does not round-trip")
	}
	var key Key
	for i := range key {
		key[i] = byte(i)
	}
	priv, err := OpenPrivateToken(&tok.PrivateData, &key, tok.ProtocolID, tok.ExpireTimestamp, &tok.Nonce)
	if err != nil {
		t.Fatal(err)
	}
	if priv.ClientID != 0x0123456789abcdef || priv.TimeoutSeconds != -1 || len(priv.ServerAddresses) != 2 ||
		priv.ServerAddresses[1] != wantServers[1] || priv.ClientToServerKey != tok.ClientToServerKey ||
		!strings.HasPrefix(string(priv.UserData[:]), "reference user data\x00") {
		t.Fatalf("private token %+v", priv)
	}

	// netphys issues the same timeout field and refuses zero.
	p := DefaultTokenParams()
	p.ProtocolID = tok.ProtocolID
	p.ServerAddresses = wantServers
	p.TimeoutSeconds = 0
	if _, err := GenerateConnectToken(&p, testEpoch, &key, seeded(9)); !errors.Is(err, ErrTokenTimeout) {
		t.Fatalf("timeout 0: %v, want ErrTokenTimeout", err)
	}
	p.TimeoutSeconds = -1
	ours, err := GenerateConnectToken(&p, testEpoch, &key, seeded(9))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ours.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	const timeoutAt = versionBytes + 8 + 8 + 8 + TokenNonceBytes + PrivateTokenBytes
	if got, want := hex.EncodeToString(b[timeoutAt:timeoutAt+4]), hex.EncodeToString(raw[timeoutAt:timeoutAt+4]); got != want {
		t.Fatalf("timeout field %s, reference %s", got, want)
	}
}

// A negative timeout disables timeouts on both sides: an hour of silence
// leaves the connection up.
func TestNegativeTimeoutNeverTimesOut(t *testing.T) {
	h := newHarness(t, 1)
	c := h.addClient(h.token(1, -1))
	h.connectAll()
	h.filter = func(*Datagram, bool, netip.AddrPort) bool { return false }
	for range 60 {
		h.step(time.Minute)
	}
	if c.State() != StateConnected || !h.server.Connected(0) {
		t.Fatalf("after an hour of silence: client %v, server slot connected %v", c.State(), h.server.Connected(0))
	}
}
