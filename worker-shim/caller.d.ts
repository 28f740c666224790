// `@sandbox-workers/core`: the caller side of the sandbox-workers protocol, version 1 (protocol §7; README "Call it from
// your Worker").
import { DurableObject } from "cloudflare:workers";
// The runtime's wire types, re-exported as they are; the few this file builds on are imported too.
import type {
  ExecutionError,
  ExecutionLogs,
  ExecutionResult as RuntimeExecutionResult,
  ExecutionResultEntry,
  SnapshotInfo,
} from "./runtime.js";

export type {
  ExecutionError, ExecutionLogs, ExecutionResultEntry, ExecutionUsage, InterpreterExecuteResponse,
  InterpreterExecuteRpcResult, InterpreterWorkspaceManifest, JsonValue, SnapshotInfo,
} from "./runtime.js";

/** The body of `POST /execute` on a runtime Worker. */
export interface ExecutionRequest {
  code: string;
  envVars?: Record<string, string>;
}

/** `GET /interpreter` on a runtime Worker. */
export interface InterpreterInfo {
  language: string;
  engine: string;
  contexts: boolean;
  protocol?: number;
}

// --- results -------------------------------------------------------------------------------------------------------

/** The caller's view of the context an execution ran in (absent on the stateless path). */
export interface ExecutionContextInfo {
  id: string;
  cwd: string;
  executions: number;
  snapshotMs?: number;
  /** The Sandbox's idle deadline (epoch ms), only when expiry is enabled. */
  expiresAt?: number;
  /** Only when this execution's state was not restored (it ran on a fresh instance): docs/snapshots.md. */
  restored?: false;
  restoreError?: RestoreError;
}

/** Why a context's state was not restored (docs/snapshots.md). */
export interface RestoreError {
  code: "BUILD_CHANGED" | "SNAPSHOT_DAMAGED" | "RESTORE_FAILED" | (string & {});
  message: string;
}

/** What `runCode` and `sandbox.interpreter.runCode` answer. Check `error`: guest errors never throw. */
export interface ExecutionResult extends RuntimeExecutionResult {
  /** Only for executions that ran in a code context. */
  executionCount?: number;
  context?: ExecutionContextInfo;
}

/** The seed's name for the logs of an ExecutionResult. */
export type ExecutionLog = ExecutionLogs;

/** A result entry as `onResult` receives it. */
export interface Result extends ExecutionResultEntry {
  /** "text" and/or "json": the fields this entry carries. */
  formats(): string[];
}
/** Our earlier name for `Result`. */
export type ResultEntry = Result;

/** One stdout or stderr line as `onStdout`/`onStderr` receive it; `timestamp` is when the callback fired (epoch ms). */
export interface OutputMessage {
  text: string;
  timestamp: number;
}

export interface ExecutionCallbacks {
  onStdout?: (output: OutputMessage) => void | Promise<void>;
  onStderr?: (output: OutputMessage) => void | Promise<void>;
  onResult?: (result: Result) => void | Promise<void>;
  onError?: (error: ExecutionError) => void | Promise<void>;
}

/** Environment variables of a call; an `undefined` entry is left out of the request. */
export type EnvVars = Record<string, string | undefined>;

// --- bindings --------------------------------------------------------------------------------------------------------

/** What a Service Binding to a runtime Worker is, structurally (a `Fetcher` is one). */
export type ServiceBindingTarget = { fetch(request: Request): Promise<Response> };

/** A Durable Object namespace of the caller's own `Sandbox` class (a `DurableObjectNamespace` is one). */
export type SandboxNamespace = {
  idFromName(name: string): unknown;
  get(id: unknown): { fetch(request: Request): Promise<Response> };
};

/**
 * The names of the Service Bindings in a caller's `Env`: its keys whose value has a `fetch` method. With
 * `getSandbox<Env>(...)`, every `binding` option takes only these, so a misspelt binding (or the Sandbox namespace
 * itself) does not compile.
 */
export type ServiceBindingName<Env> = {
  [K in keyof Env & string]: Env[K] extends ServiceBindingTarget ? K : never;
}[keyof Env & string];

/** The `Env` of an untyped `getSandbox(...)`: every name is a binding, so `binding` is any string. */
export type AnyEnv = Record<string, ServiceBindingTarget>;

// --- runCode -------------------------------------------------------------------------------------------------------

