// Runs the HTTP Caching Tests' client against BASE as a *private* cache, the way the suite runs
// a browser (test-browser.html: `browser_only` cases in, `cdn_only` and `browser_skip` out), but
// from Node through the adapter. Then it counts the results as issue 17 does: a required case
// passes only when the suite calls it a pass, so a setup failure, a harness failure or a failed
// dependency counts as not passed.
//
//   node run-private.mjs SUITE_DIR BASE [RESULTS.json] [--id TEST_ID]
//        [--expect FAILURES.txt] [--min-percent N]
//
// With --min-percent, it exits 1 when fewer than N % of the required cases pass. With
// --expect, it prints the required cases whose outcome differs from the file's list of ids
// (one per line, `#` starts a comment): a case newly not passed, or one now passing.
//
// One difference from a browser, on purpose: the client does not add the Fetch API's own
// request fields for `cache:` modes (a browser sends `Cache-Control: max-age=0` for
// `cache: 'no-cache'`); Node's fetch sends none. The adapter is not a browser, so the two cases
// that use it (`cc-resp-immutable-*`, both optimal) test the same request twice.

import fs from 'node:fs'
import path from 'node:path'
import process from 'node:process'
import { pathToFileURL } from 'node:url'

const args = process.argv.slice(2)
function flag (name) {
  const i = args.indexOf(name)
  return i >= 0 ? args.splice(i, 2)[1] : undefined
}
const onlyId = flag('--id')
const expectPath = flag('--expect')
const minPercent = flag('--min-percent')
const [suiteDir, base, resultsPath] = args
if (suiteDir === undefined || base === undefined) {
  console.error('usage: node run-private.mjs SUITE_DIR BASE [RESULTS.json] [--id TEST_ID]')
  process.exit(2)
}
const load = p => import(pathToFileURL(path.join(suiteDir, p)).href)
const { runTests, getResults } = await load('test-engine/client/runner.mjs')
const { determineTestResult, resultTypes } = await load('test-engine/lib/results.mjs')
const tests = (await load('tests/index.mjs')).default

let toRun = tests
if (onlyId !== undefined) {
  toRun = []
  for (const suite of tests) {
    for (const test of suite.tests) {
      if (test.id === onlyId) {
        test.dump = true
        toRun.push({ ...suite, tests: [test] })
      }
    }
  }
}

await runTests(toRun, true, base.replace(/\/$/, ''))
const results = getResults()
if (resultsPath !== undefined) fs.writeFileSync(resultsPath, JSON.stringify(results, null, 2) + '\n')

const name = Object.fromEntries(Object.entries(resultTypes).map(([k, v]) => [v[2], k]))
const counts = {}
const requiredFailed = []
const notPassed = new Set()
let required = 0
let requiredPassed = 0
for (const suite of tests) {
  for (const test of suite.tests) {
    if (!(test.id in results)) continue
    const symbol = determineTestResult(tests, test.id, results)
    const kind = test.kind ?? 'required'
    const label = `${kind} ${name[symbol[2]]}`
    counts[label] = (counts[label] ?? 0) + 1
    if (kind === 'required') {
      required += 1
      if (symbol === resultTypes.pass) requiredPassed += 1
      else notPassed.add(test.id)
      if (symbol !== resultTypes.pass) requiredFailed.push(`${test.id} (${name[symbol[2]]}): ${results[test.id] === true ? 'dependency' : results[test.id][1]}`)
    }
  }
}
for (const label of Object.keys(counts).sort()) console.log(`${label}: ${counts[label]}`)
for (const line of requiredFailed) console.log(`  not passed: ${line}`)
const percent = required === 0 ? 0 : (100 * requiredPassed / required)
console.log(`required passed: ${requiredPassed} / ${required} (${percent.toFixed(1)} %)`)

if (expectPath !== undefined) {
  const expected = new Set(fs.readFileSync(expectPath, 'utf8').split('\n')
    .map(line => line.replace(/#.*/, '').trim()).filter(line => line !== ''))
  for (const id of notPassed) if (!expected.has(id)) console.log(`  NEW: ${id} no longer passes`)
  for (const id of expected) {
    if (id in results && !notPassed.has(id)) console.log(`  NEW: ${id} passes now (update ${path.basename(expectPath)})`)
  }
}
if (minPercent !== undefined && percent < Number(minPercent)) {
  console.log(`FAIL: under ${minPercent} % of the required cases passed`)
  process.exit(1)
}
