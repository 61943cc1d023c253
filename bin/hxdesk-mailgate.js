#!/usr/bin/env node
// @ts-check
// hxdesk-mailgate: an MTA's hand-off to hxdesk. Reads ONE message on stdin, streams it raw to
// POST <url>/mailgate and answers the MTA in sysexits(3) terms (docs/decisions/015):
//   0  EX_OK        hxdesk has the message (created, appended, duplicate, or logged)
//   65 EX_DATAERR   hxdesk refused the message itself (413 too large, 422 malformed): the MTA
//                   bounces it to its sender with the reason this prints on stderr
//   75 EX_TEMPFAIL  anything else (hxdesk down or slow, 5xx, 429, a wrong token or URL, a bad
//                   option): the MTA keeps the message and tries again later
// Dependency-free plain JavaScript on purpose: it runs from a fresh clone with no build step.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { parseArgs } from 'node:util';

const EX_OK = 0;
const EX_DATAERR = 65;
const EX_TEMPFAIL = 75;

const USAGE = `Usage: hxdesk-mailgate [--url URL] [--token-file PATH] [--queue QUEUE] [--action correspond|comment] [--timeout SECONDS] < message

Reads one e-mail message on stdin and posts it to hxdesk's /mailgate.
  --url URL          hxdesk's address (default: $HXDESK_URL, else http://127.0.0.1:3000)
  --token-file PATH  file holding MAILGATE_TOKEN (default: the MAILGATE_TOKEN environment variable)
  --queue QUEUE      queue (mail alias, name or id) for mail addressed to no queue's alias
  --action ACTION    correspond (a reply, the default) or comment (an internal note)
  --timeout SECONDS  give up (exit 75) after this long (default 120)
Exit status: 0 delivered or duplicate; 65 rejected by hxdesk (the MTA bounces it);
75 temporary failure or configuration error (the MTA keeps the message and retries).`;

/** A failure with the exit status it means for the MTA. */
class Exit extends Error {
  /** @param {number} code @param {string} message */
  constructor(code, message) { super(message); this.code = code; }
}
/** @param {string} message */
const configError = (message) => new Exit(EX_TEMPFAIL, `${message} (the MTA keeps the message until this is fixed)`);

/** @param {string[]} argv */
function readOptions(argv) {
  // A secret in argv is readable by every local user (ps, /proc/<pid>/cmdline): refused outright.
  if (argv.some((a) => a === '--token' || a.startsWith('--token='))) {
    throw configError('refusing --token: a secret on the command line is visible to every user of this machine; use --token-file PATH or the MAILGATE_TOKEN environment variable');
  }
  let values;
  try {
    ({ values } = parseArgs({
      args: argv, strict: true, allowPositionals: false,
      options: {
        url: { type: 'string' }, 'token-file': { type: 'string' }, queue: { type: 'string' },
        action: { type: 'string' }, timeout: { type: 'string' }, help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    throw configError(`${/** @type {Error} */ (e).message}; see --help`);
  }
  if (values.help) return null;

  const base = values.url ?? process.env.HXDESK_URL ?? 'http://127.0.0.1:3000';
  let url;
  try { url = new URL(base); } catch { throw configError(`--url ${base} is not a URL`); }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw configError(`--url must be http:// or https://, not ${url.protocol}`);
  if (url.username || url.password) throw configError('--url must not carry credentials; put the token in --token-file');
  if (!url.pathname.endsWith('/mailgate')) url.pathname = `${url.pathname.replace(/\/+$/, '')}/mailgate`;
  if (values.queue !== undefined) url.searchParams.set('queue', values.queue);
  if (values.action !== undefined) {
    if (values.action !== 'correspond' && values.action !== 'comment') throw configError(`--action must be correspond or comment, not ${values.action}`);
    url.searchParams.set('action', values.action);
  }

  const timeout = values.timeout === undefined ? 120 : Number(values.timeout);
  if (!Number.isFinite(timeout) || timeout <= 0 || timeout > 86_400) throw configError(`--timeout must be a number of seconds (0 < s <= 86400), not ${values.timeout}`);

  let token = process.env.MAILGATE_TOKEN || undefined;
  const file = values['token-file'];
  if (file !== undefined) {
    try { token = fs.readFileSync(file, 'utf8').trim(); } catch (e) {
      throw configError(`cannot read --token-file ${file}: ${/** @type {NodeJS.ErrnoException} */ (e).code ?? e}`);
    }
    if (!token) throw configError(`--token-file ${file} is empty`);
  }
  if (token !== undefined && /\s/.test(token)) throw configError('the token contains whitespace; the file must hold the token alone');
  return { url, token, timeoutMs: timeout * 1000 };
}

/** An mbox "From sender date" line opens the message (a header would be "From:", or "From :"). */
const isFromLine = (/** @type {Buffer} */ head) => /^From (?!\s*:)/.test(head.subarray(0, 64).toString('latin1'));

/**
 * @typedef {{ status: number, statusText: string, location: string | undefined, text: string }} Answer
 * @typedef {{ url: URL, token: string | undefined, timeoutMs: number }} Options
 */

/** @param {Options} opts @param {Record<string, string>} [extra] */
function request(opts, extra = {}) {
  /** @type {Record<string, string>} */
  const headers = { 'content-type': 'message/rfc822', 'user-agent': 'hxdesk-mailgate', ...extra };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  return (opts.url.protocol === 'https:' ? https : http).request(opts.url, { method: 'POST', headers, agent: false });
}

/**
 * Resolves with the answer to `req` (status and up to 64 KiB of body), rejects on a connection
 * error before it; `onAnswer` runs as soon as the status line is in.
 * @param {http.ClientRequest} req @param {number} ms @param {() => void} onAnswer @returns {Promise<Answer>}
 */
function answerOf(req, ms, onAnswer) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => req.destroy(Object.assign(new Error('no answer in time'), { code: 'timeout' })), ms);
    req.on('error', (e) => { clearTimeout(timer); reject(e); });
    req.on('response', (res) => {
      onAnswer();
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (/** @type {string} */ d) => { if (text.length < 65_536) text += d; });
      const done = () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', location: res.headers.location, text });
      };
      // A connection dropped after the status line still leaves the status; the body may be cut.
      res.on('end', done).on('error', done).on('close', done);
    });
  });
}

