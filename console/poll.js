/** Runs `load` now and every `ms` until the returned stop is called; errors shown in `errorEl`. */
export function poll(load, ms, errorEl) {
  let stopped = false;
  let timer;
  const tick = async () => {
    try {
      await load();
      errorEl.textContent = '';
    } catch (err) {
      errorEl.textContent = `Could not load: ${err.message}`;
    }
    if (!stopped) timer = setTimeout(tick, ms);
  };
  void tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
