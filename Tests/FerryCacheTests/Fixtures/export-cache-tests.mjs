// Exports http-tests/cache-tests' test definitions (tests/index.mjs) as one JSON file for
// FerryCacheTests. Run from a checkout of github:http-tests/cache-tests:
//   node export-cache-tests.mjs > cache-tests.json
import suites from './tests/index.mjs'

const keep = new Set(['id', 'name', 'kind', 'browser_only', 'cdn_only', 'browser_skip', 'depends_on', 'requests'])
const out = []
for (const suite of suites) {
  for (const test of suite.tests) {
    const t = { suite: suite.id }
    for (const [k, v] of Object.entries(test)) if (keep.has(k)) t[k] = v
    out.push(t)
  }
}
process.stdout.write(JSON.stringify(out, null, 0).replace(/\},\{"suite"/g, '},\n{"suite"') + '\n')