/**
 * Streams stdin to POST `url` chunk by chunk (never held whole) and resolves with hxdesk's
 * answer and the message's size, once stdin has ended. hxdesk may answer before the message
 * is all sent (413, 401): the answer counts, and the rest of stdin is still read and
 * discarded, so the MTA never sees a broken pipe. A leading mbox "From sender date" line
 * (Exim's pipe default, Postfix local(8) commands) is dropped: it is no header and would make
 * the message malformed.
 * @param {Options} opts @param {NodeJS.ReadStream} input
 * @returns {Promise<{ answer: Answer, size: number } | { error: NodeJS.ErrnoException, size: number }>}
 */
async function post(opts, input) {
  const req = request(opts);
  const inputEnded = new Promise((resolve) => { input.once('end', resolve).once('error', resolve); });
  let size = 0;
  let sending = true;
  const stopSending = () => { sending = false; input.resume(); };

  /** @type {Buffer | null} */
  let head = Buffer.alloc(0);
  input.on('data', (/** @type {Buffer} */ chunk) => {
    size += chunk.length;
    if (!sending) return;
    if (head) {
      head = Buffer.concat([head, chunk]);
      const eol = head.indexOf(10);
      if (eol < 0 && head.length < 1000) return;
      chunk = isFromLine(head) ? head.subarray(eol < 0 ? head.length : eol + 1) : head;
      head = null;
    }
    if (!req.write(chunk)) { input.pause(); req.once('drain', () => { if (sending) input.resume(); }); }
  });
  input.once('end', () => {
    if (!sending) return;
    if (head && !isFromLine(head)) req.write(head);
    req.end();
  });

  // hxdesk has decided once it answers; whatever it did not read yet, it does not want.
  const result = await answerOf(req, opts.timeoutMs, stopSending).then(
    (answer) => ({ answer }),
    (/** @type {NodeJS.ErrnoException} */ error) => { stopSending(); return { error }; });
  await inputEnded;
  return { ...result, size };
}

/**
 * After hxdesk dropped the connection mid-upload without an answer we could read (it refused
 * early and closed, racing our writes): asks again with the headers alone, declaring the
 * size, and returns the refusal it answers (e.g. 413), or null when it waits for a body.
 * @param {Options} opts @param {number} size @returns {Promise<Answer | null>}
 */
