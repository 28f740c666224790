// `@sandbox-workers/core`: the caller side of the sandbox-workers protocol, version 1 (SPEC §7; README "Call it from
// your Worker").
import { DurableObject } from "cloudflare:workers";
import type {
  ErrorResponse,
  ExecutionError,
  ExecutionLogs,
  ExecutionResult as RuntimeExecutionResult,
  ExecutionResultEntry,
  ExecutionUsage,
  JsonValue,
  SnapshotInfo,
} from "./runtime.js";

export type { ErrorResponse, ExecutionError, ExecutionLogs, ExecutionResultEntry, ExecutionUsage, JsonValue, SnapshotInfo };

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

/** A result entry as `onResult` receives it. */
export interface ResultEntry extends ExecutionResultEntry {
  /** "text" and/or "json": the fields this entry carries. */
  formats(): Array<"text" | "json">;
}

export interface ExecutionCallbacks {
  onStdout?: (line: string) => void | Promise<void>;
  onStderr?: (line: string) => void | Promise<void>;
  onResult?: (result: ResultEntry) => void | Promise<void>;
  onError?: (error: ExecutionError) => void | Promise<void>;
}

/** Environment variables of a call; an `undefined` entry is left out of the request. */
export type EnvVars = Record<string, string | undefined>;

export interface RunCodeOptions extends ExecutionCallbacks {
  envVars?: EnvVars;
  /** Milliseconds until the request is aborted. */
  timeout?: number;
  /** Aborts the request (combined with `timeout` when both are given). */
  signal?: AbortSignal;
}

/**
 * Runs `code` statelessly on the runtime Worker behind a Service Binding (POST /execute). Throws synchronously for a
 * Durable Object namespace; throws a SandboxError for a transport failure or a non-2xx answer.
 */
export declare function runCode(target: Fetcher, code: string, options?: RunCodeOptions): Promise<ExecutionResult>;

// --- sandboxes -----------------------------------------------------------------------------------------------------

export interface GetSandboxOptions {
  /** Lower-cases the id first. */
  normalizeId?: boolean;
}

/** A code context's registry row. */
export interface CodeContext {
  id: string;
  binding: string;
  language: string;
  cwd: string;
  createdAt: string;
  lastUsed: string;
}

export interface CreateCodeContextOptions {
  /** The Service Binding name of a runtime Worker with contexts (e.g. "JAVASCRIPT"). */
  binding: string;
  /** Under /workspace; default /workspace. */
  cwd?: string;
  envVars?: EnvVars;
}

export interface SandboxRunCodeOptions extends ExecutionCallbacks {
  /** The context to run in (its id or the object `createCodeContext` answered). */
  context?: CodeContext | string;
  /** Without `context`: the binding's default context (its oldest), or the stateless path for a binding without contexts. */
  binding?: string;
  /** `null` removes a sandbox- or context-level variable for this call. */
  envVars?: Record<string, string | null | undefined>;
  timeout?: number;
  signal?: AbortSignal;
}

export interface CodeInterpreter {
  createCodeContext(options: CreateCodeContextOptions): Promise<CodeContext>;
  listCodeContexts(): Promise<CodeContext[]>;
  deleteCodeContext(context: CodeContext | string): Promise<void>;
  runCode(code: string, options: SandboxRunCodeOptions): Promise<ExecutionResult>;
}

export interface FileOperationResult {
  success: true;
  path: string;
  timestamp: string;
}

export interface ReadFileResult extends FileOperationResult {
  content: string;
  encoding: "utf-8" | "base64";
  isBinary: boolean;
  mimeType: string;
  size: number;
}

export interface MkdirResult extends FileOperationResult {
  recursive: boolean;
}

export interface RenameFileResult extends FileOperationResult {
  newPath: string;
}

