/** `npm run faults:report`: RELIABILITY.md again from the JSON, without a run. */
import { renderReliability } from './render.js';

console.log(`faults:report: wrote ${await renderReliability()}`);
