// Compile-only check that the published declarations describe the engine package's quick start (protocol §5.7).
import Worker, {
  defineInterpreterRuntime,
  ExecutionLimitError,
  InterpreterWorker,
  javascriptEngine,
  type Engine,
  type EngineOutcome,
  type ErrorResponse,
  type ExecutionResult,
} from "../../engines/javascript/worker.js";
import { engine as calc } from "../../engines/calc/engine.js";
import { evaluate } from "../../engines/calc/calc.js";

const engine: Engine = {
  language: "calc",
  engineName: "calc 1.0",
  build: "calc-1.0",
  limits: { fuel: 0, memoryBytes: 0, codeBytes: 65536, requestBytes: 98304 },
  run(payload): EngineOutcome {
    if (payload.code.length > 1e6) throw new ExecutionLimitError("Execution fuel exhausted");
    const value = evaluate(payload.code, payload.envVars ?? {});
    return { logs: { stdout: [], stderr: [] }, results: [{ text: String(value) }] };
  },
};

const asyncEngine: Engine = { ...engine, async run() { return { logs: { stdout: [], stderr: [] }, results: [{ json: { a: [1, null] } }] }; } };

export const runtimes = [
  defineInterpreterRuntime(engine).Worker,
  defineInterpreterRuntime(asyncEngine).Worker,
  defineInterpreterRuntime(javascriptEngine).Worker,
  Worker,
];

export class MyWorker extends InterpreterWorker {
  protected readonly engine = calc;
  override async fetch(request: Request): Promise<Response> {
    if (new URL(request.url).pathname === "/healthz") return new Response("ok");
    return super.fetch(request);
  }
}

export function describe(r: ExecutionResult | ErrorResponse): string {
  return "results" in r ? `${r.language}: ${r.results.length}` : `${r.httpStatus} ${r.code}`;
}

// --- an Engine written in JavaScript with sessions, on ./wasi, ./snapshot and ./wasmify (docs/engine-authors.md) ---
import {
  createWasi,
  budget,
  hasOpenGuestFds,
  type WasiHost,
  ExecutionLimitError as WasiLimitError,
} from "../../worker-shim/wasi.js";
import { restoreMemory, captureMemory, PAGE_BYTES, type MemoryImage } from "../../worker-shim/snapshot.js";
import {
  runWasmify,
  bootWasmifySession,
  restoreWasmifySession,
  type WasmifySession,
  type WasmifyDriver,
  type WasmifyMessage,
} from "../../worker-shim/wasmify.js";
import type { SessionInstance, SessionOptions, SessionSnapshotSource, SessionOutcome, JavaScriptEngine } from "../../engines/javascript/worker.js";
import type { EngineInstance } from "../../worker-shim/runtime.js";

declare const guest: WebAssembly.Module;
declare const stdlib: ArrayBuffer;

