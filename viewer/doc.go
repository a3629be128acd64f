// Package viewer shows the worlds of a running demo in a web browser: each
// world (the authority, a remote copy, ...) in its own viewport, in a grid
// that keeps every viewport near the window's shape (2×2 for four worlds,
// 4×5 for seventeen; up to MaxViews), cubes coloured as in the
// networked-physics articles (grey at rest, red interacting, the view's
// own player blue and the other players violet, or, where a model
// distributes authority, the colour of the player who has it: Cube.Owner)
// with a legend of the colours shown, the live figures in a panel beside
// the views (a table with a row per player and a column per figure, and
// plots of the last 30 s: Figure), and the keys held in the page and its
// mouse sent back to drive the player.
//
// # Usage
//
// A Server is an http.Handler factory and a frame fan-out. The demo owns the
// http.Server, the simulation loop and the goroutine that runs it:
//
//	srv := viewer.New(viewer.DefaultConfig())
//	defer srv.Close()
//	go http.Serve(listener, srv.Handler()) // the page at /, the WebSocket at /ws
//	for range ticker.C { // render rate, 30 to 60 Hz
//		in := scene.InputFromBits(uint8(srv.Input()))
//		world.Step(in)
//		srv.Publish(viewer.Frame{
//			Views:   []viewer.View{{Name: "authority", Cubes: ..., Overview: true}, {Name: "remote", Cubes: ...}},
//			Figures: []viewer.Figure{{Name: "p1 up", Row: "p1", Column: "up", Value: kbpsUp, Unit: "kbps"}, ...},
//		})
//	}
//
// Publish never blocks: it encodes the frame once and wakes each page's
// writer, which sends the newest frame when the page has room for one, so
// a slow page skips frames and never slows the simulation. Input returns
// the union of the keys held in every connected page; a page's keys are
// forgotten when it disconnects or stops repeating them
// (Config.InputTimeout), so the player never runs away on a stuck key.
// Pointer returns the newest page's mouse, for a world whose player points
// (the VR table's hand): a ray from the page's camera through the mouse, a
// lift the right button drags and the left button (Pointer). SetControls
// tells the pages what the keys and the mouse do there; by default they
// show the cube world's keys.
//
// Every viewport has its own camera, which frames what matters in its
// view and eases after it: in a player's view (the default) the player
// (the view's last Player cube) with the cubes near it, the interacting
// ones and the other players close by; in an overview (View.Overview: the
// server's world) or a view with a Facing (a player's own side of the VR
// table) the whole scene. The wheel zooms the viewport under the mouse, a
// middle-drag or a shift-drag orbits it, a double click puts it back.
//
// # Protocol
//
// One WebSocket per page, at /ws, same origin only. The server sends a
// hello text message, the controls once SetControls set them, then per
// frame one binary message with the cubes of every view (layout on
// AppendFrame: an 8-byte header, then per view its name, count, facing and
// flags, then 48 bytes per cube) followed, when they changed, by a figures text
// message (JSON, message.go). The page acknowledges every frame and sends
// its keys and, once the mouse moved over the views, its pointer on every
// key or button change, at most once a frame while the mouse moves, and
// every InputTimeout/4 (JSON, see ParsePageMessage). The server keeps at most Config.FramesInFlight
// frames unacknowledged per page: without that flow control a page that
// draws slowly would fall seconds behind, its frames queued in socket
// buffers. A page that sends a binary message, a message over
// MaxPageMessage bytes, a malformed message or an ack of a frame it was not
// sent is disconnected with close code 1003, 1009 or 1008 and the reason
// as text.
//
// # The page
//
// The page and three.js are embedded (go:embed) and served from the
// Handler; nothing is loaded from elsewhere, so it works offline. Its ES
// modules under static/: viewer.js (the connection, the legend, the
// controls, the input sent), worlds.js (the grid of views drawn with
// three.js, their cameras, and the rays under the mouse), figures.js (the
// figures' list, table and plots), frame.js (the frame decoder, mirroring
// DecodeFrame), keys.js (the keyboard) and pointer.js (the mouse). three.js
// is vendored under static/vendor/ at the version in static/vendor/VERSION,
// bundled and minified into one module (0.7 MB in the binary instead of
// 2.1 MB), with its licence; vendor-three.sh updates it from npm. The page exposes
// what it received and drew as window.__viewerState for tests.
package viewer
