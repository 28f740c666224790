// The calc Engine: stateless only (no `sessions`), so GET /interpreter reports contexts: false.
import { CalcError, evaluate } from "./calc.js";

export const engine = {
  language: "calc",
  engineName: "calc 1.0",
  build: "calc-1.0",
  // memoryBytes: a nominal 1 MiB (calc allocates next to nothing); runEngineConformance requires every size > 0.
  limits: { fuel: 0, memoryBytes: 1048576, codeBytes: 65536, requestBytes: 98304 },
  run(payload) {
    const logs = { stdout: [], stderr: [] };
    try {
      const value = evaluate(payload.code, payload.envVars ?? {});
      return { logs, results: [{ text: String(value) }] };
    } catch (error) {
      // A guest-level error is an outcome, never a throw (protocol §5.1: `run`).
      if (error instanceof CalcError) return { logs, results: [], error: { name: error.name, message: error.message, traceback: [] } };
      throw error;
    }
  },
};
