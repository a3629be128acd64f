package agones

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// DefaultHTTPPort is the gateway's port when AGONES_SDK_HTTP_PORT is unset.
const DefaultHTTPPort = 9358

// Client calls the SDK server's HTTP gateway. Its methods may be called
// from any goroutine.
type Client struct {
	// URL is the gateway's base, such as http://127.0.0.1:9358.
	URL string
	// HTTP sends the requests; nil: a client with a 10 s timeout for the
	// plain calls (Watch uses no timeout but its context's).
	HTTP *http.Client
}

// New returns a client of the gateway at baseURL.
func New(baseURL string) *Client {
	return &Client{URL: strings.TrimRight(baseURL, "/")}
}

// FromEnv returns a client of the gateway Agones announces to the pod:
// 127.0.0.1 at AGONES_SDK_HTTP_PORT, or at DefaultHTTPPort when it is
// unset. A value that is not a port is an error naming it.
func FromEnv() (*Client, error) {
	port := DefaultHTTPPort
	if s := os.Getenv("AGONES_SDK_HTTP_PORT"); s != "" {
		p, err := strconv.Atoi(s)
		if err != nil || p < 1 || p > 65535 {
			return nil, fmt.Errorf("agones: AGONES_SDK_HTTP_PORT=%q is not a port", s)
		}
		port = p
	}
	return New(fmt.Sprintf("http://127.0.0.1:%d", port)), nil
}

var defaultHTTP = &http.Client{Timeout: 10 * time.Second}

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return defaultHTTP
}

// StatusError is an answer of the gateway other than 200: HTTP 500 with
// the gRPC status of the SDK call (code 2, Unknown, for most refusals,
// such as a List value already present), 400 for a body it cannot read.
type StatusError struct {
	Method, Path string
	HTTPStatus   int
	Code         int    // gRPC code from the body, 0 if none
	Message      string // from the body, or the body's first bytes
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("agones: %s %s: HTTP %d: %s", e.Method, e.Path, e.HTTPStatus, e.Message)
}

// ErrStatus matches every *StatusError with errors.Is.
var ErrStatus = errors.New("agones: the SDK server refused the call")

// Is makes errors.Is(err, ErrStatus) true for a StatusError.
func (e *StatusError) Is(target error) bool { return target == ErrStatus }

// call sends method path with body (nil: {}) as JSON and decodes a 200
// answer into out (nil: the answer is read and dropped).
func (c *Client) call(ctx context.Context, method, path string, body, out any) error {
	var payload []byte = []byte("{}")
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return fmt.Errorf("agones: %s %s: %w", method, path, err)
		}
	}
	var rd io.Reader
	if method != http.MethodGet {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.URL+path, rd)
	if err != nil {
		return fmt.Errorf("agones: %s %s: %w", method, path, err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http().Do(req)
	if err != nil {
		return fmt.Errorf("agones: %s %s: %w (is the SDK server running? AGONES_SDK_HTTP_PORT names its port)", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	if err != nil {
		return fmt.Errorf("agones: %s %s: %w", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return statusError(method, path, resp.StatusCode, b)
	}
	if out == nil {
		return nil
	}
	if err := decode(b, out); err != nil {
		return fmt.Errorf("agones: %s %s: %w", method, path, err)
	}
	return nil
}

func statusError(method, path string, status int, b []byte) error {
	e := &StatusError{Method: method, Path: path, HTTPStatus: status}
	var st struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if len(b) <= MaxBody && json.Unmarshal(b, &st) == nil && st.Message != "" {
		e.Code, e.Message = st.Code, st.Message
	} else {
		e.Message = string(bytes.TrimSpace(b[:min(len(b), 200)]))
	}
	return e
}

// Ready tells Agones the server can take a match: call it once the game's
// socket is bound, and again after a match to take the next one.
func (c *Client) Ready(ctx context.Context) error {
	return c.call(ctx, http.MethodPost, "/ready", nil, nil)
}

// Allocate marks the server Allocated by itself (a match that did not go
// through a GameServerAllocation), so that Agones neither scales it down
// nor hands it to another match.
func (c *Client) Allocate(ctx context.Context) error {
	return c.call(ctx, http.MethodPost, "/allocate", nil, nil)
}

// Shutdown tells Agones the server is done: Agones deletes the pod (with
// SIGTERM first).
func (c *Client) Shutdown(ctx context.Context) error {
	return c.call(ctx, http.MethodPost, "/shutdown", nil, nil)
}

// Health is one health ping; Agones marks the server Unhealthy when none
// arrives for spec.health.failureThreshold periods of periodSeconds.
func (c *Client) Health(ctx context.Context) error {
	return c.call(ctx, http.MethodPost, "/health", nil, nil)
}

// Reserve marks the server Reserved for d (whole seconds, at least 1):
// not allocatable, not scaled down; Ready again after d.
func (c *Client) Reserve(ctx context.Context, d time.Duration) error {
	secs := max(Int64(d/time.Second), 1)
	return c.call(ctx, http.MethodPost, "/reserve", struct {
		Seconds Int64 `json:"seconds"`
	}{secs}, nil)
}

type keyValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// SetLabel sets the GameServer's label agones.dev/sdk-key to value.
func (c *Client) SetLabel(ctx context.Context, key, value string) error {
	return c.call(ctx, http.MethodPut, "/metadata/label", keyValue{key, value}, nil)
}

// SetAnnotation sets the GameServer's annotation agones.dev/sdk-key.
func (c *Client) SetAnnotation(ctx context.Context, key, value string) error {
	return c.call(ctx, http.MethodPut, "/metadata/annotation", keyValue{key, value}, nil)
}

// GameServer returns the GameServer as Agones has it now.
func (c *Client) GameServer(ctx context.Context) (GameServer, error) {
	var gs GameServer
	err := c.call(ctx, http.MethodGet, "/gameserver", nil, &gs)
	return gs, err
}

// Watch calls fn with the GameServer now and with every change Agones
// reports (state, labels, annotations: Counter, List and player changes
// send none), on the calling goroutine, until ctx ends (nil) or the stream
// fails (an error; call Watch again to resume). A line longer than
// MaxBody or not of the gateway's form ends it with an error.
func (c *Client) Watch(ctx context.Context, fn func(GameServer)) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+"/watch/gameserver", nil)
	if err != nil {
		return fmt.Errorf("agones: watch: %w", err)
	}
	hc := *c.http()
	hc.Timeout = 0 // a watch lasts as long as ctx
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("agones: watch: %w (is the SDK server running?)", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return statusError(http.MethodGet, "/watch/gameserver", resp.StatusCode, b)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 16<<10), MaxBody)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		gs, err := DecodeWatchLine(line)
		if err != nil {
			return err
		}
		fn(gs)
	}
	if ctx.Err() != nil {
		return nil
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("agones: watch: %w", err)
	}
	return errors.New("agones: watch: the SDK server closed the stream")
}

