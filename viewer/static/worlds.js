// Worlds draws the views of a frame in one WebGL canvas, as a grid of
// viewports that keeps each near the window's shape (2×2, 3×3, ...): a
// viewport per view with its own scene and camera, the cubes of a view in
// one instanced mesh, a label in the corner of each viewport.
import * as THREE from './vendor/three.module.min.js';
import { CUBE_BYTES, FLAG_AT_REST, FLAG_INTERACTING, FLAG_PLAYER, ownerOf, readCube } from './frame.js';

// Cube colours of the articles: grey at rest (a lighter grey while moving),
// red while interacting, and a blue player: the view's own player; the
// other players of a player's view are violet. In an overview (the
// server's world) every player is blue.
export const COLOR = {
  rest: new THREE.Color('#8b929c'),
  moving: new THREE.Color('#c3c8cf'),
  interacting: new THREE.Color('#e0453c'),
  player: new THREE.Color('#3f7fff'),
  other: new THREE.Color('#9a7bff'),
};

// PLAYER_COLORS are the players' colours: the authority colour of the
// models that say who owns a cube (statesync), indexed by owner - 1, and
// the colour of each player's row and lines in the figures. A cube under
// a player's authority is drawn in its colour, the player's avatar (a
// player cube with an owner) in a darker shade of it; a cube nobody owns
// keeps the colours above.
export const PLAYER_COLORS = ['#f0a020', '#30c050', '#3f7fff', '#d050e0', '#20c8d0', '#e04060', '#a0d020',
  '#ff7f50', '#7fd4ff', '#c0a0ff', '#ffd24a', '#50e0a0', '#ff8fc8', '#b0b8c8', '#8fa0ff', '#e0c090'];
const OWNER = PLAYER_COLORS.slice(0, 7).map((hex) => {
  const cube = new THREE.Color(hex);
  return { cube, avatar: cube.clone().multiplyScalar(0.55) };
});

// Cameras. Each viewport has its own, which eases towards the framing of
// what matters in its view:
//   - a player's view (the default): the player and what it touches or
//     may soon: its NEAREST cubes, the interacting cubes and the other
//     players within NEAR of it, at least OWN_RADIUS across;
//   - an overview (View.Overview, the server's world): the whole scene,
//     but for the 5 % of cubes at each end of either axis and the 5 %
//     highest (blasted away), and every player;
//   - a view with a facing (a player's own side of the VR table): every
//     cube.
// The camera looks down along the view's facing (-z by default: up pushes
// towards -z) from CAMERA_UP metres of rise per metre back, at the middle
// of what it frames; the distance is the one at which the box around it
// fits the viewport, whatever its shape. The wheel zooms a viewport, a middle-drag or shift-drag orbits
// it, a double click puts it back.
const DEFAULT_FACING = [0, -1];
const CAMERA_UP = 0.95;     // about 44° down
const OWN_RADIUS = 6;       // m: a player's view spans at least twice this each way
const NEAR = 20;            // m: what a player touches is within this
const NEAREST = 20;         // cubes around a player framed with it (a tower)
const MARGIN = 1.5;         // m added around what is framed
const MAX_RADIUS = 70;      // m: a framing never wider than this
const FOV = 45;             // vertical, degrees
const EASE_RATE = 2.5;      // 1/s: about 0.4 s to close most of the gap
const SUN_OFFSET = new THREE.Vector3(-18, 40, 20); // m from the point looked at
const GAP = 2;              // CSS px between viewports
const SHADOW_AREA = 360 * 280; // CSS px²: smaller viewports draw no shadows
const FILL = 0.88;          // of the way from the middle to the edge: the framed box's extent
const BACKGROUND = new THREE.Color('#0b0d12'); // the gaps between viewports

const boxGeometry = new THREE.BoxGeometry(1, 1, 1); // scaled per instance by the full extents
const cubeMaterial = new THREE.MeshStandardMaterial({ color: 0xffffff, roughness: 0.55, metalness: 0.0 });

