package transport

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/netphys/netphys/transport/netcode"
)

func vectorToken(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile("netcode/testdata/netcode-1.02.txt")
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "CONNECT_TOKEN" {
			raw, err := hex.DecodeString(f[2])
			if err != nil {
				tb.Fatal(err)
			}
			return raw
		}
	}
	tb.Fatal("no CONNECT_TOKEN vector")
	return nil
}

func TestDecodeTokenForms(t *testing.T) {
	raw := vectorToken(t)
	for name, in := range map[string][]byte{
		"raw":    raw,
		"base64": []byte(base64.StdEncoding.EncodeToString(raw) + "\n"),
		"hex":    []byte("  " + hex.EncodeToString(raw)),
	} {
		tok, err := DecodeToken(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		text, err := EncodeToken(tok)
		if err != nil || text != base64.StdEncoding.EncodeToString(raw) {
			t.Fatalf("%s: re-encoded differently (%v)", name, err)
		}
	}
	if _, err := DecodeToken([]byte("abc")); !errors.Is(err, ErrTokenText) {
		t.Fatalf("short text: %v", err)
	}
	if _, err := UserDataFrom(make([]byte, netcode.UserDataBytes+1)); !errors.Is(err, ErrUserData) {
		t.Fatalf("oversized user data: %v", err)
	}
}

// FuzzDecodeToken: whatever decodes re-encodes to a token that decodes to
// the same bytes.
func FuzzDecodeToken(f *testing.F) {
	raw := vectorToken(f)
	f.Add(raw)
	f.Add([]byte(base64.StdEncoding.EncodeToString(raw)))
	f.Add([]byte(hex.EncodeToString(raw)))
	f.Fuzz(func(t *testing.T, b []byte) {
		tok, err := DecodeToken(b)
		if err != nil {
			return
		}
		text, err := EncodeToken(tok)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeToken([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		text2, _ := EncodeToken(back)
		if text != text2 {
			t.Fatal("token text not stable")
		}
	})
}
