-- wrk script: POST /v1/search with the request bodies of $WARP_BODIES (one
-- JSON body per line), each connection cycling through them from its own
-- start; at the end one JSON line with QPS, latency percentiles and status
-- counts (wrk counts non-2xx/3xx; 503s are counted here apart).
local bodies = {}
local counter = 0
local threads = {}

function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

function init(args)
  local path = os.getenv("WARP_BODIES")
  for line in io.lines(path) do
    if #line > 0 then table.insert(bodies, line) end
  end
  n = 0
  busy = 0
  other = 0
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  local token = os.getenv("WARP_TOKEN")
  if token and #token > 0 then wrk.headers["Authorization"] = "Bearer " .. token end
end

function request()
  n = n + 1
  local body = bodies[((n + id * 7919) % #bodies) + 1]
  return wrk.format(nil, "/v1/search", nil, body)
end

function response(status, headers, body)
  if status == 503 then busy = busy + 1 elseif status ~= 200 then other = other + 1 end
end

function done(summary, latency, requests)
  local b, o = 0, 0
  for _, t in ipairs(threads) do
    b = b + (t:get("busy") or 0)
    o = o + (t:get("other") or 0)
  end
  local secs = summary.duration / 1e6
  io.write(string.format(
    '{"requests": %d, "seconds": %.3f, "qps": %.2f, "p50_ms": %.3f, "p95_ms": %.3f, "p99_ms": %.3f, "status_503": %d, "status_other": %d, "socket_errors": %d}\n',
    summary.requests, secs, summary.requests / secs,
    latency:percentile(50) / 1e3, latency:percentile(95) / 1e3, latency:percentile(99) / 1e3,
    b, o, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