// Scratch values, to allocate nothing per cube.
const ndc = new THREE.Vector2();
const raycaster = new THREE.Raycaster();
const m4 = new THREE.Matrix4();
const pos = new THREE.Vector3();
const quat = new THREE.Quaternion();
const scale = new THREE.Vector3();
const projected = new THREE.Vector3();
const scratchCamera = new THREE.PerspectiveCamera(FOV, 1, 0.1, 1000);

// gridFor returns the columns and rows of the grid for n viewports in a
// w × h area: the one whose cells hold the largest rectangle of the
// window's shape (aspect, width over height), so that each view stays near
// it. Ties go to fewer columns.
export function gridFor(n, w, h, aspect) {
  let best = { cols: 1, rows: Math.max(n, 1) }, bestArea = -1;
  for (let cols = 1; cols <= Math.max(n, 1); cols++) {
    const rows = Math.ceil(Math.max(n, 1) / cols);
    const cw = w / cols, ch = h / rows;
    const area = Math.min(cw, ch * aspect) * Math.min(ch, cw / aspect);
    if (area > bestArea * 1.0001) {
      best = { cols, rows };
      bestArea = area;
    }
  }
  return best;
}

// cellOf returns viewport i of the grid as {x, y, w, h}, CSS pixels from
// the top left of a w × h area, the gaps left out.
function cellOf(i, grid, w, h) {
  const col = i % grid.cols, row = Math.floor(i / grid.cols);
  const x0 = Math.round((col * w) / grid.cols), x1 = Math.round(((col + 1) * w) / grid.cols);
  const y0 = Math.round((row * h) / grid.rows), y1 = Math.round(((row + 1) * h) / grid.rows);
  const gl = col > 0 ? GAP / 2 : 0, gr = col < grid.cols - 1 ? GAP / 2 : 0;
  const gt = row > 0 ? GAP / 2 : 0, gb = row < grid.rows - 1 ? GAP / 2 : 0;
  return { x: x0 + gl, y: y0 + gt, w: x1 - x0 - gl - gr, h: y1 - y0 - gt - gb };
}

export class Worlds {
  constructor(canvas, labels) {
    this.canvas = canvas;
    this.labels = labels;
    this.views = [];
    this.grid = { cols: 1, rows: 1 };
    this.size = { w: 0, h: 0 };
    const r = new THREE.WebGLRenderer({ canvas, antialias: true });
    r.setPixelRatio(Math.min(window.devicePixelRatio, 2));
    r.shadowMap.enabled = true;
    r.shadowMap.type = THREE.PCFShadowMap; // the vendored three.js dropped PCFSoftShadowMap
    r.toneMapping = THREE.ACESFilmicToneMapping;
    r.setClearColor(BACKGROUND);
    this.renderer = r;
  }

  // apply puts a parsed frame (see parseFrame) into the meshes, adding and
  // dropping views to match.
  apply(frame) {
    while (this.views.length > frame.views.length) this.views.pop().drop();
    frame.views.forEach((part, i) => {
      if (!this.views[i]) this.views.push(new View(part.name, this.labels));
      const v = this.views[i];
      if (v.overview !== part.overview || String(v.facing) !== String(part.facing)) v.rig.placed = false;
      v.facing = part.facing;
      v.overview = part.overview;
      v.fill(frame.dv, part);
    });
  }

  // draw renders every view; dt is the time since the last draw, s.
  draw(dt) {
    const r = this.renderer, canvas = this.canvas;
    const w = canvas.clientWidth, h = canvas.clientHeight;
    if (canvas.width !== Math.floor(w * r.getPixelRatio()) || canvas.height !== Math.floor(h * r.getPixelRatio())) {
      r.setSize(w, h, false);
    }
    this.size = { w, h };
    this.grid = gridFor(this.views.length, w, h, window.innerWidth / Math.max(window.innerHeight, 1));
    r.setScissorTest(false);
    r.clear();
    r.setScissorTest(true);
    const small = w / this.grid.cols < 360;
    this.views.forEach((v, i) => {
      const c = cellOf(i, this.grid, w, h);
      v.cell = c;
      if (c.w <= 0 || c.h <= 0) return;
      r.setViewport(c.x, h - c.y - c.h, c.w, c.h);
      r.setScissor(c.x, h - c.y - c.h, c.w, c.h);
      // Shadows cost a render of the scene each: kept for viewports large
      // enough to show them, dropped in a grid of many small ones.
      v.sun.castShadow = c.w * c.h >= SHADOW_AREA;
      v.frameCamera(dt, c.w / c.h);
      r.render(v.scene, v.camera);
      v.noteOwn();
      const s = v.label.style;
      s.left = `${c.x + 6}px`;
      s.top = `${c.y + 6}px`;
      s.maxWidth = `${Math.max(c.w - 12, 0)}px`;
      s.maxHeight = `${Math.max(c.h - 12, 0)}px`;
      v.label.classList.toggle('small', small);
    });
  }

