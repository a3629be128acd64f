// Worlds draws the views of a frame side by side in one WebGL canvas: a
// viewport per view with its own scene and camera, the cubes of a view in
// one instanced mesh, a label over each viewport.
import * as THREE from './vendor/three.module.min.js';
import { CUBE_BYTES, FLAG_AT_REST, FLAG_INTERACTING, FLAG_PLAYER, ownerOf, readCube } from './frame.js';

// Cube colours of the articles: grey at rest (a lighter grey while moving),
// red while interacting, and a blue player.
const COLOR = {
  rest: new THREE.Color('#8b929c'),
  moving: new THREE.Color('#c3c8cf'),
  interacting: new THREE.Color('#e0453c'),
  player: new THREE.Color('#3f7fff'),
};

// Authority colours, for the models that say who owns a cube (statesync):
// one per player, indexed by owner - 1. A cube under a player's authority
// is drawn in its colour, the player's avatar (a player cube with an
// owner) in a darker shade of it, apart from the white cubes nobody owns
// and from the cube its hand holds; a cube nobody owns keeps the colours
// above.
const OWNER_COLORS = ['#f0a020', '#30c050', '#3f7fff', '#d050e0', '#20c8d0', '#e04060', '#a0d020'];
const OWNER = OWNER_COLORS.map((hex) => {
  const cube = new THREE.Color(hex);
  return { cube, avatar: cube.clone().multiplyScalar(0.55) };
});

// The cameras look down at the player from behind and ease after it. By
// default every viewport shares one camera, which looks along -z (up
// pushes towards -z) and follows the first view's player, so that the
// pictures of the views compare pixel for pixel. A view with a facing
// (a player's own view of the VR table) has its own camera, which follows
// its own player and looks along the facing.
const DEFAULT_FACING = [0, -1];
const CAMERA_UP = 0.95;  // the camera's rise per metre it stands behind the point looked at
const LOOK_AHEAD = 0.22; // of the distance: the player sits in the lower third
// A player's own view looks down at the table the player faces: from
// farther back and higher, over the towers, at a point ahead, so that the
// other players show and the cubes under the hand can be pointed at.
const OWN_DISTANCE = 2; // times the shared camera's
const OWN_UP = 1.6;       // steeper: about 58° down
const OWN_LOOK_AHEAD = 0.15;
const EASE_RATE = 2.5;   // 1/s: about 0.4 s to close most of the gap
const SUN_OFFSET = new THREE.Vector3(-18, 40, 20); // m from the point looked at

const boxGeometry = new THREE.BoxGeometry(1, 1, 1); // scaled per instance by the full extents
const cubeMaterial = new THREE.MeshStandardMaterial({ color: 0xffffff, roughness: 0.55, metalness: 0.0 });

// Scratch values, to allocate nothing per cube.
const ndc = new THREE.Vector2();
const raycaster = new THREE.Raycaster();
const m4 = new THREE.Matrix4();
const pos = new THREE.Vector3();
const quat = new THREE.Quaternion();
const scale = new THREE.Vector3();

export class Worlds {
  constructor(canvas, labels) {
    this.canvas = canvas;
    this.labels = labels;
    this.views = [];
    this.rig = newRig(); // the shared camera
    this.zoom = 1;
    const r = new THREE.WebGLRenderer({ canvas, antialias: true });
    r.setPixelRatio(Math.min(window.devicePixelRatio, 2));
    r.shadowMap.enabled = true;
    r.shadowMap.type = THREE.PCFShadowMap; // the vendored three.js dropped PCFSoftShadowMap
    r.toneMapping = THREE.ACESFilmicToneMapping;
    r.setScissorTest(true);
    this.renderer = r;
  }

  // apply puts a parsed frame (see parseFrame) into the meshes, adding and
  // dropping views to match.
  apply(frame) {
    while (this.views.length > frame.views.length) this.views.pop().drop();
    frame.views.forEach((part, i) => {
      if (!this.views[i]) this.views.push(new View(part.name, this.labels));
      this.views[i].fill(frame.dv, part);
      this.views[i].facing = part.facing;
    });
  }

