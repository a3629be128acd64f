// The figures panel: the figures of the whole match as a list, the
// players' as a table (a row per player, a column per figure, the unit in
// the header), and small plots of the last 30 s of the columns that say
// most about a network model: round trip, traffic, the delay the model
// adds, its corrections. The figures come with their cell (viewer/message.go:
// Figure.Cell); a column only one row has is listed instead, so that the
// server's own figures do not widen the table.
import { PLAYER_COLORS } from './worlds.js';

// PLOTS are the plots, each of the first column whose name it lists, in
// the order listed.
const PLOTS = [
  { title: 'rtt', cols: ['rtt'] },
  { title: 'up', cols: ['up'] },
  { title: 'down', cols: ['down'] },
  { title: 'delay', cols: ['input delay', 'render delay', 'others shown'] },
  { title: 'corrections', cols: ['corrections', 'reconciliations', 'rollbacks', 'largest correction', 'mispredicted', 'pops'] },
];
const HISTORY_S = 30;    // s of history plotted
const SAMPLE_MS = 250;   // a point every this long
const SAMPLES = (HISTORY_S * 1000) / SAMPLE_MS;

// breakable puts a soft hyphen in the middle of each long word of a
// column's name, so that a header such as "reconciliations" can break
// over two lines instead of widening its column.
function breakable(name) {
  return name.split(' ').map((w) => (w.length > 8 ? `${w.slice(0, Math.ceil(w.length / 2))}\u00ad${w.slice(Math.ceil(w.length / 2))}` : w)).join(' ');
}

export function formatValue(v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  const a = Math.abs(v);
  return v.toFixed(a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3);
}

// rowColor is the colour of a row: a player's ("p3") is its player
// colour, any other row (the server) is white. Rows count players from 1,
// unless zeroBased: where the views show authority (Cube.Owner, players
// counted from 0, the host being player 0), row pk is player k and takes
// the colour of player k's authority.
export function rowColor(row, zeroBased) {
  const m = /^p(\d+)$/.exec(row);
  return m ? PLAYER_COLORS[(Number(m[1]) - (zeroBased ? 0 : 1)) % PLAYER_COLORS.length] : '#e8ebf0';
}

export class Figures {
  constructor(panel) {
    this.panel = panel;
    this.list = panel.querySelector('#figure-rows');
    this.table = panel.querySelector('#figure-table');
    this.plotsEl = panel.querySelector('#plots');
    this.shape = '';    // the rows, columns and list names the DOM was built for
    this.cells = null;  // row -> col -> td
    this.listCells = []; // per list entry, its value cells
    this.plots = [];    // {title, col, unit, canvas, max}
    this.history = new Map(); // "row\x00col" -> Float64Array ring of SAMPLES
    this.samples = 0;   // points taken
    this.lastSample = -Infinity;
    this.current = new Map(); // "row\x00col" -> latest value
    this.zeroBased = false;
  }

  // setZeroBased says whether the rows count players from 0 (rowColor).
  setZeroBased(z) {
    if (z === this.zeroBased) return;
    this.zeroBased = z;
    this.shape = ''; // rebuild with the colours
  }

  // show puts a figures message's figures in the panel; now is
  // performance.now(), to sample the plots.
  show(figs, now) {
    const rows = [], cols = [], colRows = new Map(), units = new Map();
    for (const f of figs) {
      if (!f.row) continue;
      if (!rows.includes(f.row)) rows.push(f.row);
      if (!colRows.has(f.col)) { colRows.set(f.col, new Set()); cols.push(f.col); }
      colRows.get(f.col).add(f.row);
      if (!units.has(f.col) && !f.text && f.unit) units.set(f.col, f.unit);
    }
    const inTable = (f) => f.row && (rows.length === 1 || colRows.get(f.col).size > 1);
    const tableCols = cols.filter((c) => rows.length === 1 || colRows.get(c).size > 1);
    const tableRows = rows.filter((r) => figs.some((f) => f.row === r && inTable(f)));
    const listed = figs.filter((f) => !inTable(f));
    const shape = JSON.stringify([tableRows, tableCols, tableCols.map((c) => units.get(c) ?? ''), listed.map((f) => [f.name, !!f.text])]);
    if (shape !== this.shape) {
      this.shape = shape;
      this.panel.style.minWidth = '';
      this.build(tableRows, tableCols, units, listed);
    }
    listed.forEach((f, i) => {
      const [value, unit] = this.listCells[i];
      if (f.text) value.textContent = f.text;
      else {
        value.textContent = formatValue(f.value);
        unit.textContent = f.unit ?? '';
      }
    });
    for (const f of figs) {
      if (!inTable(f)) continue;
      const td = this.cells.get(f.row).get(f.col);
      const headerUnit = units.get(f.col) ?? '';
      if (f.text) {
        td.className = 'text';
        td.textContent = f.text;
      } else {
        td.className = '';
        td.textContent = formatValue(f.value);
        if ((f.unit ?? '') !== headerUnit && f.unit) {
          const u = document.createElement('span');
          u.className = 'unit';
          u.textContent = f.unit;
          td.appendChild(u);
        }
        this.current.set(`${f.row}\x00${f.col}`, f.value);
      }
    }
    this.rows = tableRows;
    // The panel only grows while the figures keep their shape, so that the
    // views beside it do not move as the numbers change width.
    if (!this.panel.classList.contains('folded')) {
      const w = this.panel.getBoundingClientRect().width;
      if (w > (parseFloat(this.panel.style.minWidth) || 0)) this.panel.style.minWidth = `${Math.ceil(w)}px`;
    }
    if (now - this.lastSample >= SAMPLE_MS) {
      this.sample();
      this.lastSample = now;
      this.drawPlots();
    }
  }

