// Compile-only check that an app written against the seed's `@sandbox-workers/core` compiles unchanged against ours
// (issue 24): it imports the package by its published name (tsconfig `paths` maps it to worker-shim/caller.d.ts, as the
// packed tarball's `exports` types condition does), uses the API as the seeds' quick starts do (runCode over a Service
// Binding, a Worker that hosts the Sandbox, code contexts bound by binding name: protocol §7.1, §7.2, §7.4), and the
// shapes the seed's client answers: OutputMessage callbacks, ReadFileStreamResult, Date times on CodeContext, typed
// binding names, the error classes, ErrorCode and Operation as values. The lines under `@ts-expect-error` must NOT
// compile: tsc fails if they do.
import {
  runCode,
  getSandbox,
  validateSandboxId,
  createErrorFromResponse,
  httpStatusForCode,
  errorCodeForErrno,
  ErrorCode,
  Operation,
  SandboxError,
  FileNotFoundError,
  FileExistsError,
  FileTooLargeError,
  PermissionDeniedError,
  FileSystemError,
  ContextNotFoundError,
  ValidationFailedError,
  CodeExecutionError,
  NotSupportedError,
  ExecutionLimitError,
  MAX_CODE_BYTES,
  type AnyEnv,
  type CodeContext,
  type CodeInterpreter,
  type CreateContextOptions,
  type ErrorResponse,
  type ExecutionError,
  type ExecutionResult,
  type FileInfo,
  type OperationType,
  type OutputMessage,
  type ReadFileResult,
  type ReadFileStreamResult,
  type Result,
  type RunCodeOptions,
  type SandboxClient,
  type SandboxInfo,
  type ServiceBindingName,
  type StatelessRunCodeOptions,
} from "@sandbox-workers/core";

// The caller's Worker entry re-exports the Sandbox Durable Object (protocol §7).
export { Sandbox } from "@sandbox-workers/core";

interface Env {
  Sandbox: DurableObjectNamespace;
  JAVASCRIPT: Fetcher;
  PYTHON: Fetcher;
  CALC: Fetcher;
  NOTES: KVNamespace;
}

// ServiceBindingName<Env> is exactly the Service Bindings: not the Durable Object namespace, not the KV namespace.
type Bindings = ServiceBindingName<Env>;
const everyBinding: Bindings[] = ["JAVASCRIPT", "PYTHON", "CALC"];
// @ts-expect-error the Sandbox namespace is no Service Binding
const notABinding: Bindings = "Sandbox";
// @ts-expect-error a KV namespace is no Service Binding
const notABindingEither: Bindings = "NOTES";
// Without an Env, any string is a binding name.
const anyName: ServiceBindingName<AnyEnv> = "ANYTHING";