  // viewAt returns the index of the viewport under the page point
  // (clientX, clientY) and the point as normalized device coordinates of
  // that viewport, or null.
  viewAt(clientX, clientY) {
    const rect = this.canvas.getBoundingClientRect();
    const x = clientX - rect.left, y = clientY - rect.top;
    for (let i = 0; i < this.views.length; i++) {
      const c = this.views[i].cell;
      if (c && x >= c.x && x < c.x + c.w && y >= c.y && y < c.y + c.h) {
        return { i, x: ((x - c.x) / c.w) * 2 - 1, y: 1 - ((y - c.y) / c.h) * 2 };
      }
    }
    return null;
  }

  // zoomAt scales the camera distance of the viewport under the page
  // point, as the mouse wheel asks; 1 is the distance that frames what
  // matters.
  zoomAt(clientX, clientY, factor) {
    const at = this.viewAt(clientX, clientY);
    if (!at) return;
    const rig = this.views[at.i].rig;
    rig.zoom = THREE.MathUtils.clamp(rig.zoom * factor, 0.2, 5);
  }

  // orbitAt turns the camera of the viewport under the page point by dx
  // and dy CSS pixels of a drag: around the point looked at, and up or
  // down.
  orbitAt(clientX, clientY, dx, dy) {
    const at = this.viewAt(clientX, clientY);
    if (!at) return;
    const rig = this.views[at.i].rig;
    rig.yaw -= dx * 0.008;
    rig.pitch = THREE.MathUtils.clamp(rig.pitch + dy * 0.008, -0.6, 0.5);
  }

  // resetAt puts the camera of the viewport under the page point back to
  // its framing.
  resetAt(clientX, clientY) {
    const at = this.viewAt(clientX, clientY);
    if (!at) return;
    Object.assign(this.views[at.i].rig, { zoom: 1, yaw: 0, pitch: 0 });
  }

  // rayAt returns the ray from the camera of the viewport under the page
  // point (clientX, clientY) through it, as {from, dir} in the scene's
  // frame (dir a unit vector), or null when no view is drawn there yet.
  rayAt(clientX, clientY) {
    const at = this.viewAt(clientX, clientY);
    if (!at || !this.views[at.i].aimed) return null;
    ndc.set(at.x, at.y);
    raycaster.setFromCamera(ndc, this.views[at.i].camera);
    return { from: raycaster.ray.origin.toArray(), dir: raycaster.ray.direction.toArray() };
  }

  // legend returns what the cubes drawn show, for the colour legend:
  // which kinds of cube appear in any view and which owners.
  legend() {
    const l = { own: false, other: false, player: false, interacting: false, rest: false, moving: false, owners: [] };
    const owners = new Set();
    for (const v of this.views) {
      for (const k of Object.keys(v.kinds)) if (v.kinds[k]) l[k] = true;
      v.owned.forEach((n, o) => { if (n) owners.add(o + 1); });
    }
    l.owners = [...owners].sort((a, b) => a - b);
    return l;
  }

