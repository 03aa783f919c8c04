/**
 * The layers import in one direction (docs/ARCHITECTURE.md): `contract/` stands alone; `commands/`
 * builds on it and reaches the console only through lazy loaders (`() => import('../src/…')`), so the
 * registry stays free of console state, which the shell hands in through the run context; `src/` (the
 * console) never pulls server code; `server/` never pulls the console or its registry. Imports are read
 * with the TypeScript parser. Tests are outside the rule: they check that layers agree, so they may reach
 * across (the contract test mounts the server's routes). bench/, scripts/, e2e/ and root configs too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

type Layer = 'contract' | 'commands' | 'src' | 'server';
/** Where an import leads: a layer's folder, another top-level folder or file, or an npm package. */
type Target = string;

/** What each layer may import statically (`npm`: packages and node built-ins), and lazily besides. */
const allowed: Record<Layer, { static: readonly Target[]; lazy: readonly Target[] }> = {
  contract: { static: ['contract', 'npm'], lazy: [] },
  commands: { static: ['commands', 'contract', 'npm'], lazy: ['src'] },
  src: { static: ['src', 'commands', 'contract', 'locales', 'npm'], lazy: [] },
  server: { static: ['server', 'contract', 'locales', 'npm'], lazy: [] },
};
const layers = Object.keys(allowed) as Layer[];

interface Import {
  specifier: string;
  line: number;
  /** `import()` as an expression; `import type`, `typeof import()` and re-exports count as static. */
  lazy: boolean;
}

/** Every module a file names: import and export declarations, `import()` calls and import types. */
function importsOf(fileName: string, text: string): Import[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TSX);
  const found: Import[] = [];
  const add = (node: ts.Node, specifier: ts.Node | undefined, lazy: boolean) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    // A computed `import(name)` cannot be checked, so it counts as a violation of every layer.
    found.push({
      specifier: specifier && ts.isStringLiteralLike(specifier) ? specifier.text : '?',
      line,
      lazy,
    });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      if (node.moduleSpecifier) add(node, node.moduleSpecifier, false);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node, node.moduleReference.expression, false);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node, node.arguments[0], true);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node, node.argument.literal, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The top-level folder (or root file) a relative specifier leads to; `npm` for a package. */
function targetOf(fromFile: string, specifier: string): Target {
  if (specifier === '?') return '?';
  if (!specifier.startsWith('.') && !specifier.startsWith('/')) return 'npm';
  const path = relative(root, resolve(dirname(join(root, fromFile)), specifier.replace(/\?.*$/, '')));
  return path.startsWith('..') ? '..' : (path.split(sep)[0] ?? path);
}

/** Violations of a file at `path` (relative to the root) with `text`, as readable lines. */
function violationsOf(path: string, text: string): string[] {
  const layer = layers.find((l) => path.startsWith(`${l}/`));
  if (!layer || /\.test\.tsx?$/.test(path)) return [];
  const rule = allowed[layer];
  return importsOf(path, text).flatMap(({ specifier, line, lazy }) => {
    const target = targetOf(path, specifier);
    const ok = rule.static.includes(target) || (lazy && rule.lazy.includes(target));
    return ok ? [] : [`${path}:${line} imports '${specifier}' (${layer} → ${target}${lazy ? ', lazy' : ''})`];
  });
}

function sourceFiles(): string[] {
  return layers.flatMap((layer) =>
    readdirSync(join(root, layer), { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.(ts|tsx|mts)$/.test(f) && !f.split(sep).includes('node_modules'))
      .map((f) => `${layer}/${f.split(sep).join('/')}`),
  );
}

describe('import direction', () => {
  it('holds for every file of contract/, commands/, src/ and server/', () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(100);
    const violations = files.flatMap((f) => violationsOf(f, readFileSync(join(root, f), 'utf8')));
    expect(violations).toEqual([]);
  });

  it('tells a lazy screen loader from a static import, and counts type imports as static', () => {
    const text = [
      "import { endpoints } from '../contract/index.ts';",
      "import type { Row } from '../src/ui/DataTable.tsx';",
      "export { t } from '../src/lib/i18n.ts';",
      "const screen = () => import('../src/screens/order/OrderScreen.tsx');",
      "type Api = typeof import('../server/routes.ts');",
      'const anything = (name: string) => import(name);',
    ].join('\n');
    expect(violationsOf('commands/example.ts', text)).toEqual([
      "commands/example.ts:2 imports '../src/ui/DataTable.tsx' (commands → src)",
      "commands/example.ts:3 imports '../src/lib/i18n.ts' (commands → src)",
      "commands/example.ts:5 imports '../server/routes.ts' (commands → server)",
      "commands/example.ts:6 imports '?' (commands → ?, lazy)",
    ]);
    expect(violationsOf('server/example.ts', "const s = () => import('../src/App.tsx');")).toEqual([
      "server/example.ts:1 imports '../src/App.tsx' (server → src, lazy)",
    ]);
    expect(violationsOf('contract/example.ts', "import en from '../locales/en.json';")).toEqual([
      "contract/example.ts:1 imports '../locales/en.json' (contract → locales)",
    ]);
    expect(violationsOf('contract/example.test.ts', "import { routes } from '../server/routes.ts';")).toEqual(
      [],
    );
  });
});
