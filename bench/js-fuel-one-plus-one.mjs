// Benchmark (not a test): the fuel of `1 + 1`, one stateless run on a fresh instance through the core's _sw_wasmify_run
// (as engines/javascript/test/wasmify.test.mjs), for one or more engine.wasm builds (docs/javascript-conformance.md).
//
//   node bench/js-fuel-one-plus-one.mjs OLD.wasm NEW.wasm
import fs from 'node:fs';
import { core, encoder, makeImportObject, bindGuestMemory, unbindGuestMemory, withBytes, engineArg } from '../engines/javascript/test/core-harness.mjs';
for (const enginePath of process.argv.slice(2)) {
  const mod = new WebAssembly.Module(fs.readFileSync(enginePath));
  const config = { args: ['sandbox'], env: [], workspace: false, preopens: [], stdio: 'capture', referencePolicy: true };
  const host = withBytes(encoder.encode(JSON.stringify(config)), (p, n) => core._sw_wasi_host_new(p, n, 0));
  const instance = new WebAssembly.Instance(mod, makeImportObject(core, host, mod));
  bindGuestMemory(core, host, instance.exports.memory);
  core.wasmifyBind(host, instance);
  const src = encoder.encode('1 + 1'), env = encoder.encode('');
  const status = withBytes(src, (cp, cn) => withBytes(env, (ep, en) => core._sw_wasmify_run(host, ...engineArg('javascript'), cp, cn, ep, en, 50_000_000)));
  console.log(enginePath, 'status', status, 'fuel', core._sw_wasi_fuel_consumed(host));
  core.wasmifyUnbind(host); unbindGuestMemory(core, host); core._sw_wasi_host_free(host);
}