  // draw renders every view; dt is the time since the last draw, s.
  draw(dt) {
    const r = this.renderer, canvas = this.canvas;
    const w = canvas.clientWidth, h = canvas.clientHeight;
    if (canvas.width !== Math.floor(w * r.getPixelRatio()) || canvas.height !== Math.floor(h * r.getPixelRatio())) {
      r.setSize(w, h, false);
    }
    if (this.views[0]) placeRig(this.rig, this.views[0], dt);
    const n = Math.max(this.views.length, 1);
    this.views.forEach((v, i) => {
      const x0 = Math.round((i * w) / n), x1 = Math.round(((i + 1) * w) / n);
      r.setViewport(x0, 0, x1 - x0, h);
      r.setScissor(x0, 0, x1 - x0, h);
      let rig = this.rig;
      if (v.facing) {
        rig = v.rig;
        placeRig(rig, v, dt);
      }
      const [fx, fz] = v.facing ?? DEFAULT_FACING;
      const dist = rig.distance * this.zoom * (v.facing ? OWN_DISTANCE : 1);
      const ahead = v.facing ? OWN_LOOK_AHEAD : LOOK_AHEAD;
      const look = rig.target.clone().add(new THREE.Vector3(fx, 0, fz).multiplyScalar(ahead * dist));
      const eye = look.clone().add(new THREE.Vector3(-fx, v.facing ? OWN_UP : CAMERA_UP, -fz).normalize().multiplyScalar(dist));
      v.aim(eye, look, (x1 - x0) / h);
      r.render(v.scene, v.camera);
      v.label.style.left = `${x0 + 14}px`;
    });
    this.layoutDividers(w, n);
  }

  // zoomBy scales the camera distance, as the mouse wheel asks; 1 is the
  // distance that frames the first frame's cubes.
  zoomBy(factor) {
    this.zoom = THREE.MathUtils.clamp(this.zoom * factor, 0.25, 4);
  }

  // rayAt returns the ray from the camera of the viewport under the page
  // point (clientX, clientY) through it, as {from, dir} in the scene's
  // frame (dir a unit vector), or null when no view is drawn there yet.
  rayAt(clientX, clientY) {
    const rect = this.canvas.getBoundingClientRect();
    const x = clientX - rect.left, y = clientY - rect.top;
    const w = rect.width, h = rect.height, n = this.views.length;
    if (n === 0 || x < 0 || y < 0 || x >= w || y >= h) return null;
    const i = Math.min(Math.floor((x * n) / w), n - 1);
    const v = this.views[i];
    if (!v.aimed) return null;
    const x0 = Math.round((i * w) / n), x1 = Math.round(((i + 1) * w) / n);
    ndc.set(((x - x0) / (x1 - x0)) * 2 - 1, 1 - (y / h) * 2);
    raycaster.setFromCamera(ndc, v.camera);
    return { from: raycaster.ray.origin.toArray(), dir: raycaster.ray.direction.toArray() };
  }

  layoutDividers(w, n) {
    const have = [...this.labels.querySelectorAll('.divider')];
    for (let i = have.length; i < n - 1; i++) {
      const d = document.createElement('div');
      d.className = 'divider';
      this.labels.appendChild(d);
      have.push(d);
    }
    have.forEach((d, i) => {
      if (i >= n - 1) d.remove();
      else d.style.left = `${Math.round(((i + 1) * w) / n)}px`;
    });
  }

  // summary is what the debug hook shows of each view: its name, its cube
  // count, its player's centre as drawn, or null, the centres of all its
  // player cubes (the VR avatars' hands and heads) in frame order, and how
  // many of its cubes each owner colours.
  summary() {
    return this.views.map((v) => {
      const p = v.playerPosition();
      const players = v.players.map((i) => {
        v.mesh.getMatrixAt(i, m4);
        return pos.setFromMatrixPosition(m4).toArray();
      });
      return { name: v.name, cubes: v.cubes, player: p ? [p.x, p.y, p.z] : null, players, owned: [...v.owned] };
    });
  }
}

