/**
 * Every visible string comes from locales/: this test parses every screen and fails on JSX text, on a
 * visible attribute (placeholder, title, alt, aria-label, label) or on a string literal rendered as a child.
 * Symbols and numbers (×, →, 1/2, %) are not words and pass.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname);
const visibleAttributes = new Set(['placeholder', 'title', 'alt', 'aria-label', 'label', 'aria-description']);
const hasWords = (text: string) => /\p{L}{2,}/u.test(text);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? files(join(dir, e.name))
      : e.name.endsWith('.tsx') && !e.name.endsWith('.test.tsx')
        ? [join(dir, e.name)]
        : [],
  );
}

function literalsIn(file: string, text = readFileSync(file, 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const where = (node: ts.Node) =>
    `${relative(root, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node) && hasWords(node.text.trim()))
      found.push(`${where(node)} text "${node.text.trim()}"`);
    if (ts.isJsxAttribute(node) && visibleAttributes.has(node.name.getText())) {
      const init = node.initializer;
      const literal =
        init && ts.isStringLiteral(init)
          ? init
          : init && ts.isJsxExpression(init) && init.expression && ts.isStringLiteralLike(init.expression)
            ? init.expression
            : undefined;
      if (literal && hasWords(literal.text))
        found.push(`${where(node)} ${node.name.getText()}="${literal.text}"`);
    }
    if (
      ts.isJsxExpression(node) &&
      node.expression &&
      ts.isStringLiteralLike(node.expression) &&
      ts.isJsxElement(node.parent) &&
      hasWords(node.expression.text)
    ) {
      found.push(`${where(node)} child "${node.expression.text}"`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('visible strings', () => {
  const screens = files(root);

  it('finds the screens to check', () => {
    expect(screens.length).toBeGreaterThan(10);
  });

  it('takes every visible string from the locales', () => {
    expect(screens.flatMap((file) => literalsIn(file))).toEqual([]);
  });

  it('would catch a literal', () => {
    const probe = `export const P = () => <div title="Hello there" aria-label={'Close'}>Pay now <b>{'Refund'}</b> × 2</div>;`;
    expect(literalsIn(join(root, 'probe.tsx'), probe)).toHaveLength(4);
  });
});
