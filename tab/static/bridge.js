// The bridge between the page and the tab's Go program (tab/wasm): it
// fetches the connect token and the WebTransport endpoint, opens the
// session, starts the program and moves datagrams both ways. Nothing
// else: netcode and the game are the Go program's.
"use strict";

// statusLine says how the tab is doing in the window's title and the
// console: the page's own status line is the viewer's.
const statusLine = (text) => {
  document.title = `netphys tab: ${text.split("\n")[0]}`;
  console.log(`tab: ${text}`);
};

// The viewer page (viewer.js, loaded after this script) talks to the Go
// program's viewer.Server through TabSocket instead of a WebSocket: the
// same messages, handed over in memory (viewer.LocalPage on the Go side).
const page = { socket: null, open: false };

class TabSocket {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSING = 2;
  static CLOSED = 3;

  constructor() {
    this.readyState = TabSocket.CONNECTING;
    this.binaryType = "arraybuffer";
    this.onopen = null;
    this.onmessage = null;
    this.onclose = null;
    page.socket = this;
    if (page.open) setTimeout(() => openSocket(this));
  }

  send(text) {
    const bridge = globalThis.netphysBridge;
    if (this.readyState === TabSocket.OPEN && bridge && bridge.onPageMessage) bridge.onPageMessage(text);
  }

  close() {
    closeSocket(this, "");
  }
}

function openSocket(sock) {
  if (sock.readyState !== TabSocket.CONNECTING) return;
  sock.readyState = TabSocket.OPEN;
  if (sock.onopen) sock.onopen({});
}

function closeSocket(sock, reason) {
  if (!sock || sock.readyState === TabSocket.CLOSED) return;
  sock.readyState = TabSocket.CLOSED;
  if (sock.onclose) sock.onclose({ code: 1000, reason });
}

globalThis.WebSocket = TabSocket;

async function start() {
  const params = new URLSearchParams(location.search);
  const infoRsp = await fetch("webtransport.json", { cache: "no-store" });
  if (!infoRsp.ok) throw new Error(`webtransport.json: ${infoRsp.status} ${await infoRsp.text()}`);
  const info = await infoRsp.json();
  const tokenRsp = await fetch("token", { method: "POST", cache: "no-store" });
  if (!tokenRsp.ok) throw new Error(`token: ${tokenRsp.status} ${await tokenRsp.text()}`);
  const token = (await tokenRsp.text()).trim();

  const opts = {};
  if (info.certHash) {
    const raw = atob(info.certHash);
    opts.serverCertificateHashes = [{ algorithm: "sha-256", value: Uint8Array.from(raw, (c) => c.charCodeAt(0)) }];
  }
  const session = new WebTransport(info.url, opts);
  await session.ready;
  const writer = session.datagrams.writable.getWriter();

  const bridge = {
    token,
    mode: params.get("mode") || "play",
    args: params.get("args") || "", // the match flags, as given to netphys play
    maxDatagramSize: session.datagrams.maxDatagramSize,
    sendErrors: 0,
    // send is called by Go with a Uint8Array of its own: the session
    // takes it as is.
    send(bytes) {
      writer.write(bytes).catch(() => { bridge.sendErrors++; });
    },
    onDatagram: null, // set by Go before it sends anything
    status: statusLine,
    // The viewer's side, called by Go (tab/wasm's jsPage).
    onPageMessage: null, // set by Go: the page's text messages
    pageOpen() {
      page.open = true;
      if (page.socket) openSocket(page.socket);
    },
    pageSend(binary, bytes) {
      const sock = page.socket;
      if (!sock || sock.readyState !== TabSocket.OPEN) return;
      const data = binary ? bytes.slice().buffer : new TextDecoder().decode(bytes);
      // Later, not inside Go's call: the page answers (acks) through send.
      queueMicrotask(() => { if (sock.onmessage) sock.onmessage({ data }); });
    },
    pageClose(reason) {
      page.open = false;
      closeSocket(page.socket, reason);
    },
  };
  globalThis.netphysBridge = bridge;
  session.closed.then(
    () => statusLine("session closed"),
    (err) => statusLine(`session failed: ${err}`),
  );

  const go = new Go();
  const { instance } = await WebAssembly.instantiateStreaming(fetch("tab.wasm"), go.importObject);
  go.run(instance).then(() => {
    // The program stays loaded once done (it sets ended): exiting is a crash.
    const st = globalThis.__tabState;
    if (st && !st.ended && !st.error) st.error = "the Go program exited (its panic is in the console)";
    statusLine("program ended");
  });

  const reader = session.datagrams.readable.getReader();
  for (;;) {
    let next;
    try {
      next = await reader.read();
    } catch (err) {
      // The session ended (the server stopped, the network failed):
      // session.closed says so on the page, and the program's netcode
      // client times out and says what it means for the game.
      return;
    }
    if (next.done) return;
    if (bridge.onDatagram) bridge.onDatagram(next.value);
  }
}

start().catch((err) => {
  statusLine(`failed: ${err}`);
  console.error("tab:", err);
});