class TypedSession implements SessionInstance {
  #wasi: WasiHost;
  #instance: WebAssembly.Instance;
  invalid = false;
  cwd: string;
  constructor(options: SessionOptions, source?: SessionSnapshotSource) {
    this.#wasi = createWasi(guest, stdlib, budget(1000), {}, options.workspace, { imports: { env: { now: () => 0 } } });
    this.#instance = new WebAssembly.Instance(guest, this.#wasi.imports);
    this.cwd = options.cwd;
    if (source) {
      restoreMemory(this.#instance.exports.memory as WebAssembly.Memory, source);
      this.#wasi.bind(this.#instance);
    } else {
      this.#wasi.initialize(this.#instance);
    }
  }
  execute({ code }: { code: string; envVars: Record<string, string> }): SessionOutcome {
    this.#wasi.reset();
    if (code.length > PAGE_BYTES) throw new WasiLimitError("too long");
    return { logs: { stdout: this.#wasi.stdout(), stderr: this.#wasi.stderr() }, results: [], usage: this.#wasi.usage(), cwd: this.cwd };
  }
  canSnapshot(): boolean {
    return !this.invalid && !hasOpenGuestFds(this.#wasi);
  }
  snapshot() {
    return { handle: 1n, extra: { n: 1 }, memory: this.#instance.exports.memory as WebAssembly.Memory };
  }
  close(): void {
    this.#wasi.close();
  }
}

export const sessionEngine: JavaScriptEngine = {
  language: "typed",
  engineName: "typed 1.0",
  build: "typed-1",
  limits: { fuel: 1000, memoryBytes: 1 << 24, codeBytes: 65536, requestBytes: 98304 },
  run: () => ({ logs: { stdout: [], stderr: [] }, results: [] }),
  sessions: { boot: (o) => new TypedSession(o), restore: (o, s) => new TypedSession(o, s) },
};
export const sessionRuntime = defineInterpreterRuntime(sessionEngine);

// An engine that declares a boot image (docs/engine-authors.md, "A boot image"): its instances come from
// EngineInstances, run's second argument and SessionOptions.instances.
export const imageEngine: JavaScriptEngine = {
  ...sessionEngine,
  module: guest,
  bootImage: stdlib,
  run(_payload, { instances }) {
    const wasi = createWasi(guest, null, budget(1000), {}, null);
    try {
      const started: { instance: EngineInstance; handle: bigint } | null = instances.fromImage(wasi);
      const exports = started ? started.instance.exports : new WebAssembly.Instance(guest, wasi.imports).exports;
      return { logs: { stdout: [], stderr: [] }, results: [{ text: `${Object.keys(exports).length} ${started?.handle ?? 0n}` }] };
    } finally {
      wasi.close();
    }
  },
  sessions: {
    boot: (o) => new TypedSession(o),
    restore(o: SessionOptions, s: SessionSnapshotSource) {
      const wasi = createWasi(guest, null, budget(1000), {}, o.workspace);
      const { instance }: { instance: EngineInstance } = o.instances.restore(wasi, s);
      void instance.exports;
      return new TypedSession(o, s);
    },
  },
};

export function wasmifyUsage(module: WebAssembly.Module, memory: WebAssembly.Memory): [number, WasmifySession, WasmifySession] {
  const image: MemoryImage = captureMemory(memory, { handle: 2n });
  const out = runWasmify(createWasi(module, null, budget(10), null, null), new WebAssembly.Instance(module), "javascript", { code: "1" });
  const s = bootWasmifySession(createWasi(module, null, null, null, null), new WebAssembly.Instance(module), "python", { cwd: "/workspace" });
  const r = restoreWasmifySession(createWasi(module, null, null, null, null), new WebAssembly.Instance(module), "perl", image);
  image.close();
  return [out.results.length, s, r];
}

// A WasmifyDriver written in JavaScript (the wasmify counter test engine's shape).
export const jsDriver: WasmifyDriver = {
  initMethod: 1,
  initRequest: [[1, 0]],
  sessionBoot: "get",
  evaluate: (ctx, code) => ctx.invoke(2, [[1, ctx.handle], [2, code]]).string(1) ?? "",
  sessionExecute(ctx, { code, cwd }) {
    const m: WasmifyMessage = ctx.invoke(3, [[1, ctx.handle], [2, code], [3, cwd]]);
    return { results: [{ text: m.string(1) ?? "" }], cwd: m.string(3) };
  },
  runOnce: (ctx, { code }) => ({ results: [{ text: ctx.invoke(2, [[1, ctx.handle], [2, new TextEncoder().encode(code)], [4, true]]).string(1) ?? "" }] }),
  afterRestore(ctx, { bootImage }) {
    void ctx.handle;
    void bootImage;
  },
};

export const asyncJsDriver: WasmifyDriver = {
  ...jsDriver,
  async sessionExecute(ctx, { code }) {
    await null;
    return { results: [{ text: ctx.invoke(2, [[1, ctx.handle], [2, code]]).string(1) ?? "" }] };
  },
};

export function jsDriverUsage(module: WebAssembly.Module): WasmifySession {
  runWasmify(createWasi(module, null, budget(10), null, null), new WebAssembly.Instance(module), jsDriver, { code: "get" });
  return bootWasmifySession(createWasi(module, null, null, null, null), new WebAssembly.Instance(module), jsDriver);
}

// Asynchronous sessions: boot, restore and execute may answer promises.
export const asyncSessionsEngine: JavaScriptEngine = {
  ...sessionEngine,
  sessions: {
    boot: async (o) => new TypedSession(o),
    restore: async (o, s) => new TypedSession(o, s),
  },
};
export const asyncInstance: SessionInstance = {
  cwd: "/workspace",
  invalid: false,
  execute: async () => ({ logs: { stdout: [], stderr: [] }, results: [], cwd: "/workspace" }),
  canSnapshot: () => false,
  snapshot: () => ({ handle: 1n, extra: {}, memory: new WebAssembly.Memory({ initial: 1 }) }),
  close() {},
};

// engines/lua/engine.d.ts: the Lua engine is a JavaScriptEngine with sessions.
import { luaEngine } from "../../engines/lua/engine.js";
const luaSessions: NonNullable<JavaScriptEngine["sessions"]> = luaEngine.sessions;
const luaLimits: number = luaEngine.limits.fuel;
void luaSessions;
void luaLimits;
