// Types for the parts of nodemailer's MIME helpers (dependencies of mailparser) that hxdesk
// calls directly; the packages ship none.
declare module 'libmime' {
  const libmime: {
    decodeWords(s: string): string;
    detectExtension(mimeType: string): string;
    detectMimeType(filenameOrExtension: string): string;
  };
  export default libmime;
}
declare module 'libmime/lib/charset.js' {
  const charset: { normalizeCharset(name: string): string; decode(buf: Buffer, charset: string): string };
  export default charset;
}
declare module 'libqp' {
  const libqp: { decode(s: string): Buffer };
  export default libqp;
}
declare module 'libbase64' {
  const libbase64: { decode(s: string): Buffer };
  export default libbase64;
}
