-- wrk script for bench/http_bench.py: POSTs `tools/call get` by a pseudo-random _id on one
-- MCP session (or the same JSON to the echo baseline), counts non-200 and error results, and
-- prints one JSON line of results at the end.
local docs = tonumber(os.getenv("BENCH_DOCS") or "100000")
local store = os.getenv("BENCH_STORE") or "x"
local headers = {
  ["Content-Type"] = "application/json",
  ["Accept"] = "application/json, text/event-stream",
}
if os.getenv("BENCH_SESSION") and os.getenv("BENCH_SESSION") ~= "" then
  headers["Mcp-Session-Id"] = os.getenv("BENCH_SESSION")
  headers["MCP-Protocol-Version"] = os.getenv("BENCH_VERSION") or "2025-11-25"
end
-- BENCH_MODERN=1: stateless 2026-07-28 requests (no session; the version, method and tool
-- name in headers, the version and client capabilities in params._meta).
local modern = os.getenv("BENCH_MODERN") == "1"
local meta = ""
if modern then
  headers["MCP-Protocol-Version"] = "2026-07-28"
  headers["Mcp-Method"] = "tools/call"
  headers["Mcp-Name"] = "get"
  meta = ',"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",' ..
    '"io.modelcontextprotocol/clientCapabilities":{},' ..
    '"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}'
end
if os.getenv("BENCH_TOKEN") and os.getenv("BENCH_TOKEN") ~= "" then
  headers["Authorization"] = "Bearer " .. os.getenv("BENCH_TOKEN")
end

local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)  -- JSON-RPC ids must be unique per session across threads
end

counter = 0
bad = 0
tid = 0
function request()
  counter = counter + 1
  local id = (counter * 7919) % docs
  local body = '{"jsonrpc":"2.0","id":' .. (counter * 64 + tid) ..
    ',"method":"tools/call","params":{"name":"get","arguments":{"path":"' .. store ..
    '","collection":"items","id":' .. id .. '}' .. meta .. '}}'
  return wrk.format("POST", "/mcp", headers, body)
end

function response(status, hdrs, body)
  if status ~= 200 or string.find(body, '"isError":true', 1, true) then
    bad = bad + 1
    if bad == 1 and os.getenv("BENCH_DEBUG") then io.stderr:write(status .. " " .. body .. "\n") end
  end
end

function done(summary, latency, requests)
  local total_bad = 0
  for _, t in ipairs(threads) do total_bad = total_bad + t:get("bad") end
  io.write(string.format(
    '{"requests":%d,"seconds":%.3f,"errors_socket":%d,"bad":%d,"p50_ms":%.3f,"p99_ms":%.3f,"mean_ms":%.3f}\n',
    summary.requests, summary.duration / 1e6,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    total_bad, latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.mean / 1000))
end
