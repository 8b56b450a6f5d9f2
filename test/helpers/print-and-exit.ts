// A stand-in for a scripted fault scenario (test/unit/faults-scripted.test.ts): prints in colour, exits 1 on --short.
const short = process.argv.includes('--short');
console.log('\u001b[32mfigure 1\u001b[0m');
console.log(`faults x: ${short ? 'short' : 'ok'}`);
process.exitCode = short ? 1 : 0;
