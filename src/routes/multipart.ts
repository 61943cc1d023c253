import busboy from 'busboy';

// SPEC D1, docs/decisions/061: a multipart body is taken apart as it streams in, a chunk at a
// time, so a reply carrying 20 MiB of files does not stop the process for everyone else. Parsing
// the whole body at once afterwards (hono's parseBody → the fetch API's formData()) copies it
// four times in long synchronous steps — the body joined, then parsed, each file copied into a
// Blob, then out of it — and held the event loop for 100–500 ms per upload on a loaded machine.
// Here each file part keeps the chunks it arrived in, until it is asked for its bytes (one copy).

/** A file part of a multipart body, kept as the chunks it arrived in. */
export class ReceivedFile extends File {
  readonly #chunks: Buffer[];
  #whole: File | undefined;
  constructor(chunks: Buffer[], name: string, type: string) {
    super([], name, { type });
    this.#chunks = chunks;
    // An own property over Blob's getter: the size of the chunks, not of the empty Blob underneath.
    Object.defineProperty(this, 'size', { value: chunks.reduce((n, c) => n + c.length, 0), enumerable: true });
  }
  /** The bytes as one Buffer (one copy at most). */
  content(): Buffer {
    return this.#chunks.length === 1 ? this.#chunks[0] : Buffer.concat(this.#chunks, this.size);
  }
  override async arrayBuffer(): Promise<ArrayBuffer> {
    const b = this.content();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }
  // What else a File can do, from a real one made when first asked.
  #file(): File {
    this.#whole ??= new File(this.#chunks, this.name, { type: this.type });
    return this.#whole;
  }
  override slice(start?: number, end?: number, type?: string): Blob {
    return this.#file().slice(start, end, type);
  }
  override stream() {
    return this.#file().stream();
  }
  override text(): Promise<string> {
    return this.#file().text();
  }
}

/** A form file's bytes: without a copy of the whole body when it came through readMultipart. */
export async function fileBytes(f: File): Promise<Buffer> {
  return f instanceof ReceivedFile ? f.content() : Buffer.from(await f.arrayBuffer());
}

export interface MultipartParts {
  /** Feeds the next chunk of the body. */
  write(chunk: Uint8Array): void;
  /** The name of the file part past `maxFiles`, once there is one. */
  refused(): string | undefined;
  /**
   * After the last chunk: the body's fields and files in their order, as the fetch API's
   * formData() reads them — or null when this reading is not sure to be the same (a malformed
   * body, a part that is a file to busboy but text to formData()): then formData() says.
   */
  end(): Promise<FormData | null>;
}

/**
 * Reads a multipart/form-data body with busboy as its chunks come, counting file parts (at part
 * `maxFiles + 1` it stops keeping them and says which). Names and values are not cut (busboy's
 * default limits would cut a field at 1 MiB and a name at 100 bytes); the body's size is limited
 * before (app.tsx).
 */
export function multipartParts(contentType: string, maxFiles: number): MultipartParts {
  const entries: [string, string | File | null][] = [];
  let sure = true;
  let refused: string | undefined;
  let files = 0;
  let parser: busboy.Busboy | undefined;
  let closed: Promise<void> = Promise.resolve();
  try {
    parser = busboy({
      headers: { 'content-type': contentType },
      defParamCharset: 'utf8', // a browser sends a file's name as UTF-8 bytes
      preservePath: true, // the name as sent, as formData() gives it (cleanName takes the path off)
      limits: { fieldSize: Number.POSITIVE_INFINITY, fieldNameSize: Number.POSITIVE_INFINITY },
    });
    const p = parser;
    closed = new Promise<void>((resolve) => {
      p.on('close', resolve);
      p.on('error', () => {
        sure = false; // malformed: formData() gives the error in its words
        parser = undefined;
        resolve();
      });
    });
    p.on('field', (name, value, info) => {
      if (info.nameTruncated || info.valueTruncated) sure = false;
      entries.push([name, value]);
    });
    p.on('file', (name, stream, info) => {
      // A body that ends inside this file errors its stream too (busboy destroys it): not a crash.
      stream.on('error', () => {});
      if (++files > maxFiles) {
        refused ??= name;
        stream.resume();
        return;
      }
      const at = entries.push([name, null]) - 1;
      const chunks: Buffer[] = [];
      stream.on('data', (d: Buffer) => chunks.push(d));
      stream.on('end', () => {
        // No file name: busboy calls an application/octet-stream part a file, formData() calls it
        // text unless it says `filename=""` (an empty file input, which has no bytes either).
        if (info.filename === undefined && chunks.length > 0) sure = false;
        entries[at][1] = new ReceivedFile(chunks, info.filename ?? '', info.mimeType);
      });
    });
  } catch {
    parser = undefined;
    sure = false;
  }
  return {
    write(chunk) {
      parser?.write(chunk);
    },
    refused: () => refused,
    async end() {
      parser?.end();
      await closed;
      if (!sure || parser === undefined || entries.some(([, v]) => v === null)) return null;
      const form = new FormData();
      for (const [name, value] of entries) form.append(name, value as string | File);
      return form;
    },
  };
}
