// The caller side of `@sandbox-workers/core` (protocol §7.1, §7.2, §7.12): the free `runCode` over a Service Binding, and
// `getSandbox`, whose every call is one request to the caller's `Sandbox` Durable Object (worker-shim/sandbox.js). The
// Sandbox decides every status and body in C++; this file builds requests, reads answers and turns error bodies into
// error classes. Its only checks of its own are the synchronous ones the seed's API makes at call time (a Durable
// Object namespace where a Service Binding is needed and the reverse, the sandbox id at getSandbox): see
// docs/caller-client.md for why they are JavaScript.

// The rules this file states too (request caps, error codes and their statuses, the sandbox id) are rows of
// cpp/abi/abi.def, the table the core is compiled from, read here through the generated abi.mjs.
import {
  REQUEST_MAX_BYTES,
  FILES_REQUEST_MAX_BYTES,
  CODE_MAX_BYTES,
  SANDBOX_ID_PATTERN,
  SANDBOX_ID_RESERVED,
  ERROR_CODES,
} from "./generated/abi.mjs";

const BASE = "https://sandbox.internal";

// The request limits the seed's client exports (protocol §2.3, §7.3, §7.7). The core enforces them; these are for callers
// that check a request before sending it.
export const MAX_REQUEST_BYTES = REQUEST_MAX_BYTES;
export const MAX_FILES_REQUEST_BYTES = FILES_REQUEST_MAX_BYTES;
export const MAX_CODE_BYTES = CODE_MAX_BYTES;

// ---------------------------------------------------------------------------------------------------------------
// Errors (protocol §7.12). A body without `httpStatus` gets its code's canonical status (protocol §3.6).

/** Every `code` an ErrorResponse carries (protocol §3.6), as the seed's client exports it: a value and a type. */
export const ErrorCode = Object.freeze(Object.fromEntries(Object.keys(ERROR_CODES).map((code) => [code, code])));

/** Every `operation` an ErrorResponse carries (protocol §3.8). */
export const Operation = Object.freeze({
  FILE_READ: "file.read",
  FILE_WRITE: "file.write",
  FILE_DELETE: "file.delete",
  FILE_MOVE: "file.move",
  FILE_RENAME: "file.rename",
  FILE_STAT: "file.stat",
  DIRECTORY_CREATE: "directory.create",
  DIRECTORY_LIST: "directory.list",
  CODE_EXECUTE: "code.execute",
  CODE_CONTEXT_CREATE: "code.context.create",
  CODE_CONTEXT_DELETE: "code.context.delete",
});

/** Base of every error the client throws for an ErrorResponse; the body is kept whole. */
export class SandboxError extends Error {
  #response;

  /**
   * `errorResponse`: an ErrorResponse body (protocol §3.6); missing fields are filled in. `options.cause` becomes the
   * Error's `cause`, as the seed's client allows.
   */
  constructor(errorResponse = {}, options = undefined) {
    const body = errorResponse && typeof errorResponse === "object" ? errorResponse : {};
    const code = typeof body.code === "string" ? body.code : "INTERNAL_ERROR";
    super(typeof body.message === "string" ? body.message : code, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.#response = {
      ...body,
      code,
      message: this.message,
      context: body.context && typeof body.context === "object" ? body.context : {},
      httpStatus: typeof body.httpStatus === "number" ? body.httpStatus : httpStatusForCode(code),
      timestamp: typeof body.timestamp === "string" ? body.timestamp : new Date().toISOString(),
    };
  }

  get code() {
    return this.#response.code;
  }
  get context() {
    return this.#response.context;
  }
  get httpStatus() {
    return this.#response.httpStatus;
  }
  get timestamp() {
    return this.#response.timestamp;
  }
  get operation() {
    return this.#response.operation;
  }
  /** The ErrorResponse this error was built from. */
  get errorResponse() {
    return this.#response;
  }
  /** The ErrorResponse, as the seed's client serializes an error (JSON.stringify(error) is the body it came from). */
  toJSON() {
    return this.#response;
  }
}

