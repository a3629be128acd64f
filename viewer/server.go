package viewer

import (
	"embed"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"
)

// static holds the page: index.html, its script and style, and the vendored
// three.js modules with their licence.
//
//go:embed static
var static embed.FS

// Config tunes a Server. The zero value of a field means its default.
type Config struct {
	// MaxClients caps the pages connected at once; more are refused with
	// 503 Service Unavailable. Default 16.
	MaxClients int
	// WriteTimeout drops a page that has not taken one message within it,
	// such as a tab frozen by the debugger. Default 5 s.
	WriteTimeout time.Duration
	// FramesInFlight is how many frames a page may have received but not
	// yet acknowledged. More are not sent: a slow page is sent the newest
	// frame once it catches up, so what it shows stays recent instead of
	// queueing behind seconds of frames in the socket buffers. Default 2.
	FramesInFlight int
	// InputTimeout forgets the keys of a page that has sent no input
	// message for this long, so a key never stays stuck when a page hangs.
	// Pages repeat their key state every InputTimeout/4. Default 2 s: long
	// enough for a page whose main thread stalls on a slow machine, short
	// enough that a hung page does not steer for long.
	InputTimeout time.Duration
	// Logger receives one line per connection opened and closed, at debug
	// level, and protocol violations at warn level. Default slog.Default().
	Logger *slog.Logger
}

// DefaultConfig returns the defaults described on Config.
func DefaultConfig() Config {
	return Config{
		MaxClients:     16,
		WriteTimeout:   5 * time.Second,
		FramesInFlight: 2,
		InputTimeout:   2 * time.Second,
		Logger:         slog.Default(),
	}
}

func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.MaxClients <= 0 {
		c.MaxClients = d.MaxClients
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = d.WriteTimeout
	}
	if c.FramesInFlight <= 0 {
		c.FramesInFlight = d.FramesInFlight
	}
	if c.InputTimeout <= 0 {
		c.InputTimeout = d.InputTimeout
	}
	if c.Logger == nil {
		c.Logger = d.Logger
	}
	return c
}

// ErrClosed is returned by Publish after Close.
var ErrClosed = errors.New("viewer: server closed")

// Server serves the viewer page and streams published frames to every page
// connected to its WebSocket. It is safe for concurrent use.
type Server struct {
	cfg Config

	conns sync.WaitGroup // one per page being served, for Close to wait on

	mu      sync.Mutex
	clients map[*client]struct{}
	latest  *published // newest frame, nil before the first Publish
	seq     FrameSeq   // seq of latest
	closed  bool

	controls    []byte // the controls message, nil before SetControls
	controlsGen int    // counts SetControls calls, for the writers to tell a new one
}

// published is one frame, encoded once for all pages. It is immutable once
// stored in Server.latest.
type published struct {
	seq        FrameSeq
	frame      []byte   // binary frame message
	figures    []byte   // figures text message, carried over while the figures are unchanged
	figuresSeq FrameSeq // seq of the frame whose figures these are
	figs       []Figure // the figures, to tell whether the next ones changed
}

// New returns a Server with cfg; zero fields take their defaults.
func New(cfg Config) *Server {
	return &Server{cfg: cfg.withDefaults(), clients: make(map[*client]struct{})}
}

// Handler serves the page at / (with its assets) and the WebSocket at /ws.
// Mount it at the root of its own http.Server or under a prefix with
// http.StripPrefix; the page finds its WebSocket relative to its own URL.
func (s *Server) Handler() http.Handler {
	files := http.FileServerFS(Assets())
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ws", s.serveWebSocket)
	mux.Handle("GET /", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The page loads nothing from elsewhere; say so, so that a
		// vendored module that tried would fail loudly, not silently.
		w.Header().Set("Content-Security-Policy", "default-src 'self'; connect-src 'self'; img-src 'self' data: blob:")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		files.ServeHTTP(w, r)
	}))
	return mux
}

// Publish encodes f once and hands it to every connected page. It never
// waits for a page: each page is sent the newest frame when it has taken the
// previous one, so a slow page skips frames instead of slowing the caller.
// f is not retained; the caller may reuse its slices once Publish returns.
// Call it from one goroutine at render rate, 30 to 60 times a second.
func (s *Server) Publish(f Frame) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	// Encoding under the lock (about 0.1 ms for two 901-cube views, see
	// BenchmarkPublish) keeps seqs in the order the frames reach the pages.
	frame, err := AppendFrame(make([]byte, 0, FrameSize(f.Views)), s.seq+1, f.Views)
	if err != nil {
		return err
	}
	s.seq++
	p := &published{seq: s.seq, frame: frame}
	if s.latest != nil && slices.Equal(s.latest.figs, f.Figures) {
		p.figures, p.figuresSeq, p.figs = s.latest.figures, s.latest.figuresSeq, s.latest.figs
	} else {
		p.figures, p.figuresSeq, p.figs = marshalFigures(p.seq, f.Figures), p.seq, slices.Clone(f.Figures)
	}
	s.latest = p
	for c := range s.clients {
		c.wake()
	}
	return nil
}

// SetControls replaces the controls line of every page, connected now or
// later, with controls: what the keys and the mouse do in the world shown
// (a VR guest's hand rather than the cube world's player cube). Until it is
// called the pages show their own line, the cube world's keys.
func (s *Server) SetControls(controls []Control) {
	msg := marshalControls(controls)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.controls = msg
	s.controlsGen++
	for c := range s.clients {
		c.wake()
	}
}

// controlsMessage returns the controls message and its generation.
func (s *Server) controlsMessage() ([]byte, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.controls, s.controlsGen
}

// Input returns the keys held in the connected pages: the union of each
// page's latest input message younger than Config.InputTimeout.
func (s *Server) Input() Input {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	var in Input
	for c := range s.clients {
		keys, _, _ := c.input(now, s.cfg.InputTimeout)
		in |= keys
	}
	return in
}

// Pointer returns the mouse of the page that sent a pointer last, among
// the input messages younger than Config.InputTimeout, and whether there is
// one. Unlike keys, pointers do not combine: two pages pointing at two
// places point nowhere in particular, so the newest wins.
func (s *Server) Pointer() (Pointer, bool) {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	var (
		newest *Pointer
		at     time.Time
	)
	for c := range s.clients {
		if _, p, t := c.input(now, s.cfg.InputTimeout); p != nil && (newest == nil || t.After(at)) {
			newest, at = p, t
		}
	}
	if newest == nil {
		return Pointer{}, false
	}
	return *newest, true
}

// Clients returns the number of pages connected.
func (s *Server) Clients() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.clients)
}

// Close disconnects every page with 1001 (going away), waits until their
// connections are closed, and makes Publish fail with ErrClosed and the
// WebSocket refuse new pages. It does not stop the http.Server the Handler
// is mounted on, which the caller owns.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	clients := make([]*client, 0, len(s.clients))
	for c := range s.clients {
		clients = append(clients, c)
	}
	s.mu.Unlock()
	for _, c := range clients {
		c.stop(errGoingAway)
	}
	s.conns.Wait()
	return nil
}

// newest returns the latest published frame, or nil.
func (s *Server) newest() *published {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.latest
}

// add registers c unless the server is closed or full.
func (s *Server) add(c *client) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return ErrClosed
	case len(s.clients) >= s.cfg.MaxClients:
		return errFull
	}
	s.clients[c] = struct{}{}
	s.conns.Add(1)
	if s.latest != nil {
		c.wake()
	}
	return nil
}

func (s *Server) remove(c *client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.clients, c)
	s.conns.Done()
}

var errFull = errors.New("viewer: too many pages connected")
