import { Splitter } from '@zone-eu/mailsplit';
import fs from 'node:fs';
const raw = fs.readFileSync(process.argv[2]);
const s = new Splitter({ ignoreEmbedded: true });
s.on('data', (d) => {
  if (d.type === 'node') console.log('NODE', d.partNr, d.contentType, d.encoding, d.disposition, d.filename, 'parent:', d.parentNode && d.parentNode.partNr, 'multipart', d.multipart, 'root', d.root);
  else console.log(d.type.toUpperCase(), JSON.stringify(d.value.toString().slice(0, 80)), d.value.length);
});
s.on('end', () => console.log('END'));
s.end(raw);