/** Options of `sandbox.interpreter.runCode`; `B` is the binding names it accepts. */
export interface RunCodeOptions<B extends string = string> extends ExecutionCallbacks {
  /** The context to run in (the object `createCodeContext`/`listCodeContexts` answered, or its id). */
  context?: CodeContext | string;
  /** Without `context`: the binding's default context (its oldest), or the stateless path for a binding without contexts. */
  binding?: B;
  /** `undefined` leaves a key out; `null` removes a sandbox- or context-level variable for this call. */
  envVars?: Record<string, string | null | undefined>;
  /** Milliseconds until the request is aborted (the guest is bounded by fuel regardless). */
  timeout?: number;
  /** Aborts the request (combined with `timeout` when both are given). */
  signal?: AbortSignal;
}

/** Options of the free `runCode`: a stateless call has no context and no binding to route through. */
export type StatelessRunCodeOptions = Omit<RunCodeOptions, "context" | "binding">;

/** Our earlier name for `RunCodeOptions`. */
export type SandboxRunCodeOptions<B extends string = string> = RunCodeOptions<B>;

/**
 * Runs `code` statelessly on the runtime Worker behind a Service Binding (POST /execute). Throws synchronously (a
 * plain Error) for a Durable Object namespace; throws a SandboxError for a transport failure or a non-2xx answer.
 */
export declare function runCode(
  target: ServiceBindingTarget | SandboxNamespace,
  code: string,
  options?: StatelessRunCodeOptions,
): Promise<ExecutionResult>;

// --- sandboxes -----------------------------------------------------------------------------------------------------

export interface SandboxOptions {
  /** Lower-cases the id first. */
  normalizeId?: boolean;
}
/** Our earlier name for `SandboxOptions`. */
export type GetSandboxOptions = SandboxOptions;

/** A code context's registry row; the times are Dates (the Sandbox answers ISO strings, the client converts them). */
export interface CodeContext {
  readonly id: string;
  readonly binding: string;
  readonly language: string;
  readonly cwd: string;
  readonly createdAt: Date;
  readonly lastUsed: Date;
}

export interface CreateContextOptions<B extends string = string> {
  /** The Service Binding name of a runtime Worker with contexts (e.g. "JAVASCRIPT"). */
  binding: B;
  /** Under /workspace; default /workspace. */
  cwd?: string;
  envVars?: EnvVars;
}
/** Our earlier name for `CreateContextOptions`. */
export type CreateCodeContextOptions<B extends string = string> = CreateContextOptions<B>;

export interface CodeInterpreter<B extends string = string> {
  createCodeContext(options: CreateContextOptions<B>): Promise<CodeContext>;
  listCodeContexts(): Promise<CodeContext[]>;
  /** By id (or the context object itself). */
  deleteCodeContext(context: CodeContext | string): Promise<void>;
  runCode(code: string, options?: RunCodeOptions<B>): Promise<ExecutionResult>;
}

export interface FileOperationResult {
  success: true;
  path: string;
  timestamp: string;
}
export type WriteFileResult = FileOperationResult;
export type DeleteFileResult = FileOperationResult;

/** Any string is sent ("utf8" becomes "utf-8"); the Sandbox accepts utf-8 and base64. */
export type FileEncoding = "utf-8" | "utf8" | "base64" | "none";

export interface WriteFileOptions {
  encoding?: string;
}

export interface ReadFileOptions {
  encoding?: Exclude<FileEncoding, "none">;
}

export interface ReadFileResult extends FileOperationResult {
  content: string;
  encoding: "utf-8" | "base64";
  isBinary: boolean;
  mimeType: string;
  size: number;
}

/** `readFile(path, { encoding: "none" })`: the bytes as a stream (one chunk). */
export interface ReadFileStreamResult {
  success: true;
  path: string;
  content: ReadableStream<Uint8Array>;
  size: number;
  /** application/octet-stream when the read answered none. */
  mimeType: string;
  timestamp: string;
}

export interface MkdirResult extends FileOperationResult {
  recursive: boolean;
}

export interface DeleteFileOptions {
  recursive?: boolean;
  force?: boolean;
}

export interface RenameFileResult extends FileOperationResult {
  newPath: string;
}
export type MoveFileResult = RenameFileResult;

export interface FileInfo {
  name: string;
  absolutePath: string;
  relativePath: string;
  /** The Sandbox answers "file" or "directory". */
  type: "file" | "directory" | "symlink" | "other";
  size: number;
  modifiedAt: string;
  mode: string;
  permissions: { readable: boolean; writable: boolean; executable: boolean };
}

export interface ListFilesOptions {
  recursive?: boolean;
  includeHidden?: boolean;
}