export class FileNotFoundError extends SandboxError {}
export class FileExistsError extends SandboxError {}
export class FileTooLargeError extends SandboxError {}
export class PermissionDeniedError extends SandboxError {}
/** NO_SPACE, IS_DIRECTORY, NOT_DIRECTORY, FILESYSTEM_ERROR. */
export class FileSystemError extends SandboxError {}
export class ContextNotFoundError extends SandboxError {}
export class ValidationFailedError extends SandboxError {}
export class CodeExecutionError extends SandboxError {}
export class NotSupportedError extends SandboxError {}

// Each class's `name` as a literal, so that it survives a bundler renaming the classes (wrangler --minify).
for (const [Class, name] of [
  [SandboxError, "SandboxError"],
  [FileNotFoundError, "FileNotFoundError"],
  [FileExistsError, "FileExistsError"],
  [FileTooLargeError, "FileTooLargeError"],
  [PermissionDeniedError, "PermissionDeniedError"],
  [FileSystemError, "FileSystemError"],
  [ContextNotFoundError, "ContextNotFoundError"],
  [ValidationFailedError, "ValidationFailedError"],
  [CodeExecutionError, "CodeExecutionError"],
  [NotSupportedError, "NotSupportedError"],
]) {
  Object.defineProperty(Class.prototype, "name", { value: name, writable: true, configurable: true });
}

const ERROR_CLASSES = {
  FILE_NOT_FOUND: FileNotFoundError,
  FILE_EXISTS: FileExistsError,
  FILE_TOO_LARGE: FileTooLargeError,
  PERMISSION_DENIED: PermissionDeniedError,
  NO_SPACE: FileSystemError,
  IS_DIRECTORY: FileSystemError,
  NOT_DIRECTORY: FileSystemError,
  FILESYSTEM_ERROR: FileSystemError,
  CONTEXT_NOT_FOUND: ContextNotFoundError,
  VALIDATION_FAILED: ValidationFailedError,
  CODE_EXECUTION_ERROR: CodeExecutionError,
  NOT_SUPPORTED: NotSupportedError,
};

/** The canonical HTTP status of an error code (protocol §3.6); 500 for a code it does not know. */
export function httpStatusForCode(code) {
  return Object.hasOwn(ERROR_CODES, code) ? ERROR_CODES[code].status : 500;
}

const CODE_FOR_ERRNO = Object.freeze(Object.fromEntries(
  Object.entries(ERROR_CODES).filter(([, row]) => row.errno !== "").map(([code, row]) => [row.errno, code]),
));

/**
 * The error code of a workspace errno (protocol §3.7; anything else, ENOTEMPTY included, is FILESYSTEM_ERROR). The core
 * applies this table itself when it answers; the client exports a copy because the seed's client does, for callers
 * that map an `error.context.errno` of their own.
 */
export function errorCodeForErrno(errno) {
  return Object.hasOwn(CODE_FOR_ERRNO, errno) ? CODE_FOR_ERRNO[errno] : "FILESYSTEM_ERROR";
}

/**
 * The SandboxError subclass for an ErrorResponse body's `code` (unknown codes: the base class). A body that is not an
 * ErrorResponse (no string `code` and `message`: a proxy's error page, say) is SandboxError INTERNAL_ERROR
 * `HTTP <status>: <statusText>` with `options.status` (default 500) as its httpStatus (protocol §7.1).
 */
export function createErrorFromResponse(body, options = {}) {
  const cause = options?.cause !== undefined ? { cause: options.cause } : undefined;
  if (body === null || typeof body !== "object" || typeof body.code !== "string" || typeof body.message !== "string") {
    const status = options?.status ?? 500;
    return new SandboxError(
      { code: "INTERNAL_ERROR", message: `HTTP ${status}: ${options?.statusText ?? ""}`, context: {}, httpStatus: status },
      cause,
    );
  }
  const Class = Object.hasOwn(ERROR_CLASSES, body.code) ? ERROR_CLASSES[body.code] : SandboxError;
  return new Class(body, cause);
}

// ---------------------------------------------------------------------------------------------------------------
// Requests and answers

const TAG = (x) => Object.prototype.toString.call(x);

// A Service Binding answers every property with an RPC stub, so `typeof fetcher.idFromName` is "function" too: a
// namespace is recognised by the platform's tag, or (a namespace of a test double) by an `idFromName` that is a
// property of the object itself or its prototypes rather than a stub.
function isNamespace(x) {
  if (x === null || (typeof x !== "object" && typeof x !== "function")) return false;
  if (TAG(x) === "[object DurableObjectNamespace]") return true;
  if (TAG(x) === "[object Fetcher]") return false;
  for (let o = x; o; o = Object.getPrototypeOf(o)) {
    const d = Object.getOwnPropertyDescriptor(o, "idFromName");
    if (d) return typeof d.value === "function" || typeof d.get === "function";
  }
  return false;
}

