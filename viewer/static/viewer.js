// The netphys viewer page: receives frames over the WebSocket and draws
// them (worlds.js), shows the figures and the controls, and sends the
// held keys (keys.js) and the mouse (pointer.js) back. The protocol is
// documented in the Go package: viewer/doc.go, viewer/frame.go,
// viewer/message.go and viewer/pagemessage.go.
import { frameSeq, parseFrame } from './frame.js';
import { KEYS, watchKeys } from './keys.js';
import { watchPointer } from './pointer.js';
import { Figures } from './figures.js';
import { COLOR, PLAYER_COLORS, Worlds } from './worlds.js';

const figuresEl = document.getElementById('figures');
figuresEl.querySelector('h1').addEventListener('click', () => {
  figuresEl.classList.toggle('folded');
  figuresEl.style.minWidth = ''; // folded, it takes only its title's width
  dirty = true; // the views take the room
});
const figures = new Figures(figuresEl);
const legendEl = document.getElementById('legend');
const statusEl = document.getElementById('status');
const controlsEl = document.getElementById('keys');
const worlds = new Worlds(document.getElementById('view'), document.getElementById('labels'));

// Debug hook for tests and the curious: what the page received and drew.
const state = {
  connected: false,
  frames: 0,        // binary frames received
  skipped: 0,       // frames not sent to this page because it was busy (seq gaps)
  seq: 0,           // seq of the newest frame received
  rendered: 0,      // seq of the frame last drawn
  drawMs: 0,        // time the last draw took in JavaScript, ms
  views: [],        // per viewport: {name, cubes, player: [x,y,z] as drawn or null, players, owned,
                    //   overview, cell: {x, y, w, h}, own: [x, y] projected or null, drawn, ownInFrame}
  grid: null,       // the viewports' grid: {cols, rows}
  figures: [],      // the figures shown: {name, value, unit, row, col} or {name, text, row, col}
  legend: [],       // the legend's entries, as shown
  figuresSeq: 0,
  keys: [],         // keys held, as last sent
  pointer: null,    // the mouse as last sent: {from, dir, lift, grip}, or null
  controls: null,   // the controls shown, as the server described them, or null: the page's own
  inputsSent: 0,
  error: '',
};
window.__viewerState = state;

function setStatus(text, bad) {
  statusEl.textContent = text;
  statusEl.classList.toggle('bad', !!bad);
}

function fail(err) {
  state.error = String(err);
  setStatus(state.error, true);
}

// ---- drawing ------------------------------------------------------------

// Frames that arrive faster than the page draws replace each other unread,
// so a slow machine spends nothing on frames it will not show. Each frame
// is acknowledged on arrival: the server sends a new one only while few
// are unacknowledged, so the frames never queue up behind a slow page.
let pending = null; // newest frame received and not yet drawn
let dirty = false;  // draw again although no frame came (a resize)
let lastDraw = performance.now();
let draws = [];     // times of the draws of the last second, ms, for the fps shown

function receiveFrame(ws, buf) {
  const seq = frameSeq(buf);
  ws.send(JSON.stringify({ type: 'ack', seq }));
  if (state.seq !== 0 && seq > state.seq + 1) state.skipped += seq - state.seq - 1;
  state.seq = seq;
  state.frames++;
  pending = buf;
}

function draw(now) {
  requestAnimationFrame(draw);
  if (!dirty && !pending) return;
  dirty = false;
  const t0 = performance.now();
  if (pending) {
    try {
      const frame = parseFrame(pending);
      worlds.apply(frame);
      state.rendered = frame.seq;
      draws = draws.filter((t) => now - t < 1000);
      draws.push(now);
      setStatus(`connected · frame ${frame.seq} · ${draws.length} fps` + (state.skipped ? ` · ${state.skipped} skipped` : ''));
    } catch (err) {
      fail(err);
    }
    pending = null;
  }
  worlds.draw(Math.min((now - lastDraw) / 1000, 0.25));
  lastDraw = now;
  state.views = worlds.summary();
  state.grid = worlds.grid;
  showLegend(worlds.legend());
  state.drawMs = performance.now() - t0;
}

window.addEventListener('resize', () => { dirty = true; });

// The cameras: the wheel zooms the view under the mouse, a middle-drag or
// a shift-drag orbits it, a double click puts it back.
const canvas = document.getElementById('view');
canvas.addEventListener('wheel', (e) => {
  worlds.zoomAt(e.clientX, e.clientY, Math.exp(e.deltaY * 0.001));
  dirty = true;
}, { passive: true });
let orbit = null; // the last point of an orbiting drag
canvas.addEventListener('pointerdown', (e) => {
  if (e.button === 1 || e.shiftKey) orbit = { x: e.clientX, y: e.clientY };
});
canvas.addEventListener('pointermove', (e) => {
  if (!orbit) return;
  if ((e.buttons & 7) === 0) { orbit = null; return; }
  worlds.orbitAt(orbit.x, orbit.y, e.clientX - orbit.x, e.clientY - orbit.y);
  orbit = { x: e.clientX, y: e.clientY };
  dirty = true;
});
window.addEventListener('pointerup', () => { orbit = null; });
canvas.addEventListener('dblclick', (e) => { worlds.resetAt(e.clientX, e.clientY); dirty = true; });
requestAnimationFrame(draw);

// ---- legend ------------------------------------------------------------

