/**
 * The signature helper of the development settings: the canonical string and HMAC-SHA256 signature of a
 * gateway request exactly as GATEWAY.md defines them. The canonical string comes from the contract the
 * server verifies with; the HMAC is @noble/hashes, which runs where Web Crypto does not (plain-HTTP
 * consoles on a LAN address are not a secure context).
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { canonicalString, signing } from '../../../contract/gateway.ts';

export interface SampleRequest {
  method: 'GET' | 'POST';
  /** Path and query as typed; it is signed the way the server reads it (`pathname + search`). */
  pathWithQuery: string;
  /** The raw body, byte for byte; ignored for GET (signed as empty). */
  body: string;
  timestamp: string;
  nonce: string;
}

/** Lowercase hex HMAC-SHA256 of `message` under `secret` (both UTF-8). */
export function hmacSha256Hex(secret: string, message: string): string {
  return bytesToHex(hmac(sha256, utf8ToBytes(secret), utf8ToBytes(message)));
}

/** The path and query as the server's URL parser hands them to the signature check. */
export function sentPath(pathWithQuery: string): string {
  try {
    const url = new URL(pathWithQuery, 'http://gateway.invalid');
    return url.pathname + url.search;
  } catch {
    return pathWithQuery;
  }
}

export interface SignedSample {
  canonical: string;
  signature: string;
  /** The path that is signed and must be sent (differs from the input when the URL parser encodes it). */
  path: string;
  rawBody: string;
}

export function signSample(request: SampleRequest, secret: string): SignedSample {
  const path = sentPath(request.pathWithQuery);
  const rawBody = request.method === 'GET' ? '' : request.body;
  const canonical = canonicalString(request.timestamp, request.nonce, request.method, path, rawBody);
  return { canonical, signature: hmacSha256Hex(secret, canonical), path, rawBody };
}

/** What the server would refuse before comparing signatures: message keys of `screens.dev.sign.problems`. */
export function sampleProblems(request: SampleRequest, nowSeconds: number): string[] {
  const out: string[] = [];
  if (!/^\d{1,12}$/.test(request.timestamp)) out.push('timestamp');
  else if (Math.abs(nowSeconds - Number(request.timestamp)) > signing.windowSeconds) out.push('window');
  if (!signing.nonce.test(request.nonce)) out.push('nonce');
  if (!sentPath(request.pathWithQuery).startsWith('/gateway/v1/')) out.push('path');
  if (request.method === 'POST' && request.body.trim() !== '') {
    try {
      JSON.parse(request.body);
    } catch {
      out.push('json');
    }
  }
  return out;
}

const nonceAlphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';

/** A fresh nonce of 24 characters the server accepts (crypto.getRandomValues works without HTTPS). */
export function newNonce(length = 24): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  // 64 symbols: every byte maps evenly onto the alphabet.
  return Array.from(bytes, (b) => nonceAlphabet[b % 64]).join('');
}

/** A shell command that sends the signed sample, quoted for POSIX shells. */
export function curlCommand(
  origin: string,
  merchantCode: string,
  request: SampleRequest,
  signed: SignedSample,
): string {
  const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  const lines = [
    `curl -X ${request.method} ${q(origin + signed.path)}`,
    ...(request.method === 'POST' ? [`-H ${q('Content-Type: application/json')}`] : []),
    `-H ${q(`X-Merchant-Id: ${merchantCode}`)}`,
    `-H ${q(`X-Timestamp: ${request.timestamp}`)}`,
    `-H ${q(`X-Nonce: ${request.nonce}`)}`,
    `-H ${q(`X-Signature: ${signed.signature}`)}`,
    ...(request.method === 'POST' ? [`--data-raw ${q(signed.rawBody)}`] : []),
  ];
  return lines.join(' \\\n  ');
}
