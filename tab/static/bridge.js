// The page's side of the tab: it starts the Go program in a worker
// (worker.js), which plays, and stands in for the viewer's WebSocket
// (TabSocket), so that the viewer page (viewer.js, loaded after this
// script) draws the world simulated in the worker. The viewer's
// messages, the program's state (globalThis.__tabState) and its status
// travel by postMessage. Nothing else: netcode and the game are the Go
// program's.
"use strict";

// statusLine says how the tab is doing in the window's title and the
// console: the page's own status line is the viewer's.
const statusLine = (text) => {
  document.title = `netphys tab: ${text.split("\n")[0]}`;
  console.log(`tab: ${text}`);
};

const worker = new Worker("worker.js");
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
    if (this.readyState === TabSocket.OPEN) worker.postMessage({ type: "page", text });
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
globalThis.__tabState = {};

worker.onmessage = (ev) => {
  const msg = ev.data;
  switch (msg.type) {
    case "page": {
      const sock = page.socket;
      if (sock && sock.readyState === TabSocket.OPEN && sock.onmessage) sock.onmessage({ data: msg.data });
      break;
    }
    case "pageOpen":
      page.open = true;
      if (page.socket) openSocket(page.socket);
      break;
    case "pageClose":
      page.open = false;
      closeSocket(page.socket, msg.reason);
      break;
    case "state":
      globalThis.__tabState = msg.state;
      break;
    case "status":
      statusLine(msg.text);
      break;
    case "failed":
      globalThis.__tabState = { ...globalThis.__tabState, error: msg.error };
      console.error("tab:", msg.error);
      break;
  }
};
worker.onerror = (ev) => {
  globalThis.__tabState = { ...globalThis.__tabState, error: `the worker failed: ${ev.message}` };
  console.error("tab: worker:", ev.message);
};

const params = new URLSearchParams(location.search);
worker.postMessage({ type: "start", mode: params.get("mode") || "play", args: params.get("args") || "" });