export interface ListFilesResult extends FileOperationResult {
  files: FileInfo[];
  count: number;
}

export interface FileExistsResult extends FileOperationResult {
  exists: boolean;
}

export interface SandboxContextInfo {
  id: string;
  binding: string;
  language: string;
  engine: string;
  cwd: string;
  createdAt: string;
  lastUsed: string;
  executions: number;
  snapshot: SnapshotInfo | null;
  /** The last execution whose state was not restored, and when (that execution's lastUsed). */
  restoreError?: RestoreError & { at: string };
}

/** `sandbox.getInfo()` (protocol §7.8). */
export interface SandboxInfo {
  id: string;
  createdAt: string;
  lastUsed: string;
  envVars: Record<string, string>;
  contexts: SandboxContextInfo[];
  /** false when the caller sets SANDBOX_FILE_API to "disabled". */
  fileApi: boolean;
  workspace: { files: number; bytes: number };
  expiresAt: number | null;
}

export type WriteFileContent = string | Uint8Array | ArrayBuffer | ArrayBufferView | ReadableStream<Uint8Array>;

/** A handle on one sandbox; `B` is the binding names its `interpreter` accepts. */
export interface SandboxClient<B extends string = string> {
  readonly id: string;
  readonly interpreter: CodeInterpreter<B>;
  /** Sandbox-level variables; `undefined` or `null` removes a key. */
  setEnvVars(envVars: Record<string, string | null | undefined>): Promise<void>;
  /** A string is sent with `encoding` ("utf8"/"utf-8" default, "base64"); bytes and streams are sent whole. */
  writeFile(path: string, content: WriteFileContent, options?: WriteFileOptions): Promise<WriteFileResult>;
  readFile(path: string, options: { encoding: "none" }): Promise<ReadFileStreamResult>;
  readFile(path: string, options?: ReadFileOptions): Promise<ReadFileResult>;
  mkdir(path: string, options?: { recursive?: boolean }): Promise<MkdirResult>;
  deleteFile(path: string, options?: DeleteFileOptions): Promise<DeleteFileResult>;
  renameFile(oldPath: string, newPath: string): Promise<RenameFileResult>;
  moveFile(sourcePath: string, destinationPath: string): Promise<MoveFileResult>;
  /** `path` defaults to /workspace. */
  listFiles(path?: string, options?: ListFilesOptions): Promise<ListFilesResult>;
  exists(path: string): Promise<FileExistsResult>;
  getInfo(): Promise<SandboxInfo>;
  /** Wipes the sandbox: files, contexts, env, and each binding's Interpreter state. */
  destroy(): Promise<void>;
}
/** Our earlier name for `SandboxClient`. */
export type SandboxHandle<B extends string = string> = SandboxClient<B>;

/**
 * A handle on one sandbox of the Sandbox Durable Object namespace. Synchronous: throws for a Service Binding or an
 * invalid id (ValidationFailedError); no request is made until a method is called. Pass the Worker's `Env`
 * (`getSandbox<Env>(env.Sandbox, id)`) and every `binding` option is checked against its Service Bindings at compile
 * time; without it, `binding` is any string.
 */
export declare function getSandbox<Env = AnyEnv>(
  namespace: SandboxNamespace,
  id: string,
  options?: SandboxOptions,
): SandboxClient<ServiceBindingName<Env>>;

/** Throws ValidationFailedError (an Error) unless `id` is a valid sandbox id; returns it. */
export declare function validateSandboxId(id: string): string;

/** The request limits: a request (96 KiB), a files request (2 MiB), code (64 KiB). */
export declare const MAX_REQUEST_BYTES: number;
export declare const MAX_FILES_REQUEST_BYTES: number;
export declare const MAX_CODE_BYTES: number;

/**
 * The Sandbox Durable Object: export it from the caller Worker's entry and bind it (SQLite-backed) as a Durable
 * Object, e.g. `Sandbox`.
 */
export declare class Sandbox<Env = unknown> extends DurableObject<Env> {
  fetch(request: Request): Promise<Response>;
  alarm(): Promise<void>;
}

// --- errors (protocol §7.12) ---------------------------------------------------------------------------------------------

