package tokenservice_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/tokenservice"
)

// TestMatchesCreateIssueListEnd: a backend creates matches, players get
// tokens naming theirs in the user data, the backend lists them and ends
// one, which its server is told of; what is malformed, unknown or
// unauthorized is refused with the reason.
func TestMatchesCreateIssueListEnd(t *testing.T) {
	server := netip.MustParseAddrPort("192.0.2.9:40000")
	var mu sync.Mutex
	var ended []string
	ms := &tokenservice.Matches{
		Tokens: &tokenservice.Handler{Params: netcode.DefaultTokenParams(), PrivateKey: testKey, Logger: quiet,
			Authenticate: func(r *http.Request) (uint64, []byte, error) {
				var id uint64
				if _, err := fmt.Sscan(r.URL.Query().Get("player"), &id); err != nil {
					return 0, nil, errors.New("who are you?")
				}
				return id, []byte("ignored: the match's user data win"), nil
			}},
		Admin: func(r *http.Request) error {
			if r.Header.Get("Authorization") != "Bearer backend" {
				return errors.New("the backend's credentials, please")
			}
			return nil
		},
		End: func(ctx context.Context, m tokenservice.MatchInfo) error {
			mu.Lock()
			defer mu.Unlock()
			ended = append(ended, m.ID)
			return nil
		},
		Logger: quiet,
	}
	ms.Tokens.Params.ProtocolID = testProtocol
	ms.Tokens.Params.ServerAddresses = []netip.AddrPort{server}
	web := httptest.NewServer(ms)
	defer web.Close()
	do := func(method, path, body string, admin bool) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, web.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if admin {
			req.Header.Set("Authorization", "Bearer backend")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	lockstep := `{"id":"m-1","model":"lockstep","layout":"tower20","players":4}`
	for _, c := range []struct {
		method, path, body string
		admin              bool
		code               int
		says               string
	}{
		{"POST", "/matches", lockstep, false, 401, "credentials"},
		{"POST", "/matches", lockstep, true, 201, `"id":"m-1"`},
		{"POST", "/matches", lockstep, true, 409, "exists"},
		{"POST", "/matches", `{"id":"m 2","model":"lockstep","players":4}`, true, 400, "letters"},
		{"POST", "/matches", `{"model":"lockstep","players":4,"colour":"red"}`, true, 400, "colour"},
		{"POST", "/matches", `{"model":"predict","players":0}`, true, 400, "players"},
		{"POST", "/matches", `not json`, true, 400, "JSON match"},
		{"POST", "/matches", `{"model":"statesync","players":4}`, true, 201, `"id":"m-`},
		{"GET", "/matches/m-9/token?player=1", "", false, 404, "no match"},
		{"GET", "/matches/m-1/token", "", false, 401, "who are you"},
		{"GET", "/matches", "", false, 401, "credentials"},
	} {
		if code, body := do(c.method, c.path, c.body, c.admin); code != c.code || !strings.Contains(body, c.says) {
			t.Errorf("%s %s %s: HTTP %d %s, want %d saying %q", c.method, c.path, c.body, code, body, c.code, c.says)
		}
	}

	code, body := do("POST", "/matches/m-1/token?player=5", "", false)
	if code != http.StatusOK {
		t.Fatalf("token: HTTP %d %s", code, body)
	}
	tok, priv := openToken(t, body)
	m, ok, err := tokenservice.MatchFromUserData(&priv.UserData)
	want := tokenservice.Match{ID: "m-1", Model: "lockstep", Layout: "tower20", Players: 4}
	if !ok || err != nil || m != want || priv.ClientID != 5 || len(tok.ServerAddresses) != 1 || tok.ServerAddresses[0] != server {
		t.Fatalf("token: match %+v (%v, %v), client %d, servers %v", m, ok, err, priv.ClientID, tok.ServerAddresses)
	}

	var list []tokenservice.MatchInfo
	code, body = do("GET", "/matches", "", true)
	if err := json.Unmarshal([]byte(body), &list); code != 200 || err != nil || len(list) != 2 || list[0].Match != want || list[0].Tokens != 1 ||
		list[1].Model != "statesync" || list[0].Created.IsZero() {
		t.Fatalf("list: HTTP %d %s (%v)", code, body, err)
	}
	if code, body := do("DELETE", "/matches/m-1", "", true); code != 200 || len(ended) != 1 || ended[0] != "m-1" {
		t.Fatalf("end: HTTP %d %s, server told of %v", code, body, ended)
	}
	if code, _ := do("GET", "/matches/m-1/token?player=6", "", false); code != 404 {
		t.Fatalf("a token of an ended match: HTTP %d, want 404", code)
	}
	if code, body := do("GET", "/matches/"+list[1].ID, "", true); code != 200 || !strings.Contains(body, `"model":"statesync"`) {
		t.Fatalf("get: HTTP %d %s", code, body)
	}
}

// TestEndAtTellsTheServer: EndAt sends DELETE /matches/{id} to the
// server's admin API; a match the server no longer runs is no error, a
// failing server is.
func TestEndAtTellsTheServer(t *testing.T) {
	var got []string
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Method+" "+r.URL.Path)
		w.WriteHeader(status)
	}))
	defer srv.Close()
	end := tokenservice.EndAt(srv.URL, nil)
	m := tokenservice.MatchInfo{Match: tokenservice.Match{ID: "m-7"}}
	if err := end(t.Context(), m); err != nil || len(got) != 1 || got[0] != "DELETE /matches/m-7" {
		t.Fatalf("end: %v, requests %v", err, got)
	}
	status = http.StatusNotFound
	if err := end(t.Context(), m); err != nil {
		t.Fatalf("a match the server does not run: %v", err)
	}
	status = http.StatusInternalServerError
	if err := end(t.Context(), m); err == nil || !strings.Contains(err.Error(), "HTTP 500") {
		t.Fatalf("a failing server: %v", err)
	}
}

// openToken decodes the text of a connect token and opens its private
// part with testKey, failing the test if either fails.
func openToken(t *testing.T, text string) (*netcode.ConnectToken, netcode.PrivateToken) {
	t.Helper()
	tok, err := transport.DecodeToken([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	priv, err := netcode.OpenPrivateToken(&tok.PrivateData, &testKey, tok.ProtocolID, tok.ExpireTimestamp, &tok.Nonce)
	if err != nil {
		t.Fatal(err)
	}
	return tok, priv
}
