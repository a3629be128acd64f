package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/tokenservice"
)

// defaultProtocolID is "NETPHYS1" read as a little-endian uint64: the
// protocol id of netphys's own demo games.
const defaultProtocolID = "0x315359485054454e"

func init() {
	register(&command{
		name:    "token",
		summary: "print a netcode 1.02 connect token (base64) for a client",
		setup:   setupToken,
	})
}

// keyFlags are the --key and --key-file flags shared by token and serve.
type keyFlags struct{ hexKey, file string }

func (k *keyFlags) declare(fs *flag.FlagSet) {
	fs.StringVar(&k.hexKey, "key", "", "private key shared by token issuer and servers, 64 hex digits")
	fs.StringVar(&k.file, "key-file", "", "file holding the private key: 64 hex digits or 32 raw bytes")
}

var errNoKey = errors.New("give the private key with --key or --key-file (netphys token --new-key makes one)")

// key returns the private key from the flags.
func (k *keyFlags) key() (netcode.Key, error) {
	var key netcode.Key
	text := []byte(k.hexKey)
	switch {
	case k.hexKey != "" && k.file != "":
		return key, errors.New("give --key or --key-file, not both")
	case k.file != "":
		b, err := os.ReadFile(k.file)
		if err != nil {
			return key, err
		}
		if len(b) == netcode.KeyBytes {
			copy(key[:], b)
			return key, nil
		}
		text = bytes.TrimSpace(b)
	case k.hexKey == "":
		return key, errNoKey
	}
	n, err := hex.Decode(key[:], text)
	if err != nil || n != netcode.KeyBytes || len(text) != 2*netcode.KeyBytes {
		return key, fmt.Errorf("private key must be %d hex digits", 2*netcode.KeyBytes)
	}
	return key, nil
}

// parseProtocolID reads a protocol id in decimal or 0x hex.
func parseProtocolID(s string) (netcode.ProtocolID, error) {
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return 0, fmt.Errorf("protocol id %q: %w", s, err)
	}
	return netcode.ProtocolID(v), nil
}

// parseAddrList reads comma-separated host:port addresses (IPv6 in brackets).
func parseAddrList(s string) ([]netip.AddrPort, error) {
	var out []netip.AddrPort
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		a, err := netip.ParseAddrPort(f)
		if err != nil {
			return nil, fmt.Errorf("server address %q: %w", f, err)
		}
		out = append(out, a)
	}
	if len(out) == 0 || len(out) > netcode.MaxServers {
		return nil, fmt.Errorf("give 1 to %d server addresses", netcode.MaxServers)
	}
	return out, nil
}

// mintFlags are the flags of whoever mints tokens (token, load): the
// server's key, the protocol id and the server addresses.
type mintFlags struct {
	keys              keyFlags
	protocol, servers *string
}

func (m *mintFlags) declare(fs *flag.FlagSet) {
	m.keys.declare(fs)
	m.protocol = fs.String("protocol-id", defaultProtocolID, "protocol id of the game, decimal or 0x hex")
	m.servers = fs.String("servers", "127.0.0.1:40000", "comma-separated server addresses, tried in order")
}

// params returns the key and DefaultTokenParams with the flags' protocol
// id and servers.
func (m *mintFlags) params() (netcode.Key, netcode.TokenParams, error) {
	p := netcode.DefaultTokenParams()
	key, err := m.keys.key()
	if err != nil {
		return key, p, err
	}
	if p.ProtocolID, err = parseProtocolID(*m.protocol); err != nil {
		return key, p, err
	}
	p.ServerAddresses, err = parseAddrList(*m.servers)
	return key, p, err
}

