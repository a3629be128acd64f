// The netphys viewer page: receives frames over the WebSocket and draws
// them (worlds.js), shows the figures, and sends the held keys back
// (keys.js). The protocol is documented in the Go package: viewer/doc.go,
// viewer/frame.go and viewer/message.go.
import { frameSeq, parseFrame } from './frame.js';
import { watchKeys } from './keys.js';
import { Worlds } from './worlds.js';

const figureRows = document.getElementById('figure-rows');
const statusEl = document.getElementById('status');
const worlds = new Worlds(document.getElementById('view'), document.getElementById('labels'));

// Debug hook for tests and the curious: what the page received and drew.
const state = {
  connected: false,
  frames: 0,        // binary frames received
  skipped: 0,       // frames not sent to this page because it was busy (seq gaps)
  seq: 0,           // seq of the newest frame received
  rendered: 0,      // seq of the frame last drawn
  drawMs: 0,        // time the last draw took in JavaScript, ms
  views: [],        // per viewport: {name, cubes, player: [x,y,z] as drawn or null}
  figures: [],      // the figures shown: {name, value, unit} or {name, text}
  figuresSeq: 0,
  keys: [],         // keys held, as last sent
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
  state.drawMs = performance.now() - t0;
}

window.addEventListener('resize', () => { dirty = true; });
window.addEventListener('wheel', (e) => {
  worlds.zoomBy(Math.exp(e.deltaY * 0.001));
  dirty = true;
}, { passive: true });
requestAnimationFrame(draw);

// ---- figures ------------------------------------------------------------

function formatValue(v) {
  if (v === null || !Number.isFinite(v)) return '–';
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  const a = Math.abs(v);
  return v.toFixed(a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3);
}

function showFigures(msg) {
  if (!Array.isArray(msg.figures)) throw new Error('figures: no list');
  const rows = msg.figures.map((f) => {
    const tr = document.createElement('tr');
    const cells = f.text
      ? [['name', f.name, 1], ['text', f.text, 2]] // a setting or a state, across value and unit
      : [['name', f.name, 1], ['value', formatValue(f.value), 1], ['unit', f.unit, 1]];
    for (const [cls, text, span] of cells) {
      const td = document.createElement('td');
      td.className = cls;
      td.colSpan = span;
      td.textContent = String(text ?? '');
      tr.appendChild(td);
    }
    return tr;
  });
  figureRows.replaceChildren(...rows);
  state.figures = msg.figures;
  state.figuresSeq = msg.seq;
}

// ---- input and connection -----------------------------------------------

let socket = null;
let resendTimer = 0;

// sendInput sends the held keys: on every change, and every inputResendMs
// (from the hello) so that the server knows the page is still holding them.
function sendInput(keys) {
  state.keys = keys;
  document.querySelectorAll('.key').forEach((el) => el.classList.toggle('down', keys.includes(el.dataset.key)));
  if (!socket || socket.readyState !== WebSocket.OPEN) return;
  socket.send(JSON.stringify({ type: 'input', keys }));
  state.inputsSent++;
}

const heldKeys = watchKeys(sendInput);

function onText(msg) {
  if (msg.type === 'hello') {
    clearInterval(resendTimer);
    resendTimer = setInterval(() => sendInput(heldKeys()), Math.max(50, msg.inputResendMs | 0));
    sendInput(heldKeys());
  } else if (msg.type === 'figures') {
    showFigures(msg);
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
