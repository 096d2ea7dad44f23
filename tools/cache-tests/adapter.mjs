// An HTTP front for ferryd, so that the HTTP Caching Tests (github:http-tests/cache-tests) can
// be run against ferryd's cache: every request that arrives here becomes one ferry job in a
// cached session, sent over ferryd's Unix socket, and the job's `done` becomes the answer.
// The adapter keeps nothing itself; what is cached, revalidated or refetched is ferryd's doing.
//
//   node adapter.mjs --socket SOCK --session S --origin http://127.0.0.1:8000 [--port 8001]
//
// It listens on 127.0.0.1 only (port 0, the default, picks a free one) and prints
// `adapter: http://127.0.0.1:PORT/ …` on stderr once it listens.
//
// Headers pass through as the client sent them. ferry's own defaults (User-Agent, Accept,
// Accept-Language, Accept-Encoding) are dropped with `null` when the client did not send them,
// so the origin sees the client's request. Hop-by-hop fields are not forwarded (RFC 9110 7.6.1).
// A job that fails answers 502 (504 for a timeout) with `Ferry-Error: CODE`.

import http from 'node:http'
import net from 'node:net'
import process from 'node:process'

function option (name, fallback) {
  const i = process.argv.indexOf(`--${name}`)
  if (i >= 0 && i + 1 < process.argv.length) return process.argv[i + 1]
  if (fallback === undefined) {
    console.error(`adapter.mjs: --${name} is required`)
    process.exit(2)
  }
  return fallback
}

const socketPath = option('socket')
const session = option('session')
const origin = option('origin').replace(/\/$/, '')
const port = Number(option('port', '0'))
const verbose = process.argv.includes('--verbose')

const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding',
  'te', 'trailer', 'upgrade', 'host', 'content-length'])
const ferryDefaults = ['user-agent', 'accept', 'accept-language', 'accept-encoding']

let counter = 0

function jobFor (request, body) {
  const headers = {}
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = request.rawHeaders[i]
    const value = request.rawHeaders[i + 1]
    const lower = name.toLowerCase()
    if (hopByHop.has(lower)) continue
    const existing = Object.keys(headers).find(k => k.toLowerCase() === lower)
    if (existing !== undefined) headers[existing] += `, ${value}`
    else headers[name] = value
  }
  for (const name of ferryDefaults) {
    if (!Object.keys(headers).some(k => k.toLowerCase() === name)) headers[name] = null
  }
  const job = {
    id: `a${++counter}`,
    session,
    method: request.method,
    url: origin + request.url,
    headers,
    follow_redirects: false,
    accept: { status: [[100, 599]] },
    response: 'base64',
    events: []
  }
  if (body.length > 0 && request.method !== 'HEAD') job.body = { base64: body.toString('base64') }
  return job
}

// One connection per request: ferryd multiplexes, but the suite's concurrency is small.
function runJob (job) {
  return new Promise((resolve, reject) => {
    const conn = net.createConnection(socketPath)
    let buffered = ''
    conn.setEncoding('utf8')
    conn.on('connect', () => conn.write(JSON.stringify(job) + '\n'))
    conn.on('data', chunk => {
      buffered += chunk
      let nl
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl)
        buffered = buffered.slice(nl + 1)
        const event = JSON.parse(line)
        if (['done', 'failed', 'cancelled', 'error'].includes(event.event)) {
          conn.end()
          resolve(event)
          return
        }
      }
    })
    conn.on('error', reject)
    conn.on('close', () => reject(new Error('ferryd closed the connection')))
  })
}

function answer (response, request, event) {
  if (event.event !== 'done') {
    const code = event.error?.code ?? event.reason ?? event.event
    response.writeHead(code === 'timeout' ? 504 : 502, { 'Ferry-Error': code })
    response.end()
    return
  }
  const body = event.body_base64 !== undefined ? Buffer.from(event.body_base64, 'base64') : Buffer.alloc(0)
  const raw = []
  let sawLength = false
  for (const [name, value] of Object.entries(event.headers)) {
    if (name === 'content-length') {
      sawLength = true
      if (request.method === 'HEAD' || event.status === 304) raw.push(name, value)
      continue
    }
    if (hopByHop.has(name)) continue
    for (const v of Array.isArray(value) ? value : [value]) raw.push(name, v)
  }
  if (request.method !== 'HEAD' && event.status !== 304 && event.status !== 204 && (body.length > 0 || sawLength)) {
    raw.push('content-length', String(body.length))
  }
  if (event.cache !== undefined) raw.push('ferry-cache', event.cache)
  response.writeHead(event.status, raw)
  response.end(request.method === 'HEAD' ? undefined : body)
}

const server = http.createServer((request, response) => {
  response.sendDate = false
  const chunks = []
  request.on('data', c => chunks.push(c))
  request.on('end', () => {
    const job = jobFor(request, Buffer.concat(chunks))
    runJob(job).then(event => {
      if (verbose) console.error(`${job.method} ${job.url} -> ${event.event} ${event.status ?? event.error?.code ?? ''} ${event.cache ?? ''}`)
      answer(response, request, event)
    }, err => {
      response.writeHead(502, { 'Ferry-Error': 'adapter' })
      response.end(String(err.message))
    })
  })
})
server.keepAliveTimeout = 30000
server.listen(port, '127.0.0.1', () => {
  console.error(`adapter: http://127.0.0.1:${server.address().port}/ -> ${socketPath} session ${session} -> ${origin}`)
})
