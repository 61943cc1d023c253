import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MAILGATE_BIN } from './mailgate.js';

export interface EximRun {
  code: number | null;
  output: string;
}

export interface Exim {
  dir: string;
  /** Hands `message` to Exim as a local submission (`exim -odi -f sender -bm rcpt`): delivered in the foreground. */
  submit(message: string, sender: string, recipient: string): Promise<EximRun>;
  /** The ids of the messages waiting in Exim's queue. */
  queued(): Promise<string[]>;
  /** A forced queue run (`exim -qff`), as the queue runner does on its next pass. */
  runQueue(): Promise<EximRun>;
  /** Exim's main log. */
  mainlog(): string;
  /** Everything delivered back to senders (bounces): the mailbox of the domain `customer.test`. */
  senderMail(): string;
  stop(): void;
}

function run(args: string[], stdin?: string): Promise<EximRun> {
  // Only submissions read stdin; other runs (exim -bp) may exit first: don't pipe to them.
  const child = spawn('exim', args, { stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => {
    output += d;
  });
  child.stderr!.on('data', (d) => {
    output += d;
  });
  if (stdin !== undefined) {
    child.stdin!.on('error', () => {
      /* exim exited without reading all of it: its exit code tells */
    });
    child.stdin!.end(stdin);
  }
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/**
 * A real Exim (Debian's exim4-daemon-light) run from its own config in a temp dir: no daemon,
 * no port, its own spool and logs. Mail for `helpdesk.test` goes through the README's pipe
 * transport to `hxdesk-mailgate --url <url> --token-file <file>` (running as `nobody`, the
 * token file `root:nogroup` 0640, as the README says); mail for `customer.test` (bounces to
 * senders) lands in one mailbox file. `misconfigured.test` runs the same command with a token
 * file that holds the wrong token. `help@helpdesk.test` goes through a transport of its own that
 * names the queue (`--queue General`) and adds no X-Original-To.
 */
export async function startExim(opts: { url: string; token: string }): Promise<Exim> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-exim-'));
  fs.chmodSync(dir, 0o755);
  for (const d of ['spool', 'log', 'mail']) fs.mkdirSync(path.join(dir, d));
  fs.chownSync(path.join(dir, 'mail'), 65534, 65534);
  const tokenFile = (name: string, token: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, `${token}\n`, { mode: 0o640 });
    fs.chownSync(file, 0, 65534);
    return file;
  };
  const good = tokenFile('mailgate-token', opts.token);
  const wrong = tokenFile('wrong-token', 'this-is-not-the-mailgate-token');
  // `queue`: a transport for one mailbox handed over with `--queue`, written without the README's
  // X-Original-To line (so hxdesk learns the address only from the message's To).
  const pipe = (name: string, token: string, queue?: string) => `${name}:
  driver = pipe
  command = ${process.execPath} ${MAILGATE_BIN} --url ${opts.url} --token-file ${token}${queue ? ` --queue ${queue}` : ''}
  user = nobody
  group = nogroup
  message_prefix =
  message_suffix =
  return_path_add
${queue ? '' : '  headers_add = X-Original-To: $original_local_part@$original_domain\n'}  temp_errors = 75
  return_fail_output
  log_fail_output
  log_defer_output
  freeze_exec_fail
  timeout = 5m
  timeout_defer
`;
  const conf = path.join(dir, 'exim.conf');
  fs.writeFileSync(
    conf,
    `primary_hostname = mta.test
qualify_domain = mta.test
spool_directory = ${dir}/spool
log_file_path = ${dir}/log/%slog
exim_user = root
exim_group = root
never_users =
keep_environment =
acl_not_smtp_start = not_smtp

begin acl
# Treat submitted messages as mail from the internet: no From/Message-Id/Date added.
not_smtp:
  accept control = suppress_local_fixups

begin routers
hxdesk_queue:
  driver = accept
  domains = helpdesk.test
  local_parts = help
  transport = hxdesk_mailgate_queue
hxdesk:
  driver = accept
  domains = helpdesk.test
  transport = hxdesk_mailgate
misconfigured:
  driver = accept
  domains = misconfigured.test
  transport = hxdesk_wrong_token
senders:
  driver = accept
  domains = customer.test
  transport = sender_mailbox

begin transports
${pipe('hxdesk_mailgate', good)}
${pipe('hxdesk_wrong_token', wrong)}
${pipe('hxdesk_mailgate_queue', good, 'General')}
sender_mailbox:
  driver = appendfile
  file = ${dir}/mail/senders
  user = nobody
  group = nogroup

begin retry
* * F,1d,1m
`,
  );
  const C = ['-C', conf];
  return {
    dir,
    submit: (message, sender, recipient) => run([...C, '-odi', '-f', sender, '-bm', recipient], message),
    async queued() {
      const { output } = await run([...C, '-bp']);
      return [...output.matchAll(/^\s*\S+\s+\S+\s+(\S+-\S+-\S+)\s/gm)].map((m) => m[1]);
    },
    runQueue: () => run([...C, '-qff']),
    mainlog: () => fs.readFileSync(path.join(dir, 'log', 'mainlog'), 'utf8'),
    senderMail: () =>
      fs.existsSync(path.join(dir, 'mail', 'senders'))
        ? fs.readFileSync(path.join(dir, 'mail', 'senders'), 'utf8')
        : '',
    stop: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
