// The binary frame message, as viewer/frame.go writes it (the layout
// diagram is on AppendFrame there): an 8-byte header, then per view its
// name, cube count, facing and flags, then 48 bytes per cube, all
// little-endian.

export const FRAME_VERSION = 4;
export const HEADER_BYTES = 8;
export const CUBE_BYTES = 48;
export const FLAG_INTERACTING = 1;
export const FLAG_PLAYER = 2;
export const FLAG_AT_REST = 4;
export const OWNER_SHIFT = 3; // bits 3-5 of the flags: 0 nobody, p+1 player p
export const OWNER_MASK = 7;
export const VIEW_OVERVIEW = 1; // bit 0 of a view's flags: nobody's own view, framed whole

// ownerOf returns the owner bits of a cube's flags.
export function ownerOf(flags) {
  return (flags >>> OWNER_SHIFT) & OWNER_MASK;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

// frameSeq checks the header of a frame message and returns its seq.
export function frameSeq(buf) {
  if (buf.byteLength < HEADER_BYTES) throw new Error('frame: truncated header');
  const dv = new DataView(buf);
  const version = dv.getUint8(0);
  if (version !== FRAME_VERSION) throw new Error(`frame: version ${version}, the page reads ${FRAME_VERSION}`);
  return dv.getUint32(4, true);
}

// parseFrame validates a whole frame message and returns its views as
// {name, count, facing, overview, off}: the cubes of a view are count
// records of CUBE_BYTES from byte off, for readCube; facing is [x, z], the
// direction the view's own camera looks in, or null for the default;
// overview says the view is nobody's own (the server's world). It throws
// on anything Go's DecodeFrame rejects for its layout.
export function parseFrame(buf) {
  const seq = frameSeq(buf);
  const dv = new DataView(buf);
  const nviews = dv.getUint8(1);
  const views = [];
  let off = HEADER_BYTES;
  for (let i = 0; i < nviews; i++) {
    if (off + 1 > dv.byteLength) throw new Error('frame: truncated view');
    const nlen = dv.getUint8(off);
    if (off + 1 + nlen + 4 + 8 + 1 > dv.byteLength) throw new Error('frame: truncated view name');
    const name = utf8.decode(new Uint8Array(buf, off + 1, nlen));
    off += 1 + nlen;
    const count = dv.getUint32(off, true);
    const fx = dv.getFloat32(off + 4, true), fz = dv.getFloat32(off + 8, true);
    const flags = dv.getUint8(off + 12);
    off += 13;
    if (flags & ~VIEW_OVERVIEW) throw new Error('frame: undefined view flags');
    let facing = null;
    if (fx !== 0 || fz !== 0) {
      if (!(Math.abs(Math.hypot(fx, fz) - 1) <= 1e-3)) throw new Error('frame: facing is not a unit vector');
      facing = [fx, fz];
    }
    if (off + count * CUBE_BYTES > dv.byteLength) throw new Error('frame: truncated cubes');
    views.push({ name, count, facing, overview: (flags & VIEW_OVERVIEW) !== 0, off });
    off += count * CUBE_BYTES;
  }
  if (off !== dv.byteLength) throw new Error('frame: trailing bytes');
  return { seq, dv, views };
}

// readCube reads the cube at byte o of dv into the three.js position,
// quaternion and scale (full extents) given, and returns its flags.
export function readCube(dv, o, pos, quat, scale) {
  pos.set(dv.getFloat32(o + 4, true), dv.getFloat32(o + 8, true), dv.getFloat32(o + 12, true));
  quat.set(dv.getFloat32(o + 16, true), dv.getFloat32(o + 20, true), dv.getFloat32(o + 24, true), dv.getFloat32(o + 28, true));
  scale.set(2 * dv.getFloat32(o + 32, true), 2 * dv.getFloat32(o + 36, true), 2 * dv.getFloat32(o + 40, true));
  return dv.getUint32(o + 44, true);
}