  // summary is what the debug hook shows of each view: its name, its cube
  // count, its player's centre as drawn, or null, the centres of all its
  // player cubes (the VR avatars' hands and heads) in frame order, how
  // many of its cubes each owner colours, whether it is an overview, its
  // viewport {x, y, w, h} in CSS pixels of the canvas, its player's
  // position projected on the viewport (normalized device coordinates:
  // -1 to 1 across it when inside), how many draws there were and how
  // many showed its player inside the viewport, and the zoom and orbit
  // the mouse gave its camera.
  summary() {
    return this.views.map((v) => {
      const p = v.playerPosition();
      const players = v.players.map((i) => [v.xyz[3 * i], v.xyz[3 * i + 1], v.xyz[3 * i + 2]]);
      return {
        name: v.name, cubes: v.cubes, player: p ? [p.x, p.y, p.z] : null, players, owned: [...v.owned],
        overview: v.overview, cell: v.cell, own: v.own, drawn: v.drawn, ownInFrame: v.ownInFrame,
        camera: { zoom: v.rig.zoom, yaw: v.rig.yaw, pitch: v.rig.pitch },
      };
    });
  }
}

// View is one world: its scene with ground, lights and cubes, its camera
// and where it looks, its label.
class View {
  constructor(name, labels) {
    this.name = name;
    this.cubes = 0;
    this.player = null; // instance index of the player cube: the last one
    this.players = [];  // instance indices of every player cube
    this.facing = null; // [x, z] the camera looks along, or null: -z
    this.overview = false;
    this.rig = { target: new THREE.Vector3(), distance: 0, placed: false, zoom: 1, yaw: 0, pitch: 0 };
    this.cell = null;   // the viewport as last drawn, CSS px
    this.aimed = false; // the camera was aimed once: rays can be cast
    this.own = null;    // the player projected on the viewport, [x, y], or null
    this.drawn = 0;     // draws of a view with a player (not an overview)
    this.ownInFrame = 0; // of those, the draws with the player inside the viewport
    this.owned = Array(OWNER.length).fill(0); // per owner - 1, the cubes (avatar parts too) it owns
    this.kinds = {};    // the kinds of cube drawn, for the legend
    this.mesh = null;
    this.capacity = 0;
    this.xyz = new Float32Array(0); // centres, 3 per cube
    this.near = new Uint8Array(0);  // 1 for a cube that counts as touched: interacting or a player

    const scene = new THREE.Scene();
    scene.background = new THREE.Color('#1d222b');
    scene.fog = new THREE.Fog('#1d222b', 90, 220);
    scene.add(new THREE.HemisphereLight('#dde6ff', '#40444c', 1.6));
    const sun = new THREE.DirectionalLight('#fff6e8', 2.4);
    sun.castShadow = true;
    sun.shadow.mapSize.set(1024, 1024);
    Object.assign(sun.shadow.camera, { left: -30, right: 30, top: 30, bottom: -30, near: 1, far: 120 });
    sun.shadow.bias = -0.0005;
    scene.add(sun, sun.target);

    const ground = new THREE.Mesh(
      new THREE.PlaneGeometry(600, 600),
      new THREE.MeshStandardMaterial({ color: '#3a414d', roughness: 0.95 }),
    );
    ground.rotation.x = -Math.PI / 2;
    ground.receiveShadow = true;
    // 5 m grid lines: enough to read speed and distance, few enough not to
    // shimmer into moiré at a grazing angle.
    const grid = new THREE.GridHelper(300, 60, '#4b5566', '#4b5566');
    grid.position.y = 0.003;
    scene.add(ground, grid);

    this.scene = scene;
    this.sun = sun;
    this.camera = new THREE.PerspectiveCamera(FOV, 1, 0.1, 500);
    this.label = document.createElement('div');
    this.label.className = 'label';
    labels.appendChild(this.label);
    this.relabel();
  }

  relabel() {
    this.label.textContent = this.name;
    this.label.title = this.name;
    const small = document.createElement('small');
    small.textContent = `${this.cubes} cubes`;
    this.label.appendChild(small);
  }

  drop() {
    this.label.remove();
    if (this.mesh) this.mesh.dispose();
  }

