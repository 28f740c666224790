// A real `wrangler dev` process (wrangler + its workerd children, in their own process group) over a --persist-to
// directory, for tests that must survive a real process death: the restart matrix (restart-matrix.test.mjs) and the
// crash-consistency soak (test/soak/crash-consistency.mjs). Several configs run in one process; the first one is the
// Worker that answers on the port (wrangler serves only the primary config), the others are reached through its
// Service Bindings.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { unstable_readConfig } from "wrangler";
import { ROOT, FIXTURES, WRANGLER_CONFIG, languageConfig } from "./helpers.mjs";

const WRANGLER_JS = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");
const live = new Set(); // process group ids still running: killed at exit whatever happens
process.on("exit", () => {
  for (const pgid of live) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {}
  }
});
// A signal would end this process without "exit": turn it into an exit so the groups above are killed too.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.once(signal, () => process.exit(128 + 2));

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Writes `<dir>/<name>.json`: a runtime Worker config with the same settings as `language`'s wrangler.jsonc (rules,
 * compatibility, Durable Objects, migrations, vars) but another entry module (a fixture, relative to FIXTURES) and
 * Worker name. Returns its path.
 */
export function variantConfig(dir, { name, language = "javascript", entry }) {
  const c = unstable_readConfig({ config: languageConfig(language) });
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({
    name,
    main: path.join(FIXTURES, entry),
    compatibility_date: c.compatibility_date,
    compatibility_flags: c.compatibility_flags,
    rules: c.rules,
    durable_objects: c.durable_objects,
    migrations: c.migrations,
    vars: c.vars,
  }));
  return file;
}

/** Writes `<dir>/caller.json`: fixtures/context-caller.js with a Service Binding per `bindings` entry (binding → Worker name). */
export function callerConfig(dir, bindings) {
  const c = unstable_readConfig({ config: WRANGLER_CONFIG });
  const file = path.join(dir, "caller.json");
  writeFileSync(file, JSON.stringify({
    name: "caller",
    main: path.join(FIXTURES, "context-caller.js"),
    compatibility_date: c.compatibility_date,
    compatibility_flags: c.compatibility_flags,
    services: Object.entries(bindings).map(([binding, service]) => ({ binding, service })),
  }));
  return file;
}

/**
 * Starts `wrangler dev -c <configs[0]> -c … --persist-to <persist>` and resolves once the primary Worker answers
 * `GET <readyPath>` with a 2xx (within `startMs`, else the process is killed and this rejects with its log's tail).
 * Returns { url, pid, kill(), log() }: kill() SIGKILLs the whole process group (wrangler and workerd) and resolves
 * when wrangler has exited.
 */
export async function startWrangler(configs, persist, { readyPath = "/", startMs = 120_000 } = {}) {
  const port = await freePort();
  const args = [WRANGLER_JS, "dev", ...configs.flatMap((c) => ["-c", c]), "--persist-to", persist,
    "--ip", "127.0.0.1", "--port", String(port), "--show-interactive-dev-session=false"];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    detached: true, // its own process group: one signal reaches wrangler and every workerd it started
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` },
  });
  live.add(child.pid);
  let output = "";
  const keep = (d) => {
    output = (output + d).slice(-8000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  let dead = false;
  exited.then(() => {
    dead = true;
    live.delete(child.pid);
  });
  const kill = async () => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
    await exited;
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + startMs;
  for (;;) {
    if (dead) throw new Error(`wrangler dev exited before it was ready:\n${output}`);
    if (Date.now() > deadline) {
      await kill();
      throw new Error(`wrangler dev not ready within ${startMs} ms:\n${output}`);
    }
    try {
      const res = await fetch(url + readyPath, { signal: AbortSignal.timeout(5000) });
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, pid: child.pid, kill, log: () => output };
}
