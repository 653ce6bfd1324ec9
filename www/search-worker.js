// @ts-check
// One "Find a failure" worker of the served page (see www/finder.js): a module worker from
// the page's own origin, so the CSP's `script-src 'self'` allows it. It loads the search
// package (dist/pkg-search/, built by scripts/build.sh) and answers the finder's messages with
// the same handler the main thread would use; the compiled wasm module is posted in.
import init, { SearchPlan } from '../pkg-search/search.js';
import { makeHandler } from './finder.js';

const handle = makeHandler(
  { init: (wasm) => init({ module_or_path: wasm }), SearchPlan },
  (reply) => postMessage(reply),
);
onmessage = (e) => handle(e.data);