export interface FileInfo {
  name: string;
  absolutePath: string;
  relativePath: string;
  type: "file" | "directory";
  size: number;
  modifiedAt: string;
  mode: string;
  permissions: { readable: boolean; writable: boolean; executable: boolean };
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

/** `sandbox.getInfo()` (SPEC §7.8). */
export interface SandboxInfo {
  id: string;
  createdAt: string;
  lastUsed: string;
  envVars: Record<string, string>;
  contexts: SandboxContextInfo[];
  fileApi: boolean;
  workspace: { files: number; bytes: number };
  expiresAt: number | null;
}

export type WriteFileContent = string | Uint8Array | ArrayBuffer | ArrayBufferView | ReadableStream<Uint8Array>;

export interface SandboxHandle {
  readonly id: string;
  readonly interpreter: CodeInterpreter;
  /** Sandbox-level variables; `undefined` or `null` removes a key. */
  setEnvVars(envVars: Record<string, string | null | undefined>): Promise<void>;
  /** A string is sent with `encoding` ("utf8"/"utf-8" default, "base64"); bytes and streams are sent whole. */
  writeFile(path: string, content: WriteFileContent, options?: { encoding?: string }): Promise<FileOperationResult>;
  readFile(path: string, options: { encoding: "none" }): Promise<ReadableStream<Uint8Array>>;
  readFile(path: string, options?: { encoding?: string }): Promise<ReadFileResult>;
  mkdir(path: string, options?: { recursive?: boolean }): Promise<MkdirResult>;
  deleteFile(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<FileOperationResult>;
  renameFile(oldPath: string, newPath: string): Promise<RenameFileResult>;
  moveFile(sourcePath: string, destinationPath: string): Promise<RenameFileResult>;
  listFiles(path?: string, options?: { recursive?: boolean; includeHidden?: boolean }): Promise<ListFilesResult>;
  exists(path: string): Promise<FileExistsResult>;
  getInfo(): Promise<SandboxInfo>;
  /** Wipes the sandbox: files, contexts, env, and each binding's Interpreter state. */
  destroy(): Promise<void>;
}

/**
 * A handle on one sandbox of the Sandbox Durable Object namespace. Synchronous: throws for a Service Binding or an
 * invalid id (ValidationFailedError); no request is made until a method is called.
 */
export declare function getSandbox(
  namespace: DurableObjectNamespace,
  id: string,
  options?: GetSandboxOptions,
): SandboxHandle;

/** Throws ValidationFailedError unless `id` is a valid sandbox id; returns it. */
export declare function validateSandboxId(id: string): string;

/**
 * The Sandbox Durable Object: export it from the caller Worker's entry and bind it (SQLite-backed) as a Durable
 * Object, e.g. `Sandbox`.
 */
export declare class Sandbox<Env = unknown> extends DurableObject<Env> {
  fetch(request: Request): Promise<Response>;
  alarm(): Promise<void>;
}

// --- errors (SPEC §7.12) ---------------------------------------------------------------------------------------------

export type ErrorCode =
  | "FILE_NOT_FOUND"
  | "FILE_EXISTS"
  | "PERMISSION_DENIED"
  | "IS_DIRECTORY"
  | "NOT_DIRECTORY"
  | "FILE_TOO_LARGE"
  | "NO_SPACE"
  | "FILESYSTEM_ERROR"
  | "CONTEXT_NOT_FOUND"
  | "VALIDATION_FAILED"
  | "CODE_EXECUTION_ERROR"
  | "NOT_SUPPORTED"
  | "INTERNAL_ERROR";

export declare class SandboxError extends Error {
  constructor(errorResponse?: Partial<ErrorResponse> & Record<string, unknown>);
  readonly code: ErrorCode | string;
  readonly context: Record<string, unknown>;
  readonly httpStatus: number;
  readonly timestamp: string;
  readonly operation: string | undefined;
  readonly errorResponse: ErrorResponse;
  toJSON(): ErrorResponse & { name: string };
}
export declare class FileNotFoundError extends SandboxError {}
export declare class FileExistsError extends SandboxError {}
export declare class FileTooLargeError extends SandboxError {}
export declare class PermissionDeniedError extends SandboxError {}
/** NO_SPACE, IS_DIRECTORY, NOT_DIRECTORY and FILESYSTEM_ERROR. */
export declare class FileSystemError extends SandboxError {}
export declare class ContextNotFoundError extends SandboxError {}
export declare class ValidationFailedError extends SandboxError {}
export declare class CodeExecutionError extends SandboxError {}
export declare class NotSupportedError extends SandboxError {}

/** The SandboxError subclass for an ErrorResponse's `code` (the base class for an unknown code). */
export declare function errorFromResponse(body: Partial<ErrorResponse> & Record<string, unknown>): SandboxError;