  // build lays the list, the table and the plots out for the figures'
  // shape.
  build(rows, cols, units, listed) {
    this.listCells = [];
    this.list.replaceChildren(...listed.map((f) => {
      const tr = document.createElement('tr');
      const name = document.createElement('td');
      name.className = 'name';
      name.textContent = f.name;
      const value = document.createElement('td');
      value.className = f.text ? 'text' : 'value';
      const unit = document.createElement('td');
      unit.className = 'unit';
      if (f.text) value.colSpan = 2;
      tr.append(name, value);
      if (!f.text) tr.append(unit);
      this.listCells.push([value, unit]);
      return tr;
    }));

    const head = document.createElement('tr');
    const corner = document.createElement('th');
    corner.className = 'row';
    head.appendChild(corner);
    for (const c of cols) {
      const th = document.createElement('th');
      th.textContent = breakable(c);
      th.title = units.get(c) ? `${c}, ${units.get(c)}` : c;
      const small = document.createElement('small');
      small.textContent = units.get(c) ?? '\u00a0';
      th.appendChild(small);
      head.appendChild(th);
    }
    this.table.tHead.replaceChildren(cols.length ? head : '');
    this.cells = new Map();
    this.table.tBodies[0].replaceChildren(...rows.map((r) => {
      const tr = document.createElement('tr');
      const name = document.createElement('td');
      name.className = 'row';
      const sw = document.createElement('span');
      sw.className = 'swatch';
      sw.style.background = rowColor(r, this.zeroBased);
      name.append(sw, r);
      tr.appendChild(name);
      const byCol = new Map();
      for (const c of cols) {
        const td = document.createElement('td');
        tr.appendChild(td);
        byCol.set(c, td);
      }
      this.cells.set(r, byCol);
      return tr;
    }));

    this.plots = [];
    for (const p of PLOTS) {
      const col = p.cols.find((c) => cols.includes(c));
      if (!col) continue;
      const el = document.createElement('div');
      el.className = 'plot';
      const title = document.createElement('div');
      title.className = 'title';
      const name = document.createElement('span');
      name.textContent = `${col}${units.get(col) ? ` (${units.get(col)})` : ''}, 30 s`;
      const max = document.createElement('span');
      title.append(name, max);
      const canvas = document.createElement('canvas');
      el.append(title, canvas);
      this.plots.push({ col, canvas, max });
    }
    this.plotsEl.replaceChildren(...this.plots.map((p) => p.canvas.parentElement));
  }

  // sample notes the latest value of every plotted cell.
  sample() {
    const i = this.samples % SAMPLES;
    for (const p of this.plots) {
      for (const r of this.rows) {
        const key = `${r}\x00${p.col}`;
        let h = this.history.get(key);
        if (!h) {
          h = new Float64Array(SAMPLES).fill(NaN);
          this.history.set(key, h);
        }
        const v = this.current.get(key);
        h[i] = Number.isFinite(v) ? v : NaN;
      }
    }
    this.samples++;
  }

  // drawPlots draws each plot: a line per row, oldest on the left, from
  // zero to the largest value of the 30 s shown.
  drawPlots() {
    const n = Math.min(this.samples, SAMPLES);
    for (const p of this.plots) {
      const c = p.canvas;
      const dpr = Math.min(window.devicePixelRatio || 1, 2);
      const w = Math.max(1, Math.round(c.clientWidth * dpr)), h = Math.max(1, Math.round(c.clientHeight * dpr));
      if (c.width !== w || c.height !== h) { c.width = w; c.height = h; }
      const g = c.getContext('2d');
      g.clearRect(0, 0, w, h);
      let top = 0;
      for (const r of this.rows) {
        const hist = this.history.get(`${r}\x00${p.col}`);
        if (hist) for (const v of hist) if (v > top) top = v;
      }
      p.max.textContent = `max ${formatValue(top)}`;
      if (top <= 0) top = 1;
      g.lineWidth = dpr;
      for (const r of this.rows) {
        const hist = this.history.get(`${r}\x00${p.col}`);
        if (!hist) continue;
        g.strokeStyle = rowColor(r, this.zeroBased);
        g.beginPath();
        let pen = false;
        for (let k = 0; k < n; k++) {
          const v = hist[(this.samples - n + k) % SAMPLES];
          if (!Number.isFinite(v)) { pen = false; continue; }
          const x = ((SAMPLES - n + k) / (SAMPLES - 1)) * (w - 1);
          const y = h - 1 - (v / top) * (h - 2);
          if (pen) g.lineTo(x, y); else g.moveTo(x, y);
          pen = true;
        }
        g.stroke();
      }
    }
  }
}