func setupToken(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
	var mint mintFlags
	mint.declare(fs)
	newKey := fs.Bool("new-key", false, "print a new random private key (hex) and exit")
	clientID := fs.Uint64("client-id", 0, "the backend's id of the user (0: random); not the player number, which the server gives in the order the players join (player 1, 2, ...)")
	expiry := fs.Duration("expiry", 30*time.Second, "how long the token stays valid")
	timeout := fs.Int("timeout", 10, "seconds of silence before either side drops the connection; negative: never (development only); 0 is refused, reference servers cannot complete its handshake")
	userData := fs.String("user-data", "", "text handed to the server, at most 256 bytes")
	userHex := fs.String("user-data-hex", "", "user data as hex, instead of --user-data")
	var room tokenservice.Match
	fs.StringVar(&room.ID, "match", "", "name the match the player is for, by this id, in the user data (serve --rooms opens it on its first token); with --match-model, --match-players, --match-layout")
	fs.StringVar(&room.Model, "match-model", "lockstep", "with --match: the match's network model")
	fs.IntVar(&room.Players, "match-players", 4, "with --match: the match's players (statesync: the host's seat included)")
	fs.StringVar(&room.Layout, "match-layout", "", "with --match: the cube world's layout (default: the server's)")
	fs.StringVar(&room.Game, "match-game", "", "with --match: the game (default: the server's, the cube world)")
	format := fs.String("format", "base64", "output encoding: base64 or hex")
	out := fs.String("out", "", "write the token to this file instead of stdout")
	return func(ctx context.Context, args []string) error {
		if *newKey {
			var k netcode.Key
			if _, err := rand.Read(k[:]); err != nil {
				return err
			}
			fmt.Fprintln(stdoutOf(fs), hex.EncodeToString(k[:]))
			return nil
		}
		key, p, err := mint.params()
		if err != nil {
			return err
		}
		p.ClientID = netcode.ClientID(*clientID)
		if p.ClientID == 0 {
			var b [8]byte
			if _, err := rand.Read(b[:]); err != nil {
				return err
			}
			p.ClientID = netcode.ClientID(binary.LittleEndian.Uint64(b[:]))
		}
		p.Expiry = *expiry
		p.TimeoutSeconds = int32(*timeout)
		ud := []byte(*userData)
		if *userHex != "" {
			if ud, err = hex.DecodeString(*userHex); err != nil {
				return fmt.Errorf("--user-data-hex: %w", err)
			}
		}
		switch {
		case room.ID != "" && len(ud) > 0:
			return errors.New("--match writes the user data: give it or --user-data, not both")
		case room.ID != "":
			if p.UserData, err = room.UserData(); err != nil {
				return fmt.Errorf("--match: %w", err)
			}
		default:
			if p.UserData, err = transport.UserDataFrom(ud); err != nil {
				return err
			}
		}
		tok, err := netcode.GenerateConnectToken(&p, time.Now(), &key, nil)
		if err != nil {
			return err
		}
		var text string
		switch *format {
		case "base64":
			text, err = transport.EncodeToken(tok)
		case "hex":
			var b [netcode.ConnectTokenBytes]byte
			b, err = tok.Marshal()
			text = hex.EncodeToString(b[:])
		default:
			return fmt.Errorf("--format %q: want base64 or hex", *format)
		}
		if err != nil {
			return err
		}
		if *out != "" {
			return os.WriteFile(*out, []byte(text+"\n"), 0o600)
		}
		_, err = fmt.Fprintln(stdoutOf(fs), text)
		return err
	}
}

// stdoutOf returns the writer the command prints to: run gives each flag
// set the program's stdout.
func stdoutOf(fs *flag.FlagSet) io.Writer { return fs.Output() }

// tokenFlags declares --token and --token-file on fs and returns the
// function that reads the token they give, refusing one that has expired
// by this machine's clock.
func tokenFlags(fs *flag.FlagSet) func() (*netcode.ConnectToken, error) {
	text := fs.String("token", "", "connect token, base64 or hex (from netphys token)")
	file := fs.String("token-file", "", "file holding the connect token (base64, hex or 2048 raw bytes)")
	return func() (*netcode.ConnectToken, error) {
		var raw []byte
		switch {
		case *text != "" && *file != "":
			return nil, errors.New("give --token or --token-file, not both")
		case *text != "":
			raw = []byte(*text)
		case *file != "":
			b, err := os.ReadFile(*file)
			if err != nil {
				return nil, err
			}
			raw = b
		default:
			return nil, errors.New("give the connect token with --token or --token-file")
		}
		tok, err := transport.DecodeToken(raw)
		if err != nil {
			return nil, err
		}
		return tok, checkExpiry(tok, time.Now())
	}
}