  // reserve gives the view an instanced mesh that holds n cubes, growing by
  // doubling so that a world that grows does not reallocate every frame.
  reserve(n) {
    if (this.mesh && this.capacity >= n) return;
    let cap = Math.max(this.capacity, 64);
    while (cap < n) cap *= 2;
    if (this.mesh) {
      this.scene.remove(this.mesh);
      this.mesh.dispose();
    }
    const mesh = new THREE.InstancedMesh(boxGeometry, cubeMaterial, cap);
    mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
    mesh.setColorAt(0, COLOR.rest); // allocates instanceColor
    mesh.instanceColor.setUsage(THREE.DynamicDrawUsage);
    mesh.castShadow = true;
    mesh.receiveShadow = true;
    mesh.frustumCulled = false; // its bounding sphere would go stale as the cubes move
    this.scene.add(mesh);
    this.mesh = mesh;
    this.capacity = cap;
    this.xyz = new Float32Array(3 * cap);
    this.near = new Uint8Array(cap);
  }

  // fill writes the cubes of one view of a frame into the mesh. The last
  // player cube is the view's own player; in a player's view the others
  // are drawn as other players.
  fill(dv, part) {
    this.reserve(part.count);
    const mesh = this.mesh;
    this.player = null;
    this.players.length = 0;
    this.owned.fill(0);
    const kinds = { own: false, other: false, player: false, interacting: false, rest: false, moving: false };
    let lastPlayer = -1;
    for (let i = 0, o = part.off; i < part.count; i++, o += CUBE_BYTES) {
      if (dv.getUint32(o + 44, true) & FLAG_PLAYER) lastPlayer = i;
    }
    for (let i = 0, o = part.off; i < part.count; i++, o += CUBE_BYTES) {
      const flags = readCube(dv, o, pos, quat, scale);
      mesh.setMatrixAt(i, m4.compose(pos, quat, scale));
      this.xyz[3 * i] = pos.x;
      this.xyz[3 * i + 1] = pos.y;
      this.xyz[3 * i + 2] = pos.z;
      const owner = ownerOf(flags);
      let c = COLOR.moving, kind = 'moving';
      if (flags & FLAG_PLAYER) {
        this.player = i;
        this.players.push(i);
        if (owner) { c = OWNER[owner - 1].avatar; kind = null; }
        else if (part.overview) { c = COLOR.player; kind = 'player'; }
        else if (i === lastPlayer) { c = COLOR.player; kind = 'own'; }
        else { c = COLOR.other; kind = 'other'; }
      } else if (owner) { c = OWNER[owner - 1].cube; kind = null; }
      else if (flags & FLAG_INTERACTING) { c = COLOR.interacting; kind = 'interacting'; }
      else if (flags & FLAG_AT_REST) { c = COLOR.rest; kind = 'rest'; }
      if (kind) kinds[kind] = true;
      this.near[i] = flags & (FLAG_PLAYER | FLAG_INTERACTING) ? 1 : 0;
      mesh.setColorAt(i, c);
      if (owner) this.owned[owner - 1]++;
    }
    this.kinds = kinds;
    mesh.count = part.count;
    mesh.instanceMatrix.needsUpdate = true;
    mesh.instanceColor.needsUpdate = true;
    if (this.name !== part.name || this.cubes !== part.count) {
      this.name = part.name;
      this.cubes = part.count;
      this.relabel();
    }
  }

  // followsPlayer says the camera frames the view's player rather than
  // the whole scene.
  followsPlayer() {
    return !this.overview && !this.facing && this.player !== null;
  }

  // framed returns the indices of the cubes the camera frames: for a
  // player's view the player, its NEAREST cubes within NEAR and the
  // interacting cubes and other players within NEAR; for a view with a
  // facing every cube; null for an overview: every cube, less outliers.
  framed() {
    const n = this.cubes, xyz = this.xyz;
    if (this.facing && !this.overview) return Array.from({ length: n }, (_, i) => i);
    if (!this.followsPlayer()) return null;
    const i0 = this.player, px = xyz[3 * i0], pz = xyz[3 * i0 + 2];
    const keep = [i0], cubes = [];
    for (let i = 0; i < n; i++) {
      if (i === i0) continue;
      const d = Math.hypot(xyz[3 * i] - px, xyz[3 * i + 2] - pz);
      if (d >= NEAR) continue;
      if (this.near[i]) keep.push(i);
      else cubes.push([d, i]);
    }
    cubes.sort((a, b) => a[0] - b[0]);
    for (const [, i] of cubes.slice(0, NEAREST)) keep.push(i);
    return keep;
  }

