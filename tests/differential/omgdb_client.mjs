// A minimal newline-delimited JSON-RPC client for `omgdb mcp` over stdio: spawn, initialize,
// tools/call with any number of requests in flight, close. No SDK: the differential test wants
// raw throughput and the exact text of every result.
import { spawn } from 'node:child_process';

const REPLY_TIMEOUT_MS = 30_000;

export class OmgdbSession {
  constructor(bin, args = ['mcp', '--scope', 'all', '--max-result-bytes', '1073741824']) {
    this.proc = spawn(bin, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.nextId = 1;
    this.pending = new Map();
    this.buf = '';
    this.stderr = '';
    this.exited = null;
    this.proc.stdout.setEncoding('utf8');
    this.proc.stdout.on('data', (chunk) => this.#onData(chunk));
    this.proc.stderr.setEncoding('utf8');
    this.proc.stderr.on('data', (chunk) => {
      // Keep only the tail: routine log lines are not interesting, a crash message is.
      this.stderr = (this.stderr + chunk).slice(-8000);
    });
    this.proc.on('exit', (code, signal) => {
      this.exited = { code, signal };
      const err = new Error(`omgdb exited (code ${code}, signal ${signal}); stderr tail:\n${this.stderr}`);
      for (const { reject, timer } of this.pending.values()) {
        clearTimeout(timer);
        reject(err);
      }
      this.pending.clear();
    });
  }

  #onData(chunk) {
    this.buf += chunk;
    let nl;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      if (!line.trim()) continue;
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        continue; // not ours to judge here; a reply that never comes times out
      }
      if (msg.id === undefined || msg.id === null) continue; // notifications
      const p = this.pending.get(msg.id);
      if (!p) continue;
      this.pending.delete(msg.id);
      clearTimeout(p.timer);
      p.resolve(msg);
    }
  }

  request(method, params) {
    if (this.exited) return Promise.reject(new Error(`omgdb has exited: ${JSON.stringify(this.exited)}`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no reply to ${method} #${id} within ${REPLY_TIMEOUT_MS} ms`));
      }, REPLY_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      this.proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  }

  async initialize() {
    const r = await this.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'omgdb-differential', version: '0.0.0' },
    });
    if (r.error) throw new Error(`initialize failed: ${JSON.stringify(r.error)}`);
    this.proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
    return r.result;
  }

  // Returns { isError, text } of a tools/call; a JSON-RPC error becomes isError with its message.
  async call(name, args) {
    const r = await this.request('tools/call', { name, arguments: args });
    if (r.error) return { isError: true, text: `JSON-RPC error ${r.error.code}: ${r.error.message}` };
    const text = (r.result.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('');
    return { isError: !!r.result.isError, text };
  }

  async close() {
    if (this.exited) return;
    const done = new Promise((resolve) => this.proc.on('exit', resolve));
    this.proc.stdin.end();
    const t = setTimeout(() => this.proc.kill('SIGKILL'), 10_000);
    await done;
    clearTimeout(t);
  }
}