function isFetcher(x) {
  if (x === null || (typeof x !== "object" && typeof x !== "function")) return false;
  return TAG(x) === "[object Fetcher]" || (!isNamespace(x) && typeof x.fetch === "function");
}

/** Drops entries whose value is undefined (protocol §7.6: `createCodeContext` and `runCode`). Non-objects pass as they are. */
function omitUndefined(envVars) {
  if (envVars === null || typeof envVars !== "object" || Array.isArray(envVars)) return envVars;
  const out = {};
  for (const [k, v] of Object.entries(envVars)) if (v !== undefined) out[k] = v;
  return out;
}

/** `setEnvVars`: undefined becomes null, which removes the key (protocol §7.6). */
function undefinedToNull(envVars) {
  if (envVars === null || typeof envVars !== "object" || Array.isArray(envVars)) return envVars;
  const out = {};
  for (const [k, v] of Object.entries(envVars)) out[k] = v === undefined ? null : v;
  return out;
}

function signalOf({ timeout, signal } = {}) {
  const signals = [];
  if (timeout !== undefined && timeout !== null) signals.push(AbortSignal.timeout(timeout));
  if (signal) signals.push(signal);
  if (signals.length === 0) return undefined;
  return signals.length === 1 ? signals[0] : AbortSignal.any(signals);
}

/** Reads an answer: 204 → {}, JSON → the body, an ErrorResponse → its error class (protocol §7.1). */
async function readAnswer(response) {
  if (response.status === 204) {
    await response.body?.cancel();
    return {};
  }
  const text = await response.text();
  const transport = { status: response.status, statusText: response.statusText };
  let body;
  try {
    body = JSON.parse(text);
  } catch (cause) {
    throw createErrorFromResponse(undefined, { ...transport, cause });
  }
  if (!response.ok) throw createErrorFromResponse(body, transport);
  return body;
}

function checkExecutionResult(body) {
  if (
    body === null ||
    typeof body !== "object" ||
    !Array.isArray(body.results) ||
    body.logs === null ||
    typeof body.logs !== "object"
  ) {
    throw new SandboxError({ code: "INTERNAL_ERROR", message: "Invalid sandbox response", context: {}, httpStatus: 500 });
  }
  return body;
}

function formatsOf(entry) {
  const formats = [];
  if (entry.text) formats.push("text");
  if (entry.json) formats.push("json");
  return formats;
}

// The callbacks fire after the answer, in order: stdout lines, stderr lines, result entries, then the error
// (protocol §7.1). Each is awaited, so an async callback finishes before the next starts. A line reaches onStdout/onStderr as
// the seed's OutputMessage, { text, timestamp }: the timestamp is when the callback fires (epoch ms), since the
// runtime answers the lines together, without times of their own.
async function fireCallbacks(result, { onStdout, onStderr, onResult, onError } = {}) {
  if (onStdout) for (const text of result.logs.stdout ?? []) await onStdout({ text, timestamp: Date.now() });
  if (onStderr) for (const text of result.logs.stderr ?? []) await onStderr({ text, timestamp: Date.now() });
  if (onResult) {
    for (const entry of result.results) await onResult({ ...entry, formats: () => formatsOf(entry) });
  }
  if (onError && result.error) await onError(result.error);
}

// ---------------------------------------------------------------------------------------------------------------
// runCode (protocol §7.1)

/**
 * Runs `code` statelessly on the runtime Worker behind the Service Binding `target`. Throws synchronously for a
 * Durable Object namespace. Guest errors come back in `result.error`; only transport and non-2xx answers throw.
 */
export function runCode(target, code, options = {}) {
  if (isNamespace(target)) {
    throw new Error(
      "runCode() requires a Service Binding to a runtime Worker; use getSandbox(namespace, id).interpreter.runCode() with a Durable Object namespace",
    );
  }
  if (!isFetcher(target)) throw new Error("runCode() requires a Service Binding to a runtime Worker");
  return (async () => {
    const body = { code };
    if (options.envVars !== undefined) body.envVars = omitUndefined(options.envVars);
    const response = await target.fetch(`${BASE}/execute`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: signalOf(options),
    });
    const answer = await readAnswer(response);
    if (response.status === 204) return answer;
    checkExecutionResult(answer);
    await fireCallbacks(answer, options);
    return answer;
  })();
}