  // goal returns what the camera looking along (fx, fz) on the ground
  // should frame: the middle {x, z} of the cubes framed, their half
  // extent across the picture (a) and along the ground away from the
  // camera (b), and their height (h), in m; null when the view has no
  // cubes. An overview leaves out the 5 % of cubes at each end of either
  // axis (blasted away), never a player.
  goal(fx, fz) {
    const n = this.cubes, xyz = this.xyz;
    if (n === 0) return null;
    const idx = this.framed();
    const m = idx ? idx.length : n;
    const us = new Float32Array(m), ws = new Float32Array(m), ys = new Float32Array(m);
    for (let k = 0; k < m; k++) {
      const i = idx ? idx[k] : k;
      const x = xyz[3 * i], z = xyz[3 * i + 2];
      us[k] = x * -fz + z * fx; // across: right is (-fz, fx)
      ws[k] = x * fx + z * fz;  // away from the camera
      ys[k] = xyz[3 * i + 1];
    }
    let u0, u1, w0, w1, h;
    if (idx) {
      u0 = Math.min(...us); u1 = Math.max(...us); w0 = Math.min(...ws); w1 = Math.max(...ws); h = Math.max(...ys);
    } else {
      const su = us.slice().sort(), sw = ws.slice().sort(), sy = ys.slice().sort();
      const lo = Math.floor(0.05 * (m - 1)), hi = Math.ceil(0.95 * (m - 1));
      [u0, u1, w0, w1, h] = [su[lo], su[hi], sw[lo], sw[hi], sy[hi]];
      for (const i of this.players) {
        const u = xyz[3 * i] * -fz + xyz[3 * i + 2] * fx, w = xyz[3 * i] * fx + xyz[3 * i + 2] * fz;
        u0 = Math.min(u0, u); u1 = Math.max(u1, u); w0 = Math.min(w0, w); w1 = Math.max(w1, w);
      }
    }
    // At least `least` across and deep, never more than MAX_RADIUS.
    const least = this.followsPlayer() ? OWN_RADIUS : 4;
    const fit = (lo, hi) => {
      const c = (lo + hi) / 2, half = Math.min(Math.max((hi - lo) / 2 + MARGIN, least), MAX_RADIUS);
      return [c - half, c + half];
    };
    [u0, u1] = fit(u0, u1);
    [w0, w1] = fit(w0, w1);
    const uc = (u0 + u1) / 2, wc = (w0 + w1) / 2;
    return { x: uc * -fz + wc * fx, z: uc * fx + wc * fz, u0, u1, w0, w1, h: Math.min(Math.max(h, 0), MAX_RADIUS) };
  }