async function refusalFor(opts, size) {
  const req = request(opts, { 'content-length': String(size) });
  req.flushHeaders();
  const answer = await answerOf(req, Math.min(opts.timeoutMs, 5_000), () => {}).catch(() => null);
  req.destroy();
  return answer && answer.status >= 300 ? answer : null;
}

/**
 * The exit status for an answer of /mailgate (SPEC B7/B5).
 * @param {Answer} res @param {URL} url
 */
function verdict(res, url) {
  /** @type {any} */
  let body = null;
  try { body = JSON.parse(res.text); } catch { /* not JSON: not hxdesk's answer */ }
  const where = `${url.origin}${url.pathname}`;
  if (res.status >= 200 && res.status < 300) {
    if (body && typeof body.duplicate === 'boolean') return new Exit(EX_OK, '');
    return configError(`${where} answered ${res.status} but not as hxdesk's /mailgate does; check --url`);
  }
  const err = body?.error;
  const said = typeof err?.message === 'string' ? `${res.status} ${err.code}: ${err.message}` : `${res.status} ${res.statusText}`.trim();
  if (res.status >= 300 && res.status < 400) return configError(`${where} redirects (${res.status}) to ${res.location ?? '?'}; point --url at hxdesk itself`);
  if (res.status === 401 || res.status === 403) return configError(`${where} refused the mail gateway's token (${said}); check --token-file / MAILGATE_TOKEN and --url`);
  if (res.status === 413) return new Exit(EX_DATAERR, `hxdesk rejected the message (${said})`);
  if (res.status === 422) {
    const paths = Array.isArray(err?.details) ? err.details.map((/** @type {any} */ d) => d?.path) : [];
    // An unknown --queue or --action is the admin's mistake, not the sender's: never bounced.
    if (paths.some((/** @type {unknown} */ p) => p === 'queue' || p === 'action')) return configError(`hxdesk refused an option (${said}); check --queue / --action`);
    return new Exit(EX_DATAERR, `hxdesk rejected the message (${said})`);
  }
  if (res.status === 429 || res.status === 408 || res.status >= 500) return new Exit(EX_TEMPFAIL, `hxdesk cannot take the message now (${said}); the MTA will retry`);
  // 404, 405, 415 and any other 4xx: a wrong --url or a proxy in the way, not the sender's mistake.
  return configError(`${where} refused the request (${said}); check --url`);
}

/** @param {Options} opts */
async function handOff(opts) {
  const sent = await post(opts, process.stdin);
  if ('answer' in sent) return verdict(sent.answer, opts.url);
  const code = sent.error.code;
  if (code === 'EPIPE' || code === 'ECONNRESET') {
    const refusal = await refusalFor(opts, sent.size);
    if (refusal) return verdict(refusal, opts.url);
  }
  const why = code === 'timeout' ? sent.error.message : code ?? sent.error.message;
  return new Exit(EX_TEMPFAIL, `cannot reach hxdesk at ${opts.url.origin} (${why}); the MTA will retry`);
}

/** Reads and discards what is left of stdin (a refused option, an unreachable hxdesk): the MTA never sees a broken pipe. */
function drain(/** @type {NodeJS.ReadStream} */ input) {
  if (input.readableEnded || input.destroyed) return Promise.resolve();
  return new Promise((resolve) => { input.once('end', resolve).once('error', resolve).once('close', resolve).resume(); });
}

async function main() {
  let outcome;
  try {
    const opts = readOptions(process.argv.slice(2));
    if (!opts) { process.stdout.write(`${USAGE}\n`); return EX_OK; }
    if (process.stdin.isTTY) throw configError('reads one message on stdin (hxdesk-mailgate < message.eml); see --help');
    outcome = await handOff(opts);
  } catch (e) {
    outcome = e instanceof Exit ? e : new Exit(EX_TEMPFAIL, `unexpected error: ${/** @type {Error} */ (e)?.message ?? e}`);
  }
  await drain(process.stdin);
  if (outcome.message) process.stderr.write(`hxdesk-mailgate: ${outcome.message}\n`);
  return outcome.code;
}

// Whatever happens, the exit status stays one the MTA understands (a crash would be 1: a bounce).
process.on('uncaughtException', (e) => { process.stderr.write(`hxdesk-mailgate: unexpected error: ${e.message}\n`); process.exit(EX_TEMPFAIL); });
process.stderr.on('error', () => { /* the MTA stopped listening; the exit status still counts */ });
main().then((code) => process.exit(code));
