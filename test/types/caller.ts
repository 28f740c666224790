// Compile-only check that the caller declarations describe the seeds' caller examples (the engine package's quick start
// and the JavaScript package's "Existing Worker project"; protocol §7.1, §7.2) and README "Call it from your Worker".
import {
  runCode,
  getSandbox,
  validateSandboxId,
  Sandbox,
  SandboxError,
  FileNotFoundError,
  FileSystemError,
  ContextNotFoundError,
  ValidationFailedError,
  type ExecutionResult,
  type SandboxInfo,
  type CodeContext,
} from "../../worker-shim/caller.js";

export { Sandbox };

interface Env {
  Sandbox: DurableObjectNamespace;
  JAVASCRIPT: Fetcher;
  PYTHON: Fetcher;
  CALC: Fetcher;
}

export default {
  async fetch(_request: Request, env: Env): Promise<Response> {
    const calc = await runCode(env.CALC, "1 + 2 * 3");
    const squared: ExecutionResult = await runCode(env.JAVASCRIPT, "const x = Number(process.env.X);\nx ** 2", {
      envVars: { X: "12", Y: undefined },
      timeout: 5000,
      onStdout: (line) => console.log(line.text, line.timestamp),
      onResult: (r) => void r.formats().includes("json"),
      onError: (e) => console.error(e.name, e.message, e.traceback.join("\n")),
    });

    const sandbox = getSandbox(env.Sandbox, "user-42");
    const ctx: CodeContext = await sandbox.interpreter.createCodeContext({ binding: "JAVASCRIPT" });
    await sandbox.interpreter.runCode("counter = 1", { context: ctx });
    const two = await sandbox.interpreter.runCode("counter += 1; counter", { context: ctx }); // 2
    const viaDefault = await sandbox.interpreter.runCode("1 + 1", { binding: "PYTHON", envVars: { A: null } });
    const contexts: CodeContext[] = await sandbox.interpreter.listCodeContexts();
    await sandbox.interpreter.deleteCodeContext(ctx.id);
    await sandbox.setEnvVars({ GREETING: "hi", OLD: undefined });

    await sandbox.mkdir("/workspace/data", { recursive: true });
    await sandbox.writeFile("/workspace/data/a.txt", "hello", { encoding: "utf8" });
    await sandbox.writeFile("/workspace/data/b.bin", new Uint8Array([0, 1, 2]));
    const text: string = (await sandbox.readFile("/workspace/data/a.txt")).content;
    const stream: ReadableStream<Uint8Array> = (await sandbox.readFile("/workspace/data/b.bin", { encoding: "none" })).content;
    const listing = await sandbox.listFiles("/workspace", { recursive: true, includeHidden: false });
    const names = listing.files.map((f) => `${f.type}:${f.relativePath}:${f.size}`);
    const exists: boolean = (await sandbox.exists("/workspace/data/a.txt")).exists;
    await sandbox.renameFile("/workspace/data/a.txt", "/workspace/data/c.txt");
    await sandbox.moveFile("/workspace/data/c.txt", "/workspace/c.txt");
    await sandbox.deleteFile("/workspace/data", { recursive: true });

    const info: SandboxInfo = await sandbox.getInfo();
    const snapshots = info.contexts.map((c) => c.snapshot?.stale ?? null);
    try {
      await sandbox.readFile("/workspace/missing.txt");
    } catch (e) {
      if (e instanceof FileNotFoundError) console.log(e.code, e.httpStatus, e.context.errno, e.operation);
      else if (e instanceof FileSystemError || e instanceof ContextNotFoundError || e instanceof ValidationFailedError) throw e;
      else if (e instanceof SandboxError) console.log(e.timestamp);
    }
    validateSandboxId(getSandbox(env.Sandbox, "USER-42", { normalizeId: true }).id);
    await sandbox.destroy();
    return Response.json({ calc, squared, two: two.context?.executions, viaDefault, contexts, text, names, exists, info, snapshots, stream: stream.locked });
  },
};
