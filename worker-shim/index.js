// The runtime Worker `npm start` serves: the C++ core fronting the calc example engine.
// (The JavaScript engine replaces calc here once it lands.)
import { defineInterpreterRuntime } from "./runtime.js";
import { engine } from "../engines/calc/engine.js";

export { defineInterpreterRuntime, ExecutionLimitError, InterpreterWorker } from "./runtime.js";
export default defineInterpreterRuntime(engine).Worker;