export declare const ErrorCode: {
  readonly FILE_NOT_FOUND: "FILE_NOT_FOUND";
  readonly FILE_EXISTS: "FILE_EXISTS";
  readonly PERMISSION_DENIED: "PERMISSION_DENIED";
  readonly IS_DIRECTORY: "IS_DIRECTORY";
  readonly NOT_DIRECTORY: "NOT_DIRECTORY";
  readonly FILE_TOO_LARGE: "FILE_TOO_LARGE";
  readonly NO_SPACE: "NO_SPACE";
  readonly FILESYSTEM_ERROR: "FILESYSTEM_ERROR";
  readonly CONTEXT_NOT_FOUND: "CONTEXT_NOT_FOUND";
  readonly VALIDATION_FAILED: "VALIDATION_FAILED";
  readonly CODE_EXECUTION_ERROR: "CODE_EXECUTION_ERROR";
  readonly INTERNAL_ERROR: "INTERNAL_ERROR";
  readonly NOT_SUPPORTED: "NOT_SUPPORTED";
};
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** protocol §3.8: the `operation` of an ErrorResponse. */
export declare const Operation: {
  readonly FILE_READ: "file.read";
  readonly FILE_WRITE: "file.write";
  readonly FILE_DELETE: "file.delete";
  readonly FILE_MOVE: "file.move";
  readonly FILE_RENAME: "file.rename";
  readonly FILE_STAT: "file.stat";
  readonly DIRECTORY_CREATE: "directory.create";
  readonly DIRECTORY_LIST: "directory.list";
  readonly CODE_EXECUTE: "code.execute";
  readonly CODE_CONTEXT_CREATE: "code.context.create";
  readonly CODE_CONTEXT_DELETE: "code.context.delete";
};
export type OperationType = (typeof Operation)[keyof typeof Operation];

/** The canonical HTTP status of a code (protocol §3.6); 500 for an unknown one. */
export declare function httpStatusForCode(code: ErrorCode | string): number;
/** The code of a workspace errno (protocol §3.7); FILESYSTEM_ERROR for any other errno. */
export declare function errorCodeForErrno(errno: string): ErrorCode;

/** Every non-2xx JSON answer (protocol §3.6), and what a SandboxError carries, its `context` typed per error class. */
export interface ErrorResponse<TContext = Record<string, unknown>> {
  code: ErrorCode;
  message: string;
  context: TContext;
  httpStatus: number;
  timestamp: string;
  operation?: OperationType;
  /** Typed as the seed's client types it; no answer of ours carries it. */
  suggestion?: string;
  /** Typed as the seed's client types it; no answer of ours carries it. */
  documentation?: string;
}

type FileContext = { path: string; operation: string; errno?: string; [key: string]: unknown };

export declare class SandboxError<TContext = Record<string, unknown>> extends Error {
  /** Missing fields are filled in (`httpStatus` from the code, `timestamp` now); `cause` becomes the Error's. */
  constructor(errorResponse?: Partial<ErrorResponse<TContext>>, options?: { cause?: unknown });
  readonly code: ErrorCode;
  readonly context: TContext;
  readonly httpStatus: number;
  readonly timestamp: string;
  readonly operation: OperationType | undefined;
  readonly errorResponse: ErrorResponse<TContext>;
  /** The ErrorResponse itself. */
  toJSON(): ErrorResponse<TContext>;
}
export declare class FileNotFoundError extends SandboxError<FileContext> {}
export declare class FileExistsError extends SandboxError<FileContext> {}
export declare class FileTooLargeError extends SandboxError<FileContext & { maxSize: number; actualSize: number }> {}
export declare class PermissionDeniedError extends SandboxError<FileContext> {}
/** NO_SPACE, IS_DIRECTORY, NOT_DIRECTORY and FILESYSTEM_ERROR. */
export declare class FileSystemError extends SandboxError<FileContext> {}
export declare class ContextNotFoundError extends SandboxError<{ contextId: string; [key: string]: unknown }> {}
export declare class ValidationFailedError extends SandboxError<{
  validationErrors?: Array<{ field: string; message: string }>;
  [key: string]: unknown;
}> {}
export declare class CodeExecutionError extends SandboxError<{
  contextId?: string;
  ename?: string;
  evalue?: string;
  [key: string]: unknown;
}> {}
export declare class NotSupportedError extends SandboxError<{ feature: string; [key: string]: unknown }> {}

/**
 * The SandboxError subclass for an ErrorResponse's `code` (the base class for an unknown code); a body that is not an
 * ErrorResponse is SandboxError INTERNAL_ERROR `HTTP <status>: <statusText>`.
 */
export declare function createErrorFromResponse(
  body: unknown,
  options?: { cause?: unknown; status?: number; statusText?: string },
): SandboxError;

/** Thrown by an Engine for a resource limit; never crosses the wire (a limit is an ExecutionResult's `error`). */
export { ExecutionLimitError } from "./runtime.js";
