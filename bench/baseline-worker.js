// Benchmark baseline: the runtime Worker's HTTP surface for POST /execute written in plain JavaScript (JSON.parse,
// no Wasm), following protocol §2.1-§2.4 the way the reference implementation does, and calling the same calc engine as
// the C++ runtime. Not a product: only bench/execute.mjs uses it.
import { engine } from "../engines/calc/engine.js";

const MAX_REQUEST_BYTES = 98304;
const MAX_CODE_BYTES = 65536;
const MAX_MESSAGE = 2048;
const ENV_VAR_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function errorResponse(error) {
  const payload =
    error instanceof ApiError
      ? { code: "VALIDATION_FAILED", message: error.message, context: {}, httpStatus: error.status, timestamp: new Date().toISOString() }
      : { code: "INTERNAL_ERROR", message: "Engine execution failed", context: {}, httpStatus: 502, timestamp: new Date().toISOString() };
  return Response.json(payload, { status: payload.httpStatus, headers: { "cache-control": "no-store" } });
}

function normalizeLanguage(requested) {
  const lower = requested.toLowerCase();
  if (lower === "python3") return "python";
  if (lower === "js" || lower === "node") return "javascript";
  if (lower === "ts") return "typescript";
  return lower;
}

async function readExecution(request) {
  const type = (request.headers.get("content-type") ?? "").toLowerCase();
  if (!type.startsWith("application/json")) throw new ApiError(415, "Content-Type must be application/json");
  if (Number(request.headers.get("content-length")) > MAX_REQUEST_BYTES) throw new ApiError(413, "Request too large");
  const reader = request.body?.getReader();
  if (!reader) throw new ApiError(400, "JSON body required");
  const chunks = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_REQUEST_BYTES) {
        await reader.cancel();
        throw new ApiError(413, "Request too large");
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const data = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    data.set(chunk, offset);
    offset += chunk.length;
  }
  let body;
  try {
    body = JSON.parse(new TextDecoder().decode(data));
  } catch {
    throw new ApiError(400, "Invalid JSON");
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) throw new ApiError(400, "Expected an object");
  if ("input" in body) throw new ApiError(400, "input is no longer supported; pass data with envVars");
  if ("language" in body) {
    if (typeof body.language !== "string") throw new ApiError(400, "language must be a string");
    const normalized = normalizeLanguage(body.language);
    if (normalized !== engine.language && !(engine.language === "javascript" && normalized === "typescript"))
      throw new ApiError(400, `Unsupported language '${body.language}' on this runtime (${engine.language})`);
  }
  if (typeof body.code !== "string" || !body.code.trim()) throw new ApiError(400, "Non-empty code is required");
  if (new TextEncoder().encode(body.code).length > MAX_CODE_BYTES) throw new ApiError(413, "Code exceeds 64 KiB");
  let envVars;
  if (body.envVars !== undefined) {
    if (typeof body.envVars !== "object" || body.envVars === null || Array.isArray(body.envVars))
      throw new ApiError(400, "envVars must be an object");
    envVars = {};
    for (const [key, raw] of Object.entries(body.envVars)) {
      if (raw === undefined || raw === null) continue;
      if (typeof raw !== "string") throw new ApiError(400, "envVars values must be strings");
      if (!ENV_VAR_KEY.test(key)) continue;
      envVars[key] = raw;
    }
  }
  return { code: body.code, ...(envVars ? { envVars } : {}) };
}

function hostFailure(error) {
  const limit = error?.name === "ExecutionLimitError";
  const message = String(error?.message || (limit ? "Execution limit exceeded" : "Execution failed")).slice(0, MAX_MESSAGE);
  return { logs: { stdout: [], stderr: [] }, results: [], error: { name: limit ? "ExecutionLimitError" : "EngineError", message, traceback: [] } };
}

const json = (value, status = 200) => Response.json(value, { status, headers: { "cache-control": "no-store" } });

export default {
  async fetch(request) {
    const { pathname } = new URL(request.url);
    if (pathname === "/interpreter")
      return json({ language: engine.language, engine: engine.engineName, contexts: false, protocol: 1 });
    if (pathname !== "/execute") return new Response("Not found", { status: 404 });
    if (request.method !== "POST") return new Response("Method not allowed", { status: 405 });
    try {
      const payload = await readExecution(request);
      const started = performance.now();
      let outcome;
      try {
        outcome = await engine.run(payload);
      } catch (error) {
        outcome = hostFailure(error);
      }
      const durationMs = performance.now() - started;
      return json({ code: payload.code, language: engine.language, engine: engine.engineName, durationMs, ...outcome });
    } catch (error) {
      return errorResponse(error);
    }
  },
};
