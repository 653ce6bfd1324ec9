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
  // The way down to the last element found: `els[k]` is the element at `path[0..k]` (`els[0]`
  // the start), `known` how much of it holds. The writes come in document order, so most are a
  // step or two from the one before. (Plain locals, no closures: this runs on every frame.)
  /** @type {(Element | undefined)[]} */
  const els = [root];
  /** @type {number[]} */
  const path = [];
  let known = 0;
  let i = 0;
  // Where the next string starts in `text`: `text.slice(o, (o += n))` takes the next n units.
  let o = 0;
  while (i < ops.length) {
    const code = ops[i++];
    if (code === 0) {
      els[0] = root.children[ops[i++]];
      known = 0;
      continue;
    }
    // Every other write starts with its element's path.
    const depth = ops[i++];
    let c = 0;
    while (c < depth && c < known && path[c] === ops[i + c]) c++;
    for (; c < depth; c++) {
      const up = els[c];
      path[c] = ops[i + c];
      els[c + 1] = up ? up.children[path[c]] : undefined;
    }
    known = depth;
    i += depth;
    const e = els[depth];
    switch (code) {
      case 1: {
        const name = text.slice(o, (o += ops[i++]));
        const value = text.slice(o, (o += ops[i++]));
        if (e) e.setAttribute(name, value);
        break;
      }
      case 2: {
        const name = text.slice(o, (o += ops[i++]));
        if (e) e.removeAttribute(name);
        break;
      }
      case 3: {
        const t = text.slice(o, (o += ops[i++]));
        // A leaf that holds one text node keeps it and changes its data: cheaper than
        // `textContent`, which takes the node out and puts a new one in.
        const only = e && t !== '' ? e.firstChild : null;
        if (only && only === e?.lastChild && only.nodeType === 3) /** @type {Text} */ (only).data = t;
        else if (e) e.textContent = t;
        break;
      }
      case 4: {
        const n = ops[i++];
        if (e) fpOrder(e, ops.subarray(i, i + n));
        i += n;
        break;
      }
      case 5: {
        const markup = text.slice(o, (o += ops[i++]));
        if (e) e.innerHTML = markup;
        break;
      }
      case 6: {
        const at = ops[i++];
        const remove = ops[i++];
        const markup = text.slice(o, (o += ops[i++]));
        if (e) {
          const kids = e.children;
          for (let r = 0; r < remove; r++) kids[at]?.remove();
          if (markup) {
            const next = kids[at];
            if (next) next.insertAdjacentHTML('beforebegin', markup);
            else e.insertAdjacentHTML('beforeend', markup);
          }
        }
        break;
      }
      case 7: {
        const markup = text.slice(o, (o += ops[i++]));
        if (e) e.outerHTML = markup;
        break;
      }
      default:
        throw new Error(`fpPatch: write code ${code} is not known`);
    }
    // A write of children or of the element itself: what was found below it is gone.
    if (code >= 4) known = Math.max(depth - 1, 0);
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
