import '../helpers/setup.js';
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { commentsOf, danglingInComments } from '../../scripts/check-paths.js';

const test = suite('check-paths');

test('a src/ path named in a comment that does not exist is reported with its line; one that exists is not', () => {
  const source = [
    'import { x } from "./src/not/a/comment.js";',
    '/** Paced as src/waiting/wait.ts does. */',
    '// Decided in src/waiting/turns.ts (moved away).',
    'const path = "src/nowhere.ts"; // see src/engine/quorum.js',
    '/*',
    ' * and src/quorum.ts, twice: src/engine/*.ts is a glob',
    ' */',
  ].join('\n');
  assert.equal(danglingInComments('src/planted.ts', source), [
    'src/planted.ts:3: src/waiting/turns.ts: no such file or folder',
    'src/planted.ts:6: src/quorum.ts: no such file or folder',
  ]);
});

test('in tools/, src/… may name the workspace\'s own tools/src/…', () => {
  assert.equal(danglingInComments('tools/src/load/x.ts', '// see src/load/kinds.ts'), []);
  assert.equal(danglingInComments('src/x.ts', '// see src/load/kinds.ts').length, 1);
});

test('comments are found in a real file, and strings and templates are not comments', () => {
  const comments = commentsOf(readFileSync('scripts/check-paths.ts', 'utf8'));
  assert.ok(comments.length > 3);
  assert.equal(commentsOf('const a = "// no"; const b = `/* no */`; // yes'), [{ line: 1, text: '// yes' }]);
});

test.run();
