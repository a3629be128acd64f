// The keys of the cube world, tracked from the keyboard: the arrows push
// the player, space lifts it and blasts cubes away, z pulls cubes in.

export const KEYS = ['left', 'right', 'up', 'down', 'space', 'z']; // wire order: bit 0 first

function keyName(e) {
  switch (e.key) {
    case 'ArrowLeft': return 'left';
    case 'ArrowRight': return 'right';
    case 'ArrowUp': return 'up';
    case 'ArrowDown': return 'down';
    case ' ': return 'space';
    case 'z': case 'Z': return 'z';
  }
  return e.code === 'Space' ? 'space' : null;
}

// watchKeys calls onChange with the held keys, in wire order, whenever
// they change. Keys are released when the page loses focus or is hidden,
// since their key-up events would go elsewhere.
export function watchKeys(onChange) {
  const held = new Set();
  const changed = () => onChange(KEYS.filter((k) => held.has(k)));
  const onKey = (e, down) => {
    const k = keyName(e);
    if (!k || e.ctrlKey || e.metaKey || e.altKey) return;
    e.preventDefault(); // arrows and space would scroll
    if (down === held.has(k)) return; // auto-repeat
    if (down) held.add(k); else held.delete(k);
    changed();
  };
  const releaseAll = () => {
    if (held.size === 0) return;
    held.clear();
    changed();
  };
  window.addEventListener('keydown', (e) => onKey(e, true));
  window.addEventListener('keyup', (e) => onKey(e, false));
  window.addEventListener('blur', releaseAll);
  document.addEventListener('visibilitychange', () => { if (document.hidden) releaseAll(); });
  return () => KEYS.filter((k) => held.has(k));
}
