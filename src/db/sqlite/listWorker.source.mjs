// Reader thread entry when hxdesk runs from its TypeScript sources (npm run dev, the tests): a
// worker thread does not inherit the parent's tsx loader, so it registers tsx itself, then loads
// the real worker. The compiled server (dist/) loads listWorker.js directly.
import { register } from 'tsx/esm/api';

register();
const worker = await import('./listWorker.ts');
export const { list } = worker;
