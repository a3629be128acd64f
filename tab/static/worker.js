// The tab's Go program runs here, in a dedicated worker, so that the
// page's drawing never holds up its simulation. This script fetches the
// connect token and the WebTransport endpoint, opens the session, starts
// the program and moves datagrams both ways; the viewer's messages and
// the program's state go to and from the page (bridge.js) by
// postMessage. Nothing else: netcode and the game are the Go program's.
"use strict";

importScripts("wasm_exec.js");

const post = (msg) => self.postMessage(msg);
const status = (text) => post({ type: "status", text });

// publishState mirrors the program's globalThis.__tabState to the page.
function publishState() {
  if (self.__tabState) post({ type: "state", state: { ...self.__tabState } });
}

async function start(mode, args) {
  if (mode === "bench") {
    // No server, no session: the model clients' cost, timed in this
    // worker (netphys bench tab). now is the clock of the page's
    // performance.timeOrigin: milliseconds since the epoch.
    self.netphysBridge = { mode, args, status, now: () => performance.timeOrigin + performance.now() };
    await runProgram();
    return;
  }
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
    mode,
    args, // the match flags, as given to netphys play
    maxDatagramSize: session.datagrams.maxDatagramSize,
    sendErrors: 0,
    // send is called by Go with a Uint8Array of its own: the session
    // takes it as is.
    send(bytes) {
      writer.write(bytes).catch(() => { bridge.sendErrors++; });
    },
    onDatagram: null, // set by Go before it sends anything
    status,
    // The viewer's side, called by Go (tab/wasm's jsPage).
    onPageMessage: null, // set by Go: the page's text messages
    pageOpen() { post({ type: "pageOpen" }); },
    pageSend(binary, bytes) {
      const data = binary ? bytes.buffer : new TextDecoder().decode(bytes);
      post({ type: "page", binary, data });
    },
    pageClose(reason) { post({ type: "pageClose", reason }); },
  };
  self.netphysBridge = bridge;
  session.closed.then(
    () => status("session closed"),
    (err) => status(`session failed: ${err}`),
  );

  await runProgram();

  const reader = session.datagrams.readable.getReader();
  for (;;) {
    let next;
    try {
      next = await reader.read();
    } catch (err) {
      // The session ended (the server stopped, the network failed):
      // session.closed says so, and the program's netcode client times
      // out and says what it means for the game.
      return;
    }
    if (next.done) return;
    if (bridge.onDatagram) bridge.onDatagram(next.value);
  }
}

// runProgram starts the Go program, which finds self.netphysBridge, and
// mirrors its state to the page.
async function runProgram() {
  const go = new Go();
  const { instance } = await WebAssembly.instantiateStreaming(fetch("tab.wasm"), go.importObject);
  const mirror = setInterval(publishState, 100);
  go.run(instance).then(() => {
    // The program stays loaded once done (it sets ended): exiting is a crash.
    clearInterval(mirror);
    const st = self.__tabState || {};
    if (!st.ended && !st.error) st.error = "the Go program exited (its panic is in the console)";
    self.__tabState = st;
    publishState();
    status("program ended");
  });
}

self.onmessage = (ev) => {
  const msg = ev.data;
  if (msg.type === "start") {
    start(msg.mode, msg.args).catch((err) => {
      status(`failed: ${err}`);
      post({ type: "failed", error: String(err) });
    });
  } else if (msg.type === "page") {
    const b = self.netphysBridge;
    if (b && b.onPageMessage) b.onPageMessage(msg.text);
  }
};
