/**
 * Proof images (a pay-in's payment proof, a settlement's transfer receipt): checked by their bytes (not
 * their name), stored under DATA_DIR/uploads/<folder>/ (a pay-in's id, or `settlements`).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { Deps } from '../../deps.ts';

export const maxImageBytes = 2 * 1024 * 1024;
export const maxImagesPerOrder = 20;

export type ImageMime = 'image/png' | 'image/jpeg' | 'image/webp';

const extensions: Record<ImageMime, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
};

/** The format the first bytes say, or null. */
export function sniffImage(b: Buffer): ImageMime | null {
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP')
    return 'image/webp';
  return null;
}

/**
 * The image's bytes, or the locale key of what is wrong: not base64, too big, or not the declared type
 * (checked by magic bytes).
 */
export function decodeImage(
  mime: ImageMime,
  dataBase64: string,
): Buffer | 'validation.image' | 'validation.imageSize' {
  const text = dataBase64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return 'validation.image';
  // Decoded size from the text length, before decoding anything large.
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  if ((text.length / 4) * 3 - padding > maxImageBytes) return 'validation.imageSize';
  const bytes = Buffer.from(text, 'base64');
  if (sniffImage(bytes) !== mime) return 'validation.image';
  return bytes;
}

const uploadsDir = (deps: Pick<Deps, 'config'>) => resolve(deps.config.dataDir, 'uploads');

/** Writes the image into `folder` of the uploads folder; answers its path relative to the uploads folder. */
export async function storeImage(
  deps: Pick<Deps, 'config'>,
  folder: number | string,
  mime: ImageMime,
  bytes: Buffer,
): Promise<string> {
  const dir = join(uploadsDir(deps), String(folder));
  await mkdir(dir, { recursive: true });
  const name = `${randomBytes(12).toString('hex')}.${extensions[mime]}`;
  await writeFile(join(dir, name), bytes, { flag: 'wx', mode: 0o640 });
  return `${folder}/${name}`;
}

/** Resolves a stored path, refusing anything that would leave the uploads folder. */
function pathOf(deps: Pick<Deps, 'config'>, stored: string): string {
  const root = uploadsDir(deps);
  const full = resolve(root, stored);
  const rel = relative(root, full);
  if (rel.startsWith('..') || rel.includes(`..${sep}`) || resolve(root, rel) !== full) {
    throw new Error(`image path outside the uploads folder: ${stored}`);
  }
  return full;
}

export function readImage(deps: Pick<Deps, 'config'>, stored: string): Promise<Buffer> {
  return readFile(pathOf(deps, stored));
}

/** Removes an order's images folder (after the order is deleted). */
export async function removeOrderImages(deps: Pick<Deps, 'config'>, orderId: number): Promise<void> {
  await rm(join(uploadsDir(deps), String(orderId)), { recursive: true, force: true });
}
