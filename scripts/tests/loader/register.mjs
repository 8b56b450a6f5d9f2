// The test runner's TypeScript loader (scripts/run-tests.ts): `node --import` this file to run .ts
// modules from the JavaScript that run-tests transpiled before the run, in place of tsx. tsx
// transpiles or reads its cache for every module of every process through its loader thread: about
// 1 s of CPU per test process, a fifth of the suite's (docs/development.md, "Why the suite runs transpiled").
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url, { data: { out: process.env.PIPELOCK_TEST_JS } });
