// Boots the wasm app. No inline script anywhere, so the page runs under a strict CSP
// (script-src 'self' 'wasm-unsafe-eval'). Paths are relative so dist/ works from any sub-path:
// dist/index.html loads dist/www/main.js, which loads dist/pkg/.
//
// The glue is imported dynamically (not `import init, { mount } from ...`) so that a missing
// file or a missing export lands in the catch below and is shown on the page; a failing
// static import would kill this module before any of it runs, leaving a silent blank page.
const app = document.getElementById('app');

function showError(err) {
  console.error('fencing playground failed to start:', err);
  const box = document.createElement('pre');
  box.className = 'boot-error';
  box.setAttribute('role', 'alert');
  box.dataset.testid = 'boot-error';
  box.textContent = `The playground failed to start.\n\n${err && err.stack ? err.stack : String(err)}`;
  app.replaceChildren(box);
}

try {
  const { default: init, mount } = await import('../pkg/fencing_playground.js');
  if (typeof mount !== 'function') throw new Error('the wasm module does not export mount()');
  await init();
  document.getElementById('boot-loading')?.remove();
  mount(app, { share: true, autosave: true });
} catch (err) {
  showError(err);
}