// showLegend lists the colours the views show: the kinds of cube drawn,
// and the players whose authority colours appear.
let legendKey = '';
function showLegend(l) {
  const items = [];
  if (l.own) items.push([COLOR.player, 'you']);
  if (l.other) items.push([COLOR.other, 'other players']);
  if (l.player) items.push([COLOR.player, 'players']);
  if (l.interacting) items.push([COLOR.interacting, 'interacting']);
  if (l.moving) items.push([COLOR.moving, 'moving']);
  if (l.rest) items.push([COLOR.rest, 'at rest']);
  // Cube.Owner is player p + 1, players counted from 0 (statesync's
  // host is player 0); the figures' rows then count the same way.
  if (l.owners.length) items.push([null, 'authority of player']);
  for (const o of l.owners) items.push([PLAYER_COLORS[o - 1], `${o - 1}`]);
  if (l.owners.length) items.push([null, '(avatars darker; white: nobody)']);
  figures.setZeroBased(l.owners.length > 0);
  const css = (c) => (typeof c === 'string' ? c : `#${c.getHexString()}`);
  const key = JSON.stringify(items.map(([c, t]) => [c ? css(c) : '', t]));
  if (key === legendKey) return;
  legendKey = key;
  legendEl.replaceChildren(...items.map(([c, text]) => {
    const el = document.createElement('span');
    el.className = 'legend-item';
    if (c) {
      const sw = document.createElement('span');
      sw.className = 'swatch';
      sw.style.background = css(c);
      el.appendChild(sw);
    }
    el.append(text);
    return el;
  }));
  state.legend = items.map(([, t]) => t);
}

// ---- figures and controls ------------------------------------------------------------

function showFigures(msg) {
  if (!Array.isArray(msg.figures)) throw new Error('figures: no list');
  figures.show(msg.figures, performance.now());
  state.figures = msg.figures;
  state.figuresSeq = msg.seq;
}

// KEY_LABELS are the keys' faces in the controls line; any other name
// (wheel, mouse, left button) is written out.
const KEY_LABELS = { left: '←', right: '→', up: '↑', down: '↓' };

// showControls replaces the page's own controls line (the cube world's
// keys, in index.html) with the server's: {"keys": [...], "does": "..."}
// per entry. A key of the input lights up while held, "left button" while
// the mouse grips.
function showControls(msg) {
  if (!Array.isArray(msg.controls)) throw new Error('controls: no list');
  const parts = [];
  for (const c of msg.controls) {
    const group = document.createElement('span');
    group.className = 'control';
    for (const k of c.keys ?? []) {
      const el = document.createElement('span');
      const name = String(k);
      el.className = KEY_LABELS[name] || name.length === 1 ? 'key' : 'key wide';
      if (KEYS.includes(name)) el.dataset.key = name;
      if (name === 'left button') el.dataset.key = 'grip';
      el.textContent = KEY_LABELS[name] ?? name;
      group.appendChild(el);
    }
    group.append(group.childElementCount ? ` ${c.does ?? ''}` : String(c.does ?? ''));
    parts.push(group);
  }
  controlsEl.replaceChildren(...parts);
  state.controls = msg.controls;
  lightKeys();
}

// ---- input and connection -----------------------------------------------

let socket = null;
let resendTimer = 0;
let moveQueued = false;

function lightKeys() {
  const held = [...state.keys];
  if (state.pointer?.grip) held.push('grip');
  controlsEl.querySelectorAll('.key').forEach((el) => el.classList.toggle('down', held.includes(el.dataset.key)));
}

// sendInput sends the held keys and the mouse: on every key or button
// change, at most once a frame while the mouse moves, and every
// inputResendMs (from the hello) so that the server knows the page is
// still holding them.
function sendInput() {
  state.keys = heldKeys();
  state.pointer = pointer();
  lightKeys();
  if (!socket || socket.readyState !== WebSocket.OPEN) return;
  const msg = { type: 'input', keys: state.keys };
  if (state.pointer) msg.pointer = state.pointer;
  socket.send(JSON.stringify(msg));
  state.inputsSent++;
}

function sendSoon() {
  if (moveQueued) return;
  moveQueued = true;
  requestAnimationFrame(() => { moveQueued = false; sendInput(); });
}

const heldKeys = watchKeys(sendInput);
const pointer = watchPointer(document.getElementById('view'), (x, y) => worlds.rayAt(x, y), sendSoon, sendInput);

function onText(msg) {
  if (msg.type === 'hello') {
    clearInterval(resendTimer);
    resendTimer = setInterval(sendInput, Math.max(50, msg.inputResendMs | 0));
    sendInput();
  } else if (msg.type === 'figures') {
    showFigures(msg);
  } else if (msg.type === 'controls') {
    showControls(msg);
  }
}

function connect() {
  const url = new URL('ws', location.href); // beside the page, wherever it is mounted
  url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(url);
  ws.binaryType = 'arraybuffer';
  socket = ws;
  ws.onopen = () => {
    state.connected = true;
    state.seq = 0; // a restarted server counts from 1 again
    setStatus('connected');
  };
  ws.onmessage = (ev) => {
    try {
      if (typeof ev.data === 'string') onText(JSON.parse(ev.data));
      else receiveFrame(ws, ev.data);
    } catch (err) {
      fail(err);
    }
  };
  ws.onclose = (ev) => {
    state.connected = false;
    clearInterval(resendTimer);
    const why = ev.reason ? `: ${ev.reason}` : '';
    setStatus(`disconnected (${ev.code}${why}), retrying…`, true);
    setTimeout(connect, 1000);
  };
}

connect();
