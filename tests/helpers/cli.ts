import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect } from 'vitest';
import { TEST_DIST } from './buildOnce.js';

export const HXDESK_BIN = path.resolve(import.meta.dirname, '..', '..', 'bin', 'hxdesk.js');

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `hxdesk <args>` (bin/hxdesk.js, the installed command) as a process, with `stdin` piped in. */
export function runCli(
  args: string[],
  env: Record<string, string>,
  stdin?: string,
  timeoutMs = 60_000,
): Promise<CliRun> {
  const child = spawn(process.execPath, [HXDESK_BIN, ...args], {
    cwd: path.resolve(import.meta.dirname, '..', '..'),
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      ...process.env,
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      PORT: '0',
      HXDESK_CLI_FROM: path.join(TEST_DIST, 'cli.js'),
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdin.on('error', () => {
    /* the command may exit before reading */
  });
  child.stdin.end(stdin ?? '');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`hxdesk ${args.join(' ')} did not exit; output:\n${stdout}${stderr}`));
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A failed run: the exit status, and one line on stderr with no stack trace. */
export function expectFailure(run: CliRun, code: number, message: RegExp): void {
  expect(run.code, `stdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(code);
  expect(run.stderr).toMatch(/^hxdesk: [^\n]+\n$/);
  expect(run.stderr).toMatch(message);
  expect(run.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
}

/** A run that worked. */
export function expectSuccess(run: CliRun): void {
  expect(run.code, `stdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
}
