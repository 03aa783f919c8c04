/**
 * Rooms, not halls (issue 27): no source file of contract/, commands/, src/, server/ or pay/ over 500
 * lines, no function over 150. Functions are measured with the TypeScript parser (declarations,
 * expressions, arrows, methods and accessors, each with everything nested in it). Tests, migrations and
 * data files are outside the rule. Today's offenders are listed below; the list may only shrink: an
 * offender that is no longer over its limit fails the test until it is struck off, so the list stays true.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const folders = ['contract', 'commands', 'src', 'server', 'pay'];
const maxFileLines = 500;
const maxFunctionLines = 150;

/**
 * Files over 500 lines today (`path`) and functions over 150 (`path › name`), with their lines when listed.
 * Only ever strike lines off.
 */
const offenders: readonly string[] = [
  'src/ui/Chart.tsx › ColumnChart', // 157
  'src/screens/channel/ChannelForm.tsx › ChannelForm', // 313
  'src/screens/dev/SignatureHelper.tsx › SignatureHelper', // 162
  'src/screens/merchant/MerchantForm.tsx › MerchantForm', // 429
  'src/screens/settlement/ApplyDialog.tsx › ApplyDialog', // 217
  'src/screens/statement/FeedDialog.tsx › FeedForm', // 205
  'server/demo/receiving.ts › openReceiving', // 287
  'server/demo/settlements.ts › scheduleSettlements', // 186
  'server/http/app.ts › createApp', // 250
  'server/modules/dashboard/routes.ts › dashboardSummary', // 199
  'server/modules/settlement/routes.ts › walletRoutes', // 205
  'server/modules/statement/formats/camt053.ts › read', // 192
];

interface Finding {
  /** `path` for a file, `path › name` for a function. */
  key: string;
  lines: number;
}

/** A readable name for a function: its own, the variable, property or method it is, or where it is passed. */
function nameOf(node: ts.Node, source: ts.SourceFile): string {
  const named = (n: ts.Node): string | undefined => {
    if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isAccessor(n)) && n.name) {
      return n.name.getText(source);
    }
    if (ts.isConstructorDeclaration(n)) return 'constructor';
    const parent = n.parent;
    if (
      ts.isVariableDeclaration(parent) ||
      ts.isPropertyAssignment(parent) ||
      ts.isPropertyDeclaration(parent)
    ) {
      return parent.name.getText(source);
    }
    return undefined;
  };
  const own = named(node);
  if (own) return own;
  // An inline handler (`app.post('/x', async (c) => …)`): named by the call it is passed to.
  const call = node.parent;
  if (ts.isCallExpression(call)) {
    const first = call.arguments[0];
    const what = first && ts.isStringLiteralLike(first) ? `(${JSON.stringify(first.text)})` : '()';
    return `${call.expression.getText(source)}${what}`;
  }
  const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  return `function at line ${line}`;
}

/** The functions of a file longer than the limit, each named with the functions it sits in. */
function longFunctions(path: string, text: string): Finding[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: Finding[] = [];
  const visit = (node: ts.Node, outer: string[]): void => {
    let inside = outer;
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const name = [...outer, nameOf(node, source)];
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > maxFunctionLines) found.push({ key: `${path} › ${name.join(' › ')}`, lines });
      inside = name;
    }
    ts.forEachChild(node, (child) => visit(child, inside));
  };
  visit(source, []);
  return found;
}

/** Everything over a limit in a file at `path` (relative to the root) with `text`. */
function oversizeOf(path: string, text: string): Finding[] {
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const file = lines > maxFileLines ? [{ key: path, lines }] : [];
  return [...file, ...longFunctions(path, text)];
}

function sourceFiles(): string[] {
  return folders.flatMap((folder) =>
    readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
      .map((f) => `${folder}/${f.split(sep).join('/')}`)
      .filter(
        (f) =>
          /\.(ts|tsx|mts)$/.test(f) &&
          !/\.test\.tsx?$/.test(f) &&
          !/(^|\/)(node_modules|test|migrations|samples)\//.test(f),
      ),
  );
}

describe('rooms, not halls', () => {
  const found = sourceFiles().flatMap((f) => oversizeOf(f, readFileSync(join(root, f), 'utf8')));
  const keys = new Set(found.map((f) => f.key));

  it('has no file over 500 lines nor function over 150 but the listed offenders', () => {
    const fresh = found.filter((f) => !offenders.includes(f.key)).map((f) => `${f.key} (${f.lines} lines)`);
    expect(fresh).toEqual([]);
  });

  it('lists only offenders still over their limit (strike off the ones that shrank)', () => {
    expect(offenders.filter((key) => !keys.has(key))).toEqual([]);
  });

  it('measures files, functions, arrows, methods and inline handlers, each with what it holds', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `    const a${i} = ${i};`).join('\n');
    const text = [
      `function hall() {\n  const room = () => {\n${body(149)}\n  };\n}`,
      `class Desk {\n  method() {\n${body(148)}\n  }\n}`,
      `app.post('/x', async (c) => {\n${body(149)}\n});`,
    ].join('\n');
    expect(oversizeOf('server/example.ts', text)).toEqual([
      { key: 'server/example.ts › hall', lines: 153 },
      { key: 'server/example.ts › hall › room', lines: 151 },
      { key: 'server/example.ts › app.post("/x")', lines: 151 },
    ]);
    expect(oversizeOf('server/long.ts', 'x\n'.repeat(500))).toEqual([]);
    expect(oversizeOf('server/long.ts', 'x\n'.repeat(501))).toEqual([{ key: 'server/long.ts', lines: 501 }]);
  });
});
