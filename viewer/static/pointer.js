// The mouse over the views, for the worlds whose player points (the VR
// table's hand; the cube world ignores it): the ray from the camera of the
// viewport under the mouse through it, a lift that right-drag changes, and
// the left button. The server moves the hand to where the ray crosses the
// hand's height (viewer/pointer.go, scene/vrpointer.go).

// LIFT_PER_PX is how far dragging with the right button by one pixel lifts
// the pointer, m; LIFT_MIN and LIFT_MAX bound the lift, m (the server
// bounds the hand again).
const LIFT_PER_PX = 0.01;
const LIFT_MIN = -1;
const LIFT_MAX = 4;

const round = (v, digits) => Number(v.toFixed(digits));

// watchPointer follows the mouse over canvas. rayAt(clientX, clientY)
// returns {from, dir} or null (Worlds.rayAt). onMove is called when the
// pointer moved, onButton when a button changed: the page sends the first
// at most once a frame and the second at once. It returns the function
// that gives the pointer to send, or null before the mouse moved over the
// views, with from rounded to the millimetre and dir to 1e-4 to keep the
// messages short.
export function watchPointer(canvas, rayAt, onMove, onButton) {
  let ray = null;      // {from, dir} as last aimed
  let lift = 0;        // m
  let grip = false;    // left button held
  let dragY = null;    // clientY while the right button is held, or null

  // update follows one pointer event. The buttons are read from
  // e.buttons, not from down and up events: a button pressed while
  // another is held comes as a pointermove. A release does not aim: the
  // end of a right-drag leaves the hand where it was lifted until the
  // mouse moves on, and a throw leaves from where the hand was carried.
  const update = (e) => {
    // A middle-drag or a shift-drag orbits the view's camera (viewer.js):
    // not the hand's business.
    if ((e.shiftKey || (e.buttons & 4) !== 0) && !grip && dragY === null) return;
    const left = (e.buttons & 1) !== 0, right = (e.buttons & 2) !== 0;
    if (right && dragY !== null) {
      // A right-drag lifts the hand where it is: the ray stays.
      lift = Math.min(LIFT_MAX, Math.max(LIFT_MIN, lift - (e.clientY - dragY) * LIFT_PER_PX));
    } else if (!right && e.type !== 'pointerup') {
      const r = rayAt(e.clientX, e.clientY);
      if (r) ray = r;
    }
    const changed = left !== grip || right !== (dragY !== null);
    grip = left;
    dragY = right ? e.clientY : null;
    if (changed) onButton(); else onMove();
  };
  const release = () => {
    if (!grip && dragY === null) return;
    grip = false;
    dragY = null;
    onButton();
  };
  canvas.addEventListener('contextmenu', (e) => e.preventDefault()); // right-drag is ours
  canvas.addEventListener('pointerdown', (e) => {
    canvas.setPointerCapture(e.pointerId); // the release counts wherever it happens
    update(e);
  });
  canvas.addEventListener('pointermove', update);
  canvas.addEventListener('pointerup', update);
  canvas.addEventListener('pointercancel', release);
  window.addEventListener('blur', release);

  return () => ray && {
    from: ray.from.map((v) => round(v, 3)),
    dir: ray.dir.map((v) => round(v, 4)),
    lift: round(lift, 3),
    grip,
  };
}
