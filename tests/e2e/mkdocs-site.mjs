// A real MkDocs Material site built around the snippets of docs/embedding.md, for
// tests/e2e/mkdocs.test.mjs: `mkdocs build` (from the virtual environment scripts/setup.sh
// makes) with the palette toggle, default directory URLs (docs/guide/leases.md is served at
// /guide/leases/), the release folder copied into docs/ as the docs say, and no web fonts (the
// tests' pages may not leave 127.0.0.1; Material's fonts come from another origin).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DIST } from './helpers.mjs';

const DOCS = readFileSync(new URL('../../docs/embedding.md', import.meta.url), 'utf8');
const VENV = process.env.FP_MKDOCS_VENV ?? join(homedir(), '.cache/fencing-playground/mkdocs');
export const MKDOCS = join(VENV, 'bin/mkdocs');

/** The block marked `<!-- snippet: name -->` in docs/embedding.md, in the language `lang`. */
export function snippet(name, lang = 'html') {
  const m = new RegExp(`<!-- snippet: ${name} -->\\n\`\`\`${lang}\\n([\\s\\S]*?)\\n\`\`\``).exec(DOCS);
  assert.ok(m, `docs/embedding.md has no ${lang} block marked <!-- snippet: ${name} -->`);
  return m[1];
}

/** Fails with what to do when MkDocs is not installed where scripts/setup.sh puts it. */
export function requireMkdocs() {
  try {
    accessSync(MKDOCS, constants.X_OK);
  } catch {
    throw new Error(`MkDocs Material is not installed (no ${MKDOCS}): run bash scripts/setup.sh, which installs it there (or set FP_MKDOCS_VENV to a virtual environment that has mkdocs-material)`);
  }
}

const CONFIG = `site_name: Leases and fences
theme:
  name: material
  font: false
  palette:
    - scheme: default
      toggle:
        icon: material/brightness-7
        name: Switch to dark mode
    - scheme: slate
      toggle:
        icon: material/brightness-4
        name: Switch to light mode
`;

/** A page: a heading, a paragraph, the embed code, and enough text after it to fill a screen. */
const page = (title, code) => `# ${title}

A lease expires on its own; a paused holder does not know it did.

${code}

${Array.from({ length: 12 }, (_, i) => `Paragraph ${i + 1} after the playground: the text a reader goes on with.`).join('\n\n')}
`;

/**
 * Builds a site and returns its folder. `config` is added to mkdocs.yml; `pages` maps a path
 * under docs/ to the embed code put on that page.
 * @param {{ config?: string, pages: Record<string, string> }} site
 */
export async function buildSite({ config = '', pages }) {
  requireMkdocs();
  const dir = await mkdtemp(join(tmpdir(), 'fp-mkdocs-'));
  const docs = join(dir, 'docs');
  for (const part of ['www', 'pkg']) await cp(join(DIST, part), join(docs, 'fencing-playground', part), { recursive: true });
  const nav = Object.keys(pages).map((p) => `  - ${p}`).join('\n');
  await writeFile(join(dir, 'mkdocs.yml'), `${CONFIG}${config}\nnav:\n${nav}\n`);
  for (const [path, code] of Object.entries(pages)) {
    const file = join(docs, path);
    await mkdir(join(file, '..'), { recursive: true });
    await writeFile(file, page(path.replace(/\.md$/, ''), code));
  }
  try {
    await promisify(execFile)(MKDOCS, ['build', '--strict', '--quiet', '--site-dir', join(dir, 'site')], {
      cwd: dir,
      env: { ...process.env, NO_MKDOCS_2_WARNING: '1' },
    });
  } catch (err) {
    throw new Error(`mkdocs build failed: ${err.stderr || err.message}`);
  }
  return { dir, site: join(dir, 'site'), remove: () => rm(dir, { recursive: true, force: true }) };
}