// ---------------------------------------------------------------------------------------------------------------
// getSandbox (protocol §7.2)

const SANDBOX_ID_RE = new RegExp(SANDBOX_ID_PATTERN.slice(1, -1)); // "/^…$/" as the messages quote it
const RESERVED_IDS = new Set(SANDBOX_ID_RESERVED.split(" "));

/**
 * Throws a ValidationFailedError with the Sandbox's own message when `id` is not a sandbox id (protocol §7.2). The Sandbox
 * Durable Object applies the same rule to `x-sandbox-id` in C++; this copy exists because getSandbox must fail at
 * call time, before any request (docs/caller-client.md).
 */
export function validateSandboxId(id) {
  const fail = (why) => {
    throw new ValidationFailedError({ code: "VALIDATION_FAILED", message: `Invalid sandbox id "${id}": ${why}`, context: {}, httpStatus: 400 });
  };
  if (typeof id !== "string" || !SANDBOX_ID_RE.test(id)) fail(`must match ${SANDBOX_ID_PATTERN}`);
  if (id.startsWith("-") || id.endsWith("-")) fail("cannot start or end with a hyphen");
  if (RESERVED_IDS.has(id.toLowerCase())) fail(`'${id}' is a reserved name`);
  return id;
}

function toBase64(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function fromBase64(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

async function readAll(stream) {
  const chunks = [];
  let total = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const chunk = typeof value === "string" ? new TextEncoder().encode(value) : new Uint8Array(value.buffer ?? value, value.byteOffset ?? 0, value.byteLength);
    chunks.push(chunk);
    total += chunk.length;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function wireEncoding(encoding) {
  return encoding === "utf8" ? "utf-8" : encoding;
}

/** The Sandbox answers ISO strings; the seed's CodeContext carries Dates (protocol §7.3 rows → `CodeContext`). */
function toCodeContext(row) {
  return { ...row, createdAt: new Date(row.createdAt), lastUsed: new Date(row.lastUsed) };
}

function contextIdOf(context) {
  return context !== null && typeof context === "object" ? context.id : context;
}

/**
 * A handle on the sandbox `id` of the Sandbox Durable Object namespace `namespace`. Synchronous: throws for a Service
 * Binding or an invalid id; no request is made until a method is called.
 */
export function getSandbox(namespace, id, options = {}) {
  if (!isNamespace(namespace)) {
    throw new Error(
      isFetcher(namespace)
        ? "getSandbox() requires a Durable Object namespace, not a Service Binding; use runCode(binding, code) for a runtime Worker"
        : "getSandbox() requires a Durable Object namespace",
    );
  }
  if (options?.normalizeId && typeof id === "string") id = id.toLowerCase();
  validateSandboxId(id);

  async function call(method, path, body, { signal } = {}) {
    const stub = namespace.get(namespace.idFromName(id));
    const init = { method, headers: { "x-sandbox-id": id }, signal };
    if (body !== undefined) {
      init.headers["content-type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return readAnswer(await stub.fetch(`${BASE}${path}`, init));
  }

  const files = (op, fields) => call("POST", "/files", { op, ...fields });
  const defined = (fields) => {
    const out = {};
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = v;
    return out;
  };

  const interpreter = {
    /** POST /contexts: a code context on `binding` (protocol §7.4). */
    async createCodeContext(opts = {}) {
      const body = { binding: opts.binding };
      if (opts.cwd !== undefined) body.cwd = opts.cwd;
      if (opts.envVars !== undefined) body.envVars = omitUndefined(opts.envVars);
      return toCodeContext(await call("POST", "/contexts", body));
    },
    async listCodeContexts() {
      const answer = await call("GET", "/contexts");
      return answer.contexts.map(toCodeContext);
    },
    /** DELETE /contexts/<id>; the id is path-encoded (protocol §10.9 item 184). */
    async deleteCodeContext(context) {
      const contextId = contextIdOf(context);
      // The one rule that cannot wait for the Sandbox's C++ (which refuses these ids on every route): "." and ".." in
      // a URL path are removed by the URL parser with the segment before, so DELETE /contexts/.. would reach the
      // Sandbox as DELETE / and destroy the whole sandbox.
      if (contextId === "." || contextId === "..") {
        throw new ValidationFailedError({ code: "VALIDATION_FAILED", message: "Context id must not be '.' or '..'", context: {}, httpStatus: 400 });
      }
      await call("DELETE", `/contexts/${encodeURIComponent(contextId)}`);
    },
    /**
     * POST /execute (protocol §7.5): in `context` (an id or a context object), or in `binding`'s default context (the
     * stateless path for a binding without contexts). Callbacks fire after the answer, as for runCode.
     */
    async runCode(code, opts = {}) {
      const body = { code };
      if (opts.context !== undefined) body.contextId = contextIdOf(opts.context);
      else if (opts.contextId !== undefined) body.contextId = opts.contextId;
      if (opts.binding !== undefined) body.binding = opts.binding;
      if (opts.envVars !== undefined) body.envVars = omitUndefined(opts.envVars);
      // Not a field of this request: sent so that the Sandbox answers its error rather than the option vanishing.
      if (opts.cwd !== undefined) body.cwd = opts.cwd;
      const result = checkExecutionResult(await call("POST", "/execute", body, { signal: signalOf(opts) }));
      await fireCallbacks(result, opts);
      return result;
    },
  };

  return {
    id,
    interpreter,
    /** POST /env: sandbox-level variables; undefined or null removes a key. */
    async setEnvVars(envVars) {
      await call("POST", "/env", { envVars: undefinedToNull(envVars) });
    },
    /**
     * Writes a file. A string is sent with `encoding` (`utf8` → `utf-8`; default utf-8); a Uint8Array, ArrayBuffer or
     * ReadableStream is read whole and sent as base64.
     */
    async writeFile(path, content, opts = {}) {
      if (content instanceof ReadableStream) content = await readAll(content);
      if (content instanceof ArrayBuffer) content = new Uint8Array(content);
      if (ArrayBuffer.isView(content)) {
        const bytes = new Uint8Array(content.buffer, content.byteOffset, content.byteLength);
        return files("write", { path, content: toBase64(bytes), encoding: "base64" });
      }
      return files("write", defined({ path, content, encoding: wireEncoding(opts.encoding) }));
    },
    /**
     * Reads a file. `encoding: "none"` answers the seed's ReadFileStreamResult: the bytes as a one-chunk
     * `ReadableStream` in `content`, with the read's path, size, mimeType (application/octet-stream when the answer
     * has none) and timestamp.
     */
    async readFile(path, opts = {}) {
      if (opts.encoding === "none") {
        const answer = await files("read", { path, encoding: "base64" });
        const bytes = fromBase64(answer.content);
        return {
          success: true,
          path: answer.path,
          content: new ReadableStream({
            start(controller) {
              controller.enqueue(bytes);
              controller.close();
            },
          }),
          size: answer.size ?? bytes.byteLength,
          mimeType: answer.mimeType ?? "application/octet-stream",
          timestamp: answer.timestamp,
        };
      }
      return files("read", defined({ path, encoding: wireEncoding(opts.encoding) }));
    },
    async mkdir(path, opts = {}) {
      return files("mkdir", defined({ path, recursive: opts.recursive }));
    },
    async deleteFile(path, opts = {}) {
      return files("delete", defined({ path, recursive: opts.recursive, force: opts.force }));
    },
    async renameFile(oldPath, newPath) {
      return files("rename", { path: oldPath, newPath });
    },
    async moveFile(sourcePath, destinationPath) {
      return files("move", { path: sourcePath, newPath: destinationPath });
    },
    async listFiles(path = "/workspace", opts = {}) {
      return files("list", defined({ path, recursive: opts.recursive, includeHidden: opts.includeHidden }));
    },
    async exists(path) {
      return files("exists", { path });
    },
    /** GET /: SandboxInfo (protocol §7.8). */
    async getInfo() {
      return call("GET", "/");
    },
    /** DELETE /: wipes the sandbox, its files and its contexts (and each binding's Interpreter state). */
    async destroy() {
      await call("DELETE", "/");
    },
  };
}