// HealthLoop calls Health every period until ctx ends, starting at once.
// A failed ping is passed to onErr (if not nil) and the loop goes on:
// Agones judges health by the pings that arrive.
func (c *Client) HealthLoop(ctx context.Context, period time.Duration, onErr func(error)) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		if err := c.Health(ctx); err != nil && ctx.Err() == nil && onErr != nil {
			onErr(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Counter returns the GameServer's Counter name (beta).
func (c *Client) Counter(ctx context.Context, name string) (Counter, error) {
	var ct Counter
	err := c.call(ctx, http.MethodGet, "/v1beta1/counters/"+url.PathEscape(name), nil, &ct)
	return ct, err
}

// SetCounter sets Counter name's count; it fails beyond its capacity.
func (c *Client) SetCounter(ctx context.Context, name string, count int64) (Counter, error) {
	var ct Counter
	err := c.call(ctx, http.MethodPatch, "/v1beta1/counters/"+url.PathEscape(name), struct {
		Count Int64 `json:"count"`
	}{Int64(count)}, &ct)
	return ct, err
}

// List returns the GameServer's List name (beta).
func (c *Client) List(ctx context.Context, name string) (List, error) {
	var l List
	err := c.call(ctx, http.MethodGet, "/v1beta1/lists/"+url.PathEscape(name), nil, &l)
	return l, err
}

// AddListValue adds value to List name; it fails if the value is there
// already or the List is full.
func (c *Client) AddListValue(ctx context.Context, name, value string) (List, error) {
	return c.listValue(ctx, name, ":addValue", value)
}

// RemoveListValue removes value from List name; it fails if it is not
// there.
func (c *Client) RemoveListValue(ctx context.Context, name, value string) (List, error) {
	return c.listValue(ctx, name, ":removeValue", value)
}

func (c *Client) listValue(ctx context.Context, name, verb, value string) (List, error) {
	var l List
	err := c.call(ctx, http.MethodPost, "/v1beta1/lists/"+url.PathEscape(name)+verb, struct {
		Value string `json:"value"`
	}{value}, &l)
	return l, err
}

// PlayerConnect records player id as connected (player tracking, alpha:
// the SDK server answers only with the PlayerTracking feature gate on).
// It reports false if the id was connected already.
func (c *Client) PlayerConnect(ctx context.Context, id string) (bool, error) {
	return c.player(ctx, "/alpha/player/connect", id)
}

// PlayerDisconnect records player id as gone; false if it was not
// connected.
func (c *Client) PlayerDisconnect(ctx context.Context, id string) (bool, error) {
	return c.player(ctx, "/alpha/player/disconnect", id)
}

func (c *Client) player(ctx context.Context, path, id string) (bool, error) {
	var out struct {
		Bool bool `json:"bool"`
	}
	err := c.call(ctx, http.MethodPost, path, struct {
		PlayerID string `json:"playerID"`
	}{id}, &out)
	return out.Bool, err
}

// SetPlayerCapacity sets how many players the server takes (alpha).
func (c *Client) SetPlayerCapacity(ctx context.Context, n int64) error {
	return c.call(ctx, http.MethodPut, "/alpha/player/capacity", struct {
		Count Int64 `json:"count"`
	}{Int64(n)}, nil)
}

// PlayerCount is how many players are connected (alpha).
func (c *Client) PlayerCount(ctx context.Context) (int64, error) {
	var out struct {
		Count Int64 `json:"count"`
	}
	err := c.call(ctx, http.MethodGet, "/alpha/player/count", nil, &out)
	return int64(out.Count), err
}
