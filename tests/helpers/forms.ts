import http from 'node:http';

// Multipart bodies written by hand, and a post whose body never finishes: for tests of what the
// server does while a form is still coming in (it may refuse before it has read all of it).

export interface FormFile {
  name: string;
  type: string;
  content: Buffer;
}

/** `n` small text files (f0.txt, f1.txt, …): for the limits on how many files one message may carry. */
export const textFiles = (n: number): FormFile[] =>
  Array.from({ length: n }, (_, i) => ({ name: `f${i}.txt`, type: 'text/plain', content: Buffer.from(`file ${i}`) }));

/** A multipart/form-data body: the fields, then the files, each file in the `field` field. */
export function multipartBody(
  fields: Record<string, string>,
  files: FormFile[],
  field = 'attachments',
): { body: Buffer; contentType: string } {
  const boundary = `----hxdesk-test-${Math.random().toString(36).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  for (const f of files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${f.name}"\r\nContent-Type: ${f.type}\r\n\r\n`,
      ),
      f.content,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * POSTs `head` as the start of a body declared `length` bytes long, and sends no more: the
 * answer can only come from a server that decided on what it read so far. Rejects when none
 * comes within `withinMs` (the server is waiting for the rest).
 */
export function postUnfinished(
  url: string,
  headers: Record<string, string>,
  head: Buffer,
  length: number,
  withinMs = 5000,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { ...headers, 'content-length': String(length) } });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer within ${withinMs} ms while the body was unfinished`));
    }, withinMs);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        clearTimeout(timer);
        req.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.write(head);
  });
}
