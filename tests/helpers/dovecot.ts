import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './net.js';
import { killGroup } from './process.js';
import { waitUntil } from './wait.js';

export interface Dovecot {
  host: string;
  port: number;
  user: string;
  password: string;
  /** imap://user:password@127.0.0.1:port/INBOX */
  url(mailbox?: string): string;
  /** The Maildir root of the user (Maildir++: INBOX is `cur/`+`new/`, other folders `.Name/`). */
  maildir: string;
  /** Stops the Dovecot process (clients are disconnected) but keeps its port, config and mail. */
  halt(): Promise<void>;
  /** Starts Dovecot again after halt(): same port, same config, same mail (UIDs and UIDVALIDITY kept). */
  resume(): Promise<void>;
  /**
   * Kills every Dovecot process at once (SIGKILL to its process group), as a crash or a cut
   * network would: clients see their connections drop. The kill happens synchronously, before
   * this returns; the promise settles when the master has exited. resume() starts it again.
   */
  crash(): Promise<void>;
  /** halt() then resume(). */
  restart(): Promise<void>;
  /** Stops Dovecot and removes its temp dir. */
  stop(): Promise<void>;
}

async function waitForPort(port: number, proc: ChildProcess, timeoutMs = 10_000): Promise<void> {
  await waitUntil(
    `dovecot to listen on ${port}`,
    async () => {
      if (proc.exitCode !== null) throw new Error(`dovecot exited with ${proc.exitCode}`);
      return await new Promise<boolean>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => {
          s.end();
          resolve(true);
        });
        s.on('error', () => resolve(false));
      });
    },
    (ok) => ok,
    { timeoutMs, intervalMs: 50 },
  );
}

/**
 * A real Dovecot IMAP server on 127.0.0.1, standalone from a config in a temp dir (Debian's
 * dovecot-imapd; see ../shared/STACK.md). One user with a Maildir; plaintext auth, no TLS.
 */
export async function startDovecot(): Promise<Dovecot> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-dovecot-'));
  fs.chmodSync(dir, 0o755);
  const mail = path.join(dir, 'mail');
  fs.mkdirSync(mail);
  fs.chownSync(mail, 65534, 65534);
  const port = await freePort();
  const user = 'support';
  const password = 'support-secret';
  fs.writeFileSync(path.join(dir, 'users'), `${user}:{PLAIN}${password}:65534:65534::${mail}\n`);
  const conf = path.join(dir, 'dovecot.conf');
  fs.writeFileSync(
    conf,
    [
      `base_dir = ${dir}/run`,
      `state_dir = ${dir}/state`,
      'protocols = imap',
      'listen = 127.0.0.1',
      'ssl = no',
      'disable_plaintext_auth = no',
      'auth_mechanisms = plain login',
      'mail_location = maildir:~/Maildir',
      `log_path = ${dir}/dovecot.log`,
      `info_log_path = ${dir}/dovecot.log`,
      'default_login_user = nobody',
      'default_internal_user = nobody',
      'default_internal_group = nogroup',
      'first_valid_uid = 65534',
      `passdb {\n  driver = passwd-file\n  args = scheme=PLAIN username_format=%u ${dir}/users\n}`,
      `userdb {\n  driver = passwd-file\n  args = username_format=%u ${dir}/users\n}`,
      `service imap-login {\n  inet_listener imap {\n    address = 127.0.0.1\n    port = ${port}\n  }\n  inet_listener imaps {\n    port = 0\n  }\n}`,
      'namespace inbox {\n  inbox = yes\n  mailbox Archive {\n    auto = create\n  }\n}',
      '',
    ].join('\n'),
  );
  let proc: ChildProcess | null = null;
  async function launch() {
    // Its own process group: halt() ends the imap processes too, which outlive the master otherwise.
    const p = spawn('dovecot', ['-c', conf, '-F'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    proc = p;
    let output = '';
    p.stdout!.on('data', (d) => {
      output += d;
    });
    p.stderr!.on('data', (d) => {
      output += d;
    });
    try {
      await waitForPort(port, p);
    } catch (e) {
      killGroup(p, 'SIGKILL');
      const log = fs.existsSync(`${dir}/dovecot.log`) ? fs.readFileSync(`${dir}/dovecot.log`, 'utf8') : '';
      throw new Error(`${(e as Error).message}\n${output}\n${log}`);
    }
  }
  async function halt() {
    const p = proc;
    proc = null;
    if (!p) return;
    if (p.exitCode === null && p.signalCode === null) {
      const exited = new Promise((r) => p.once('exit', r));
      killGroup(p, 'SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (p.exitCode === null && p.signalCode === null) {
        killGroup(p, 'SIGKILL');
        await exited;
      }
    }
    killGroup(p, 'SIGKILL'); // any imap process still serving a client: connections drop now
  }
  function crash(): Promise<void> {
    const p = proc;
    proc = null;
    if (!p) return Promise.resolve();
    const running = p.exitCode === null && p.signalCode === null;
    const exited = new Promise<void>((r) => {
      if (running) p.once('exit', () => r());
      else r();
    });
    killGroup(p, 'SIGKILL');
    return exited;
  }
  await launch();
  return {
    host: '127.0.0.1',
    port,
    user,
    password,
    maildir: path.join(mail, 'Maildir'),
    url: (mailbox = 'INBOX') => `imap://${user}:${password}@127.0.0.1:${port}/${mailbox}`,
    halt,
    crash,
    async resume() {
      if (proc) throw new Error('dovecot is already running');
      await launch();
    },
    async restart() {
      await halt();
      await launch();
    },
    async stop() {
      await halt();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
