// The bridge between the page and the tab's Go program (tab/wasm): it
// fetches the connect token and the WebTransport endpoint, opens the
// session, starts the program and moves datagrams both ways. Nothing
// else: netcode and the game are the Go program's.
"use strict";

const statusLine = (text) => {
  const el = document.getElementById("status");
  if (el) el.textContent = text;
};

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
  };
  globalThis.netphysBridge = bridge;
  session.closed.then(
    () => statusLine("session closed"),
    (err) => statusLine(`session failed: ${err}`),
  );

  const go = new Go();
  const { instance } = await WebAssembly.instantiateStreaming(fetch("tab.wasm"), go.importObject);
  go.run(instance).then(() => statusLine("program ended"));

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
