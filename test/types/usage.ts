// Compile-only check that the published declarations describe the seed's quick start (seed 000).
import Worker, {
  defineInterpreterRuntime,
  ExecutionLimitError,
  InterpreterWorker,
  javascriptEngine,
  type Engine,
  type EngineOutcome,
  type ErrorResponse,
  type ExecutionResult,
} from "../../worker-shim/index.js";
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
