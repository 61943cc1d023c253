import { spawn } from 'node:child_process';
import path from 'node:path';

/** The installed command (package.json "bin"): what an MTA runs. */
export const MAILGATE_BIN = path.resolve(import.meta.dirname, '..', '..', 'bin', 'hxdesk-mailgate.js');

export interface MailgateRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** A write error on the command's stdin (EPIPE: it exited without reading the whole message). */
  stdinError: Error | null;
}

/**
 * Runs `hxdesk-mailgate` as a real process, the way an MTA does: `message` piped into its stdin
 * as bytes, a clean environment (only PATH plus `env`: nothing of the test machine leaks in).
 */
export function runMailgate(
  args: string[],
  message: string | Buffer,
  env: Record<string, string> = {},
): Promise<MailgateRun> {
  const child = spawn(process.execPath, [MAILGATE_BIN, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
  });
  let stdout = '';
  let stderr = '';
  let stdinError: Error | null = null;
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  child.stdin.on('error', (e) => {
    stdinError = e;
  });
  child.stdin.end(message);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, stdinError }));
  });
}

let seq = 0;
/** A small, well-formed message with a fresh Message-ID, LF line ends (as MTAs pipe it). */
export function message(
  opts: { from?: string; to?: string; subject?: string; body?: string; headers?: Record<string, string> } = {},
): { raw: string; messageId: string; subject: string } {
  const messageId = `<mailgate.${++seq}.${process.pid}.${Date.now().toString(36)}@customer.test>`;
  const subject = opts.subject ?? `Printer on floor ${seq} ${Date.now().toString(36)}`;
  const extra = Object.entries(opts.headers ?? {})
    .map(([k, v]) => `${k}: ${v}\n`)
    .join('');
  const raw =
    `From: ${opts.from ?? 'Ann Example <ann@customer.test>'}\nTo: ${opts.to ?? 'support@helpdesk.test'}\nSubject: ${subject}\n` +
    `Message-ID: ${messageId}\nDate: Mon, 23 Nov 2026 10:00:00 +0000\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n${extra}\n` +
    `${opts.body ?? 'It is on the floor again.\nAnn\n'}`;
  return { raw, messageId, subject };
}