export default {
  async fetch(_request: Request, env: Env): Promise<Response> {
    // The free runCode over a Service Binding (protocol §7.1), as in the engine package's quick start.
    const calc = await runCode(env.CALC, "1 + 2 * 3"); // { results: [{ text: "7" }], ... }
    const seven: string | undefined = calc.results[0]?.text;

    // The JavaScript package's "Existing Worker project": envVars and the callbacks (OutputMessage and Result).
    const stdout: string[] = [];
    const times: number[] = [];
    const options: StatelessRunCodeOptions = {
      envVars: { X: "12" },
      timeout: 5000,
      onStdout: (m) => {
        stdout.push(m.text);
        times.push(m.timestamp);
      },
      onStderr: (m: OutputMessage) => void stdout.push(m.text),
      onResult: (r: Result) => void r.formats().includes("json"),
      onError: (e: ExecutionError) => void e.traceback.join("\n"),
    };
    const squared: ExecutionResult = await runCode(env.JAVASCRIPT, "const x = Number(process.env.X);\nx ** 2", options);

    // A sandbox hosted by this Worker, contexts bound by the name of a Service Binding (protocol §7.4).
    const untyped = getSandbox(env.Sandbox, "user-42");
    const ctx = await untyped.interpreter.createCodeContext({ binding: "JAVASCRIPT" });
    await untyped.interpreter.runCode("counter = 1", { context: ctx });
    await untyped.interpreter.runCode("counter += 1; counter", { context: ctx }); // 2
    await untyped.interpreter.runCode("1 + 1", { binding: "CALC" }); // stateless through the sandbox (protocol §7.5)
    await untyped.interpreter.runCode("1 + 1", { binding: "WHATEVER" }); // untyped: any string compiles

    // Typed bindings: getSandbox<Env>.
    const sandbox: SandboxClient<Bindings> = getSandbox<Env>(env.Sandbox, "user-42", { normalizeId: true });
    const py: CodeContext = await sandbox.interpreter.createCodeContext({ binding: "PYTHON", cwd: "/workspace", envVars: { A: "1", B: undefined } });
    // @ts-expect-error a misspelt binding is a compile error
    await sandbox.interpreter.createCodeContext({ binding: "PYTHONN" });
    // @ts-expect-error the Sandbox namespace itself is not a binding
    await sandbox.interpreter.runCode("1", { binding: "Sandbox" });
    // @ts-expect-error a misspelt binding in runCode too
    await sandbox.interpreter.runCode("1", { binding: "JAVASCRIPTT" });
    const opts: RunCodeOptions<Bindings> = { binding: "JAVASCRIPT", onStdout: ({ text }) => void stdout.push(text) };
    const viaDefault = await sandbox.interpreter.runCode("print(1)", opts);
    const interp: CodeInterpreter<Bindings> = sandbox.interpreter;
    const create: CreateContextOptions<Bindings> = { binding: "CALC" };
    void interp;
    void create;

    // CodeContext times are Dates.
    const contexts: CodeContext[] = await sandbox.interpreter.listCodeContexts();
    const newest = Math.max(...contexts.map((c) => c.lastUsed.getTime()));
    const age: number = Date.now() - py.createdAt.getTime();
    const iso: string = py.createdAt.toISOString();
    await sandbox.interpreter.deleteCodeContext(py.id);

    // Files: readFile with encoding "none" answers a ReadFileStreamResult.
    await sandbox.writeFile("/workspace/b.bin", new Uint8Array([0, 1, 2]));
    const streamed: ReadFileStreamResult = await sandbox.readFile("/workspace/b.bin", { encoding: "none" });
    const reader = streamed.content.getReader();
    const first = await reader.read();
    const bytes: Uint8Array | undefined = first.value;
    const meta: [true, string, number, string, string] = [streamed.success, streamed.path, streamed.size, streamed.mimeType, streamed.timestamp];
    const text: ReadFileResult = await sandbox.readFile("/workspace/b.bin", { encoding: "base64" });
    // @ts-expect-error a ReadFileResult's content is a string, not a stream
    text.content.getReader();
    const listing = await sandbox.listFiles("/workspace", { recursive: true });
    const infos: FileInfo[] = listing.files;
    const info: SandboxInfo = await sandbox.getInfo();

    // Errors: the classes, their typed context, createErrorFromResponse, ErrorCode and Operation as values.
    try {
      await sandbox.readFile("/workspace/missing.txt");
    } catch (error) {
      if (error instanceof FileNotFoundError) {
        const path: string = error.context.path;
        const code: ErrorCode = error.code;
        const op: OperationType | undefined = error.operation;
        if (code === ErrorCode.FILE_NOT_FOUND && op === Operation.FILE_READ) console.log(path, error.httpStatus);
      } else if (error instanceof ContextNotFoundError) {
        const id: string = error.context.contextId;
        void id;
      } else if (error instanceof FileTooLargeError) {
        const max: number = error.context.maxSize;
        void max;
      } else if (
        error instanceof FileExistsError ||
        error instanceof PermissionDeniedError ||
        error instanceof FileSystemError ||
        error instanceof ValidationFailedError ||
        error instanceof CodeExecutionError ||
        error instanceof NotSupportedError
      ) {
        const body: ErrorResponse = error.toJSON();
        void body;
      } else if (error instanceof SandboxError) {
        console.log(error.timestamp, error.errorResponse.message);
      } else throw error;
    }
    const made: SandboxError = createErrorFromResponse({ code: "CONTEXT_NOT_FOUND", message: "gone" }, { cause: new Error("x") });
    const transport: SandboxError = createErrorFromResponse(undefined, { status: 502, statusText: "Bad Gateway" });
    const status: number = httpStatusForCode(ErrorCode.NO_SPACE);
    const fromErrno: ErrorCode = errorCodeForErrno("ENOENT");
    const limit = new ExecutionLimitError("Execution fuel exhausted");
    validateSandboxId("user-42");
    await sandbox.destroy();
    return Response.json({
      seven, squared, stdout, times, viaDefault, newest, age, iso, bytes, meta, infos, info, made, transport, status,
      fromErrno, limit: limit.name, everyBinding, notABinding, notABindingEither, anyName, max: MAX_CODE_BYTES,
    });
  },
};
