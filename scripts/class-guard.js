// @ts-check
// Appended to the wasm-bindgen glue by scripts/build.sh and scripts/build-single.sh, then called
// with the exported classes by name, `{ LeaseLock, FencedAccount }` (by name because minifying
// may rename the classes inside the glue). A method called on a freed object, or
// re-entered from the object's own now() callback, would fail inside the wasm module, and a
// failure there unwinds past the module's stack bookkeeping: each one leaks a little of its
// shadow stack, and a few thousand of them kill the module for every object. So every method
// first checks, in JavaScript, that the object is live and not busy, and throws a plain Error
// naming the class and the method otherwise. A free() called while one of the object's own
// methods is running (from now()) takes effect when that method returns.
/**
 * @param {Record<string, Function & { prototype: object }>} classes wasm-bindgen's classes by name; their
 *   objects keep their pointer in `__wbg_ptr` (0 once freed).
 */
function fpGuardClasses(classes) {
  /** @type {WeakMap<object, string>} */
  const running = new WeakMap();
  /** @type {WeakSet<object>} */
  const freeing = new WeakSet();
  for (const [className, cls] of Object.entries(classes)) {
    const proto = /** @type {{ free(): void, [key: PropertyKey]: unknown }} */ (cls.prototype);
    const free = proto.free;
    /** @param {unknown} self */
    const live = (self) => self instanceof cls && !!(/** @type {{ __wbg_ptr?: number }} */ (self).__wbg_ptr);
    /** @param {object} self */
    const dead = (self) => !live(self) || freeing.has(self);
    for (const name of Object.getOwnPropertyNames(proto)) {
      const d = Object.getOwnPropertyDescriptor(proto, name);
      if (!d || name === 'constructor' || name === 'free' || typeof d.value !== 'function') continue;
      /** @type {Function} */
      const method = d.value;
      d.value = {
        /** @this {object} @param {unknown[]} args */
        [name](...args) {
          if (dead(this)) {
            throw new Error(`${className}.${name}: this ${className} was freed (or is not a ${className}); create a new one`);
          }
          const busy = running.get(this);
          if (busy) {
            throw new Error(`${className}.${name}: called while ${className}.${busy} is still running (from its now() callback)`);
          }
          running.set(this, name);
          try {
            return method.apply(this, args);
          } finally {
            running.delete(this);
            if (freeing.has(this)) {
              freeing.delete(this);
              free.call(this);
            }
          }
        },
      }[name];
      Object.defineProperty(proto, name, d);
    }
    const guardedFree = {
      /** @this {object} */
      free() {
        if (running.has(this)) freeing.add(this);
        else if (live(this)) free.call(this);
      },
    }.free;
    Object.defineProperty(proto, 'free', { ...Object.getOwnPropertyDescriptor(proto, 'free'), value: guardedFree });
    if (typeof Symbol.dispose === 'symbol' && typeof proto[Symbol.dispose] === 'function') {
      Object.defineProperty(proto, Symbol.dispose, { ...Object.getOwnPropertyDescriptor(proto, Symbol.dispose), value: guardedFree });
    }
  }
}
