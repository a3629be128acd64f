// Package tab serves a browser tab that is a netcode player: the page, a
// small JS bridge, and a Go program compiled to WebAssembly (tab/wasm)
// that runs the netcode client, over the page's WebTransport session, to
// a server whose socket is a webtransport.Mux.
//
// The bridge does only what Go cannot do from wasm. Its worker
// (static/worker.js) fetches the connect token and the endpoint's Info
// over the page's origin, opens the WebTransport session (pinning the
// server's self-signed certificate by its hash), starts the wasm program
// and moves datagrams between the session and it; the program runs in
// that dedicated worker so that the page's drawing never holds up its
// simulation. The page's side (static/bridge.js) starts the worker and
// relays the viewer's messages and the program's state. Everything else (the netcode
// handshake, encryption and replay protection, the model clients) is the
// Go code native players run, built for GOOS=js GOARCH=wasm. The page is
// the viewer's (viewer/static), drawing the world simulated in the tab:
// the program serves it with a viewer.Server through viewer.LocalPage,
// the bridge's TabSocket standing in for the viewer's WebSocket and
// postMessage carrying its messages between the page and the worker.
//
// The page's ?mode= picks what the program does: play (the default: a
// player of the server's match, with the page's ?args= as its match
// flags), echo (a netcode round trip, for the tests), or bench: no token
// and no session, the model clients of tabbench timed in the worker, for
// `netphys bench tab`.
//
// The wasm program is built from source by Build, with the toolchain's
// own wasm_exec.js, which must match the Go version that built it: the
// server needs the Go toolchain for now.
package tab
