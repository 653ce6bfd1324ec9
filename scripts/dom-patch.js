// @ts-check
// Appended to the wasm-bindgen glue of the page and of the first stage by scripts/build.sh and
// scripts/build-single.sh (the wasm imports `fpPatch` by that name; the wasm tests install it
// from this file too). It makes one frame's writes to the DOM, which the lane renderer's patcher
// sends in a single call: the encoding is described in src/ui/lanes/render/batch.rs. A write
// whose element is not there is skipped, as the patcher in Rust did.
/**
 * @param {Element} root where the paths start (the lanes' `<g>`, or a drawing's own element)
 * @param {Uint32Array} codes the writes, as numbers
 * @param {string} text every string the writes hold, one after another
 */
function fpPatch(root, codes, text) {
  // A copy: a write can run event handlers (a focus moved), and wasm code they run may grow the
  // memory under the view the glue passed.
  const ops = codes.slice();
  /** @type {(Element | undefined)[]} the element at each prefix of `path`; `els[0]` is the start */
  let els = [root];
  /** @type {number[]} */
  let path = [];
  let i = 0;
  let o = 0;
  let depth = 0;
  const str = () => {
    const n = ops[i++];
    o += n;
    return text.slice(o - n, o);
  };
  // The element at the path that follows, walking from the last one found: the writes come in
  // document order, so most are a step or two from the one before.
  const at = () => {
    depth = ops[i++];
    let c = 0;
    while (c < depth && c < path.length && path[c] === ops[i + c]) c++;
    path.length = c;
    els.length = c + 1;
    for (; c < depth; c++) {
      const k = ops[i + c];
      const up = els[c];
      path.push(k);
      els.push(up ? up.children[k] : undefined);
    }
    i += depth;
    return els[depth];
  };
  // The element at the last path was written again: what was found below it is gone.
  const forget = () => {
    path.length = Math.max(depth - 1, 0);
    els.length = path.length + 1;
  };
  while (i < ops.length) {
    const code = ops[i++];
    switch (code) {
      case 0: {
        els = [root.children[ops[i++]]];
        path = [];
        break;
      }
      case 1: {
        const e = at();
        const name = str();
        const value = str();
        if (e) e.setAttribute(name, value);
        break;
      }
      case 2: {
        const e = at();
        const name = str();
        if (e) e.removeAttribute(name);
        break;
      }
      case 3: {
        const e = at();
        const t = str();
        if (e) e.textContent = t;
        break;
      }
      case 4: {
        const e = at();
        const n = ops[i++];
        const from = ops.subarray(i, i + n);
        i += n;
        if (e) fpOrder(e, from);
        forget();
        break;
      }
      case 5: {
        const e = at();
        const markup = str();
        if (e) e.innerHTML = markup;
        forget();
        break;
      }
      case 6: {
        const e = at();
        const from = ops[i++];
        const remove = ops[i++];
        const markup = str();
        if (e) {
          const kids = e.children;
          for (let r = 0; r < remove; r++) kids[from]?.remove();
          if (markup) {
            const next = kids[from];
            if (next) next.insertAdjacentHTML('beforebegin', markup);
            else e.insertAdjacentHTML('beforeend', markup);
          }
        }
        forget();
        break;
      }
      case 7: {
        const e = at();
        const markup = str();
        if (e) e.outerHTML = markup;
        forget();
        break;
      }
      default:
        throw new Error(`fpPatch: write code ${code} is not known`);
    }
  }
}

/**
 * Puts `e`'s children in the order `from` gives (the child now at k is the one that was at
 * from[k]), from the last one back, moving only those not already before the one that must
 * follow them: an element that stays keeps its place and its focus.
 * @param {Element} e
 * @param {Uint32Array} from
 */
function fpOrder(e, from) {
  const old = Array.from(e.children);
  /** @type {Element | null} */
  let follower = null;
  for (let k = from.length - 1; k >= 0; k--) {
    const w = old[from[k]];
    if (!w) continue;
    if (w.nextElementSibling !== follower) e.insertBefore(w, follower);
    follower = w;
  }
}
