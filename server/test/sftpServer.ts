/**
 * A real OpenSSH SFTP server for the bank-feed tests: Debian's `sshd` on 127.0.0.1 and a free port, its
 * own host key, one authorised client key, keys only, `internal-sftp`. The tests' files go in `folder`.
 * `.ci/run` installs `openssh-server`, so CI never skips; without `/usr/sbin/sshd` the tests skip.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export const sshdPath = '/usr/sbin/sshd';
export const hasSshd = existsSync(sshdPath) && existsSync('/usr/bin/ssh-keygen');

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** OpenSSH's fingerprint of a `.pub` file: `SHA256:` and the key blob's digest, base64 without padding. */
export function fingerprintOfPub(pub: string): string {
  const blob = Buffer.from(pub.trim().split(/\s+/)[1]!, 'base64');
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

function keyPair(path: string): { privateKey: string; publicKey: string } {
  execFileSync('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'paygate-test', '-f', path]);
  return { privateKey: readFileSync(path, 'utf8'), publicKey: readFileSync(`${path}.pub`, 'utf8') };
}

/** Resolves once the port answers with an SSH banner, or fails after `ms`. */
async function answering(port: number, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.setTimeout(1000);
      socket.once('data', (d) => {
        socket.destroy();
        resolve(d.toString().startsWith('SSH-'));
      });
      socket.once('error', () => resolve(false));
      socket.once('timeout', () => {
        socket.destroy();
        resolve(false);
      });
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`sshd did not answer on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface SftpServer {
  host: string;
  port: number;
  username: string;
  /** The authorised client key (OpenSSH text). */
  clientKey: string;
  /** The server's host key fingerprint as OpenSSH prints it. */
  fingerprint: string;
  /** The folder the feed reads (absolute). */
  folder: string;
  /** Writes a file into the folder (optionally with a modification time, seconds). */
  drop(name: string, content: string | Buffer): void;
  /** Stops sshd (the port then refuses connections). */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same keys. */
  start(): Promise<void>;
  /** Stops it and removes its files. */
  close(): Promise<void>;
}

export async function startSftpServer(): Promise<SftpServer> {
  const dir = mkdtempSync(join(tmpdir(), 'paygate-sftp-'));
  const folder = join(dir, 'outbox');
  mkdirSync(folder);
  const host = keyPair(join(dir, 'host_ed25519'));
  const client = keyPair(join(dir, 'client_ed25519'));
  writeFileSync(join(dir, 'authorized_keys'), client.publicKey, { mode: 0o600 });
  const root = process.getuid?.() === 0;
  // sshd's privilege separation needs its empty directory when it runs as root.
  if (root) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `ListenAddress 127.0.0.1`,
      `Port ${port}`,
      `HostKey ${join(dir, 'host_ed25519')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      `PermitRootLogin ${root ? 'prohibit-password' : 'no'}`,
      'StrictModes no',
      'UsePAM no',
      'Subsystem sftp internal-sftp',
      'LogLevel ERROR',
      '',
    ].join('\n'),
  );
  let child: ChildProcess | null = null;
  const server: SftpServer = {
    host: '127.0.0.1',
    port,
    username: userInfo().username,
    clientKey: client.privateKey,
    fingerprint: fingerprintOfPub(host.publicKey),
    folder,
    drop(name, content) {
      writeFileSync(join(folder, name), content);
    },
    async start() {
      if (child) return;
      const proc = spawn(sshdPath, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      proc.stderr?.on('data', (d) => {
        stderr += d;
      });
      child = proc;
      try {
        await answering(port);
      } catch (err) {
        proc.kill('SIGKILL');
        child = null;
        throw new Error(`${(err as Error).message}: ${stderr}`);
      }
    },
    async stop() {
      const proc = child;
      if (!proc) return;
      child = null;
      const gone = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill('SIGTERM');
      await gone;
    },
    async close() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}
