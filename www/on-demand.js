// @ts-check
// "Find a failure" on demand, for the page (www/main.js) and the embed (www/embed.js): an object
// with the finder's methods that loads www/finder.js (and with it the search wasm and the
// workers) only when it is first used, when the reader opens the panel or presses Search, and
// then forwards each call to it. It is a module of its own, and not part of finder.js, so that
// the page can hold it from the start without fetching any of the search.

/** @typedef {import('../pkg/fencing_playground.js').Finder} Finder */

/** The served finder: www/finder.js with the worker, glue and wasm beside this module. */
async function servedFinder() {
  const { createFinder } = await import('./finder.js');
  /** @param {string} path */
  const at = (path) => new URL(path, import.meta.url).href;
  return createFinder({ worker: at('./search-worker.js'), glue: at('../pkg-search/search.js'), wasm: at('../pkg-search/search_bg.wasm') });
}

/**
 * A finder that loads itself on first use. A load that fails is reported to the search that
 * asked for it (its `error` event), and the next use tries again.
 * @param {() => Promise<Finder>} [load]
 * @returns {Finder}
 */
export function lazyFinder(load = servedFinder) {
  /** @type {Promise<Finder> | undefined} */
  let made;
  const finder = () => (made ??= load().catch((err) => {
    made = undefined;
    throw err;
  }));
  return {
    prepare() {
      // Only a head start: the search that follows loads it again and reports the failure.
      finder().then(
        (f) => f.prepare(),
        (err) => console.warn('fencing playground: the search did not load ahead of time', err),
      );
    },
    search(scenario, spec, onEvent) {
      /** @type {{ cancel(): void } | undefined} */
      let running;
      let cancelled = false;
      finder().then(
        (f) => {
          if (!cancelled) running = f.search(scenario, spec, onEvent);
          else onEvent({ type: 'cancelled' });
        },
        (err) => onEvent({ type: 'error', message: `the search did not load: ${err instanceof Error ? err.message : err}` }),
      );
      return {
        cancel() {
          cancelled = true;
          running?.cancel();
        },
      };
    },
  };
}