// A rig is where a camera looks: it frames its view's cubes once, then
// eases after its player.
function newRig() {
  return { target: new THREE.Vector3(), distance: 0, placed: false };
}

function placeRig(rig, v, dt) {
  if (!v.mesh) return;
  const p = v.playerPosition();
  if (!rig.placed) {
    const box = new THREE.Box3();
    for (let i = 0; i < v.cubes; i++) {
      v.mesh.getMatrixAt(i, m4);
      box.expandByPoint(pos.setFromMatrixPosition(m4));
    }
    const size = box.getSize(new THREE.Vector3());
    rig.distance = THREE.MathUtils.clamp(0.75 * Math.max(size.x, size.z), 14, 70);
    rig.target.copy(p ?? box.getCenter(new THREE.Vector3())).setY(0);
    rig.placed = true;
  } else if (p) {
    rig.target.lerp(new THREE.Vector3(p.x, 0, p.z), 1 - Math.exp(-dt * EASE_RATE));
  }
}

// View is one world: its scene with ground, lights and cubes, its camera,
// its label.
class View {
  constructor(name, labels) {
    this.name = name;
    this.cubes = 0;
    this.player = null; // instance index of the player cube
    this.players = [];  // instance indices of every player cube
    this.facing = null; // [x, z] the own camera looks along, or null: the shared camera
    this.rig = newRig(); // the own camera's
    this.aimed = false; // the camera was aimed once: rays can be cast
    this.owned = Array(OWNER.length).fill(0); // per owner - 1, the cubes (avatar parts too) it owns
    this.mesh = null;
    this.capacity = 0;

    const scene = new THREE.Scene();
    scene.background = new THREE.Color('#1d222b');
    scene.fog = new THREE.Fog('#1d222b', 70, 170);
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
    this.camera = new THREE.PerspectiveCamera(45, 1, 0.1, 500);
    this.label = document.createElement('div');
    this.label.className = 'label';
    labels.appendChild(this.label);
    this.relabel();
  }

  relabel() {
    this.label.textContent = this.name;
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
  }

  // fill writes the cubes of one view of a frame into the mesh.
  fill(dv, part) {
    this.reserve(part.count);
    const mesh = this.mesh;
    this.player = null;
    this.players.length = 0;
    this.owned.fill(0);
    for (let i = 0, o = part.off; i < part.count; i++, o += CUBE_BYTES) {
      const flags = readCube(dv, o, pos, quat, scale);
      mesh.setMatrixAt(i, m4.compose(pos, quat, scale));
      const owner = ownerOf(flags);
      let c = COLOR.moving;
      if (flags & FLAG_PLAYER) { c = owner ? OWNER[owner - 1].avatar : COLOR.player; this.player = i; this.players.push(i); }
      else if (owner) c = OWNER[owner - 1].cube;
      else if (flags & FLAG_INTERACTING) c = COLOR.interacting;
      else if (flags & FLAG_AT_REST) c = COLOR.rest;
      mesh.setColorAt(i, c);
      if (owner) this.owned[owner - 1]++;
    }
    mesh.count = part.count;
    mesh.instanceMatrix.needsUpdate = true;
    mesh.instanceColor.needsUpdate = true;
    if (this.name !== part.name || this.cubes !== part.count) {
      this.name = part.name;
      this.cubes = part.count;
      this.relabel();
    }
  }

  aim(eye, look, aspect) {
    this.camera.aspect = aspect;
    this.camera.position.copy(eye);
    this.camera.lookAt(look);
    this.camera.updateProjectionMatrix();
    this.camera.updateMatrixWorld();
    this.aimed = true;
    this.sun.position.copy(look).add(SUN_OFFSET);
    this.sun.target.position.copy(look);
  }

  // playerPosition reads the player's centre back from the matrix that is
  // drawn, so that the debug hook reports what is on screen.
  playerPosition() {
    if (this.player === null) return null;
    this.mesh.getMatrixAt(this.player, m4);
    return new THREE.Vector3().setFromMatrixPosition(m4);
  }
}