  // frameCamera eases the camera towards the framing of goal for a
  // viewport of aspect (width over height); dt is the time since the last
  // draw, s.
  frameCamera(dt, aspect) {
    const rig = this.rig;
    const [fx0, fz0] = this.facing ?? DEFAULT_FACING;
    const cy = Math.cos(rig.yaw), sy = Math.sin(rig.yaw);
    const fx = fx0 * cy - fz0 * sy, fz = fx0 * sy + fz0 * cy;
    const rise = CAMERA_UP * Math.exp(rig.pitch);
    const g = this.goal(fx, fz);
    if (g) {
      // The distance at which the box of the goal fits the viewport,
      // looked at half way up: a first guess from its size, then put
      // right by projecting its corners (perspective enlarges the near
      // ones) until the farthest lands at FILL of the way to the edge.
      const tanV = Math.tan(THREE.MathUtils.degToRad(FOV / 2)), tanH = tanV * aspect;
      const elev = Math.atan(rise), sin = Math.sin(elev), cos = Math.cos(elev);
      const a = (g.u1 - g.u0) / 2, b = (g.w1 - g.w0) / 2;
      let dist = Math.max(a / tanH, (b * sin + 0.5 * g.h * cos) / tanV) + b * cos;
      const look = new THREE.Vector3(g.x, g.h / 2, g.z);
      const back = new THREE.Vector3(-fx, rise, -fz).normalize();
      scratchCamera.aspect = aspect;
      scratchCamera.updateProjectionMatrix();
      for (let it = 0; it < 3; it++) {
        scratchCamera.position.copy(back).multiplyScalar(dist).add(look);
        scratchCamera.lookAt(look);
        scratchCamera.updateMatrixWorld();
        let worst = 0;
        for (const u of [g.u0, g.u1]) {
          for (const w of [g.w0, g.w1]) {
            for (const y of [0, g.h]) {
              projected.set(u * -fz + w * fx, y, u * fx + w * fz).project(scratchCamera);
              worst = Math.max(worst, projected.z >= 1 ? 4 : Math.max(Math.abs(projected.x), Math.abs(projected.y)));
            }
          }
        }
        dist *= THREE.MathUtils.clamp(worst / FILL, 0.6, 2);
      }
      if (!rig.placed) {
        rig.target.copy(look);
        rig.distance = dist;
        rig.placed = true;
      } else {
        const k = 1 - Math.exp(-dt * EASE_RATE);
        rig.target.lerp(look, k);
        rig.distance *= Math.exp(Math.log(dist / rig.distance) * k);
      }
      this.aimAt(fx, fz, rise, aspect);
      // Easing never loses the player: a player that would leave the
      // picture (a blast, a teleport, a slow page's long frame) has the
      // camera jump to the framing instead.
      if (this.followsPlayer() && rig.zoom <= 1 && !this.playerInside(0.97)) {
        rig.target.copy(look);
        rig.distance = dist;
      }
    }
    this.aimAt(fx, fz, rise, aspect);
  }

  // aimAt places the camera where the rig says, looking along (fx, fz)
  // with rise metres up per metre back, and returns its distance.
  aimAt(fx, fz, rise, aspect) {
    const rig = this.rig;
    const d = Math.max(rig.distance, 1) * rig.zoom;
    const eye = new THREE.Vector3(-fx, rise, -fz).normalize().multiplyScalar(d).add(rig.target);
    this.camera.aspect = aspect;
    this.camera.position.copy(eye);
    this.camera.lookAt(rig.target);
    this.camera.far = Math.max(500, 3 * d);
    this.camera.updateProjectionMatrix();
    this.camera.updateMatrixWorld();
    this.aimed = true;
    this.sun.position.copy(rig.target).add(SUN_OFFSET);
    this.sun.target.position.copy(rig.target);
    const shadow = Math.min(Math.max(30, d * 0.9), 90);
    const sc = this.sun.shadow.camera;
    if (sc.right !== shadow) {
      Object.assign(sc, { left: -shadow, right: shadow, top: shadow, bottom: -shadow, far: 160 });
      sc.updateProjectionMatrix();
    }
    return d;
  }

  // playerInside reports whether the view's player projects within
  // fraction of the way from the middle of the viewport to its edges.
  playerInside(fraction) {
    const i = this.player;
    projected.set(this.xyz[3 * i], this.xyz[3 * i + 1], this.xyz[3 * i + 2]).project(this.camera);
    return Math.abs(projected.x) <= fraction && Math.abs(projected.y) <= fraction && projected.z < 1;
  }

  // noteOwn projects the view's player on its viewport after a draw and
  // counts whether it was inside.
  noteOwn() {
    if (this.player === null || this.overview) {
      this.own = null;
      return;
    }
    const i = this.player;
    projected.set(this.xyz[3 * i], this.xyz[3 * i + 1], this.xyz[3 * i + 2]).project(this.camera);
    this.own = [projected.x, projected.y];
    this.drawn++;
    if (Math.abs(projected.x) <= 1 && Math.abs(projected.y) <= 1 && projected.z < 1) this.ownInFrame++;
  }

  // playerPosition reads the player's centre back from the matrix that is
  // drawn, so that the debug hook reports what is on screen.
  playerPosition() {
    if (this.player === null) return null;
    this.mesh.getMatrixAt(this.player, m4);
    return new THREE.Vector3().setFromMatrixPosition(m4);
  }
}
