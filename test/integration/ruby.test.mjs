// The Ruby runtime Worker (engines/ruby/wrangler.jsonc) in workerd through Miniflare: the probe, stateless results
// (protocol §10.3 items 63-68), result forms, logs, ENV, limits, isolation between requests, the hostile-code table of
// engines/ruby/README.md, and code contexts through a caller Worker with a real getFiles callback and on-disk Durable
// Object storage, across a restart (the same cases as Perl's, protocol §10.5 items 123-126; docs/code-contexts.md "Ruby").
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { jsonBody } from "./helpers.mjs";
import { useLanguageRuntime, hostileCases, contextText } from "./language-runtime.mjs";

const rt = useLanguageRuntime("ruby");

const text = contextText;

describe("the Ruby runtime Worker: probe", () => {
  it("GET /interpreter reports ruby with contexts", async () => {
    const body = await jsonBody(await rt.fetch("https://runtime.test/interpreter"));
    assert.equal(body.language, "ruby");
    assert.match(body.engine, /^CRuby 4\.0\.\d+ \/ ruby\.wasm 2\.10\.1$/);
    assert.equal(body.contexts, true);
    assert.equal(body.protocol, 1);
    // The engine string is the build script's; the VM itself must agree.
    const r = await rt.exec("[RUBY_VERSION, RUBY_ENGINE]");
    assert.deepEqual(r.results, [{ json: [body.engine.split(" ")[1], "ruby"] }]);
  });
});

// The libraries users reach for (issue 28; engines/ruby/stdlib.txt), checked by the values they compute.
describe("the Ruby runtime Worker: standard library", () => {
  const ok = (r) => {
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.equal(r.results.length, 1, JSON.stringify(r));
    return r.results[0].json;
  };

  it('require "csv" (a bundled gem) parses with headers and numeric converters, and generates', async () => {
    const r = await rt.exec(`require "csv"
rows = CSV.parse("name,score\nada,9.5\ncy,8.25\n", headers: true, converters: :numeric)
[rows.map { |row| [row["name"], row["score"]] }, rows.sum { |row| row["score"] }, CSV.generate_line(["a,b", 1, nil]),
 CSV.generate { |csv| csv << [1, "x"] }]`);
    assert.deepEqual(ok(r), [[["ada", 9.5], ["cy", 8.25]], 17.75, '"a,b",1,\n', "1,x\n"]);
  });

  it("json, date, time, digest, securerandom and set", async () => {
    const r = await rt.exec(`%w[json date time digest securerandom set].each { |lib| require lib }
[JSON.parse('{"a":[1,2]}')["a"].sum, Date.new(2024, 2, 28).next_day.to_s, Time.iso8601("2024-01-15T10:00:00Z").to_i,
 (Date.parse("2024-03-01") - Date.parse("2024-02-01")).to_i, Digest::SHA256.hexdigest("abc")[0, 16],
 Digest::MD5.hexdigest(""), SecureRandom.hex(8).size, SecureRandom.uuid.count("-"), Set[1, 2, 2].size]`);
    assert.deepEqual(ok(r), [3, "2024-02-29", 1705312800, 29, "ba7816bf8f01cfea", "d41d8cd98f00b204e9800998ecf8427e",
      16, 4, 2]);
  });

  it("yaml, logger, stringio, base64, ostruct, erb and shellwords", async () => {
    const r = await rt.exec(`%w[yaml logger stringio base64 ostruct erb shellwords].each { |lib| require lib }
io = StringIO.new
log = Logger.new(io)
log.formatter = proc { |severity, _, _, msg| "#{severity}: #{msg}\n" }
log.info("hi")
[YAML.load("a: [1, 2]"), YAML.dump({ "b" => 1 }), io.string, Base64.strict_encode64("hi"), OpenStruct.new(x: 1).x,
 ERB.new("<%= 6 * 7 %>").result, Shellwords.split("a 'b c'")]`);
    assert.deepEqual(ok(r), [{ a: [1, 2] }, "---\nb: 1\n", "INFO: hi\n", "aGk=", 1, "42", ["a", "b c"]]);
  });
});

describe("the Ruby runtime Worker: stateless results (protocol §10.3)", () => {
  it("item 63: puts goes to stdout; a Hash is json; envVars are ENV", async () => {
    const r = await rt.exec('puts "hello"\n{name: ENV["NAME"], sum: (0...10).sum}', { NAME: "世界" });
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(r.results, [{ json: { name: "世界", sum: 45 } }]);
    assert.deepEqual(r.logs.stdout, ["hello"]);
    assert.equal(r.language, "ruby");
    assert.equal(r.usage.fuelLimit, 30_000_000);
    assert.ok(r.usage.fuelConsumed > 0, JSON.stringify(r.usage));
    assert.ok(r.usage.memoryBytes > 0 && r.usage.memoryBytes <= 100_663_296, JSON.stringify(r.usage));
  });

  it("item 64: raise is a RuntimeError; stdout written before it is kept", async () => {
    const r = await rt.exec('puts "before"\nraise "boom"');
    assert.equal(r.error.name, "RuntimeError");
    assert.equal(r.error.message, "boom");
    assert.deepEqual(r.logs.stdout, ["before"]);
    assert.ok(r.error.traceback.length > 0 && r.error.traceback.every((f) => f.startsWith("(sandbox)")), JSON.stringify(r.error));
  });

  it("item 65: a syntax error is a SyntaxError and nothing runs", async () => {
    const r = await rt.exec('puts "before"\n1 +');
    assert.equal(r.error.name, "SyntaxError");
    assert.deepEqual(r.logs.stdout, []);
  });

  it("item 66: a top-level return is a LocalJumpError with logs kept; the engine keeps working", async () => {
    const r = await rt.exec('puts "before"\nreturn 1');
    assert.equal(r.error.name, "LocalJumpError");
    assert.deepEqual(r.logs.stdout, ["before"]);
    assert.deepEqual((await rt.exec("1 + 1")).results, [{ text: "2" }]);
  });

  it("item 67: require \"js\" fails with a message saying the JavaScript bridge is disabled", async () => {
    const r = await rt.exec('require "js"; JS.global[:process].to_s');
    assert.ok(r.error, JSON.stringify(r));
    assert.match(r.error.message, /disabled/);
  });

  it("item 68: loop {} ends as ExecutionLimitError", async () => {
    const r = await rt.exec('puts "x"; loop {}');
    assert.equal(r.error.name, "ExecutionLimitError");
    assert.deepEqual(r.logs, { stdout: [], stderr: [] });
  });

  it("break, next, redo and retry at the top level are LocalJumpErrors", async () => {
    for (const code of ["break", "next", "redo", "retry"]) {
      assert.equal((await rt.exec(code)).error?.name, "LocalJumpError", code);
    }
  });

  it("result forms: inspect text, json for Hash/Array, nothing for nil", async () => {
    assert.deepEqual((await rt.exec('"hi " + "world"')).results, [{ text: '"hi world"' }]);
    assert.deepEqual((await rt.exec("0.1 + 0.2")).results, [{ text: "0.30000000000000004" }]);
    assert.deepEqual((await rt.exec(":sym")).results, [{ text: ":sym" }]);
    assert.deepEqual((await rt.exec("2**70")).results, [{ text: "1180591620717411303424" }]);
    assert.deepEqual((await rt.exec("nil")).results, []);
    assert.deepEqual((await rt.exec("puts 'x'")).results, []);
    assert.deepEqual((await rt.exec('[1, "two", {three: 3}, nil, true]')).results, [{ json: [1, "two", { three: 3 }, null, true] }]);
    assert.match((await rt.exec("Object.new")).results[0].text, /^#<Object:0x[0-9a-f]+>$/);
    // JSON.generate refuses NaN: the Hash falls back to its inspect text.
    assert.deepEqual((await rt.exec("{a: Float::NAN}")).results, [{ text: "{a: NaN}" }]);
  });

  it("stdout and stderr: puts, print, p, $stderr, warn", async () => {
    const r = await rt.exec('puts "a"; $stderr.puts "b"; warn "c"; print "d\\n"; p 1; STDOUT.write("e\\n"); 2');
    assert.deepEqual(r.logs, { stdout: ["a", "d", "1", "e"], stderr: ["b", "c"] });
    assert.deepEqual(r.results, [{ text: "2" }]);
  });

  it("ENV has only the supplied variables; the host environment never leaks", async () => {
    const r = await rt.exec("[ENV.to_h, ENV['HOME'], ENV['PATH']]", { ONLY: "1", TEXT: "é€" });
    assert.deepEqual(r.results, [{ json: [{ ONLY: "1", TEXT: "é€" }, null, null] }]);
    assert.deepEqual((await rt.exec("ENV.to_h")).results, [{ json: {} }]);
  });

  it("output and result limits are ExecutionLimitErrors with empty logs", async () => {
    const out = await rt.exec('print "x" * 40000; 1');
    assert.deepEqual([out.error.name, out.error.message], ["ExecutionLimitError", "Output limit exceeded"]);
    assert.deepEqual(out.logs, { stdout: [], stderr: [] });
    const res = await rt.exec('"y" * 70000');
    assert.deepEqual([res.error.name, res.error.message], ["ExecutionLimitError", "Result limit exceeded"]);
  });

  it("two requests share nothing: globals, constants, methods and the Random sequence", async () => {
    const a = await rt.exec("$leak = 5; LEAK = 1; def leaked = 1; [rand(2**60), rand(2**60)]");
    const b = await rt.exec("[$leak, defined?(LEAK), respond_to?(:leaked, true), rand(2**60), rand(2**60)]");
    assert.deepEqual(b.results[0].json.slice(0, 3), [null, null, false]);
    assert.notDeepEqual(a.results[0].json, b.results[0].json.slice(3));
  });

  it("the bundled standard library loads and works", async () => {
    const r = await rt.exec(
      'require "json"; require "set"; require "time"; require "securerandom"; require "digest"; require "base64"\n' +
        '[Set[1, 2, 2].size, Digest::MD5.hexdigest("abc"), SecureRandom.hex(4).size, Time.at(0).utc.iso8601,\n' +
        ' Base64.strict_encode64("hi"), JSON.parse(\'{"a":[1]}\'), "%05.1f" % 3.14159]',
    );
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(r.results[0].json, [2, "900150983cd24fb0d6963f7d28e17f72", 8, "1970-01-01T00:00:00Z", "aGk=", { a: [1] }, "003.1"]);
    assert.equal((await rt.exec('require "socket"')).error?.name, "LoadError");
  });
});

// engines/ruby/README.md "Hostile code": each case, then `1 + 1` still works. `name`: undefined = a result;
// a string = that error; null = any guest error or limit. EngineError rows are traps (the instance is discarded).
describe("the Ruby runtime Worker: hostile and odd input ends inside a 200 result", () => {
  const cases = [
    ["exit", 'puts "a"; exit', "SystemExit"],
    ["exit 3", "exit 3", "SystemExit"],
    ["exit!", "exit!", "SystemExit"],
    ["abort", 'abort "bye"', "SystemExit"],
    ["Process.kill", "Process.kill(:TERM, Process.pid)", "SignalException"],
    ["backticks", "`ls`", null],
    ["system", 'system("ls")', undefined],
    ["fork", "fork { }", "NotImplementedError"],
    ["spawn", 'spawn("ls")', undefined],
    ["Thread.new", "Thread.new { 1 }.join; 2", "NotImplementedError"],
    ["a Fiber", "Fiber.new { Fiber.yield 1; 2 }.resume", undefined],
    ["require socket", 'require "socket"', "LoadError"],
    ["ObjectSpace.each_object", "ObjectSpace.each_object(Module).count > 0", undefined],
    ["closing every IO", 'ObjectSpace.each_object(IO).each { |io| io.close rescue nil }; puts "x"; 1', undefined],
    ["redefining Sandbox", 'module Sandbox; def self.run_hex(*) = "x"; end; 7', undefined],
    ["removing Sandbox", "Object.send(:remove_const, :Sandbox); 8", undefined],
    ["redefining JSON.generate", 'module JSON; def self.generate(*) = raise("no"); end; [1, 2]', undefined],
    ["removing JSON", "Object.send(:remove_const, :JSON); {a: 1}", undefined],
    ["a raising Object#inspect", 'class Object; def inspect = raise("bad"); end; Object.new', "RuntimeError"],
    ["a raising Kernel#puts", 'module Kernel; def puts(*) = raise("no puts"); end; puts "hi"', "RuntimeError"],
    ["$stdout = nil", "$stdout = nil", "TypeError"],
    ["$stdout = STDOUT", '$stdout = STDOUT; puts "via STDOUT"; 1', undefined],
    ["IO.new(1).write", 'IO.new(1).write("raw\\n"); 1', undefined],
    ["at_exit", 'at_exit { puts "late" }; 1', undefined],
    ["an uncaught throw", "throw :x", "UncaughtThrowError"],
    ["raise Exception", 'raise Exception, "base"', "Exception"],
    ["raise NoMemoryError", 'raise NoMemoryError, "fake"', "NoMemoryError"],
    ["raise Interrupt", "raise Interrupt", "Interrupt"],
    ["runaway Ruby recursion", "def f(n) = f(n + 1) + 1; f(0)", "SystemStackError"],
    ["recursion through C (each) traps", "def g(n) = [1].each { g(n + 1) }; g(0)", "EngineError"],
    ["recursion through C (inspect) traps", "a = []; 100_000.times { a = [a] }; a.inspect.size", "EngineError"],
    ["a memory bomb", '"x" * (2**40)', null],
    ["a string doubling past the 96 MiB cap", 's = "x"; 40.times { s << s }; s.size', "NoMemoryError"],
    ["a huge Array", "Array.new(50_000_000, 1).size", "NoMemoryError"],
    // Ruby's own fatal out-of-memory path (inside GC) prints "[FATAL] failed to allocate memory" and calls
    // proc_exit(1), or (4.0) "[BUG] rb_darray_..._without_gc: failed" and aborts: the host reads that and reports the
    // memory limit.
    ["allocating until memory runs out", 'a = []; loop { a << "x" * 1000 }', "ExecutionLimitError"],
    ["ENV.clear", "ENV.clear; ENV.to_h", undefined],
    ["File.read /etc/passwd", 'File.read("/etc/passwd")', "Errno::ENOENT"],
    ["writing to /stdlib", 'File.write("/stdlib/x.rb", "1")', null],
    ["Dir.entries /", 'Dir.entries("/")', "Errno::ENOENT"],
    ["require js.so and a JS call traps in a disabled import", 'require "js.so"; JS.global[:process].to_s', "EngineError"],
    ["GC.start", "GC.start; 1", undefined],
    ["trap", 'trap("INT") { }; 1', undefined],
    ["set_trace_func", "set_trace_func(proc { }); 1", undefined],
    ["an infinite loop in a block", "[1, 2].sort_by { loop {} }", "ExecutionLimitError"],
  ];
  hostileCases((code) => rt.exec(code), cases);

  it("recursion through C is an EngineError that says so (a trap, or on 4.0 a corrupt state from `each`)", async () => {
    for (const code of ["def g(n) = [1].each { g(n + 1) }; g(0)", "a = []; 100_000.times { a = [a] }; a.inspect.size"]) {
      const r = await rt.exec(code);
      assert.equal(r.error?.name, "EngineError", JSON.stringify(r));
      assert.match(r.error.message, /recursion too deep through C methods/);
      assert.deepEqual((await rt.exec("1 + 1")).results, [{ text: "2" }]);
    }
  });

  it("the JavaScript bridge's trap names the disabled host access", async () => {
    const r = await rt.exec('require "js.so"; JS.global[:process].to_s');
    assert.equal(r.error.name, "EngineError");
    assert.match(r.error.message, /JavaScript host access is disabled/);
  });
});

describe("Ruby code contexts (the cases of Perl's, protocol §10.5 items 123-126)", () => {
  // One Interpreter holds at most 8 contexts: the later tests use a second one.
  const second = new Set(["c-fh", "c-disabled", "c-broken"]);
  const keyOf = (contextId) => (second.has(contextId) ? "rb2" : "rb");
  const run = (contextId, code, extra = {}) => rt.run({ key: keyOf(contextId), contextId, code, ...extra });
  const json = (r) => {
    assert.equal(text(r), undefined, "a json result");
    return r.result.results[0].json;
  };

  it("globals, top-level methods, classes, constants and local variables persist", async () => {
    assert.equal((await rt.createContext("rb", "c-state")).status, 201);
    const first = await run("c-state", '$counter = 1\ndef greet(who) = "hi #{who}"\nclass Point; def initialize(x) = @x = x; def x = @x; end\nLIMIT = 3\nlocal = 40\n1');
    assert.equal(text(first), "1");
    assert.equal(first.result.context.snapshot.stale, false, JSON.stringify(first.result.context));
    assert.equal(text(await run("c-state", "$counter += 1")), "2");
    assert.equal(text(await run("c-state", 'greet("world")')), '"hi world"');
    assert.deepEqual(json(await run("c-state", "[Point.new(5).x, LIMIT, local + 2, local_variables]")), [5, 3, 42, ["local"]]);
    // A method defined at the top level is a private method of Object, as in a script: callable from any object.
    assert.equal(text(await run("c-state", 'class Caller; def call = greet("again"); end; Caller.new.call')), '"hi again"');
  });

  it("required libraries persist", async () => {
    await rt.createContext("rb", "c-require");
    assert.equal(text(await run("c-require", 'require "csv"; require "digest"; CSV.parse_line("a,b").size')), "2");
    assert.deepEqual(json(await run("c-require", '[$LOADED_FEATURES.any? { |f| f.end_with?("/csv.rb") }, CSV.parse_line("1;2", col_sep: ";"), Digest::MD5.hexdigest("abc")]')),
      [true, ["1", "2"], "900150983cd24fb0d6963f7d28e17f72"]);
  });

  // A limit the host enforces or a trap drops the instance; the next execute restores the snapshot before the round.
  const dropped = [
    ["c-fuel", "loop {} is an ExecutionLimitError", "loop {}", ["ExecutionLimitError", "Execution fuel exhausted"]],
    ["c-oom", "running out of memory is an ExecutionLimitError", 'a = []; loop { a << "x" * 1000 }',
      ["ExecutionLimitError", "Memory limit exceeded"]],
    ["c-trap", "a trap (recursion through C) is an EngineError", "def g(n) = [1].each { g(n + 1) }; g(0)", ["EngineError"]],
  ];
  for (const [id, what, code, error] of dropped) {
    it(`${what}; the instance is dropped and the next execute continues from the last snapshot`, async () => {
      await rt.createContext("rb", id);
      await run(id, '$kept = "before"; 1');
      const r = await run(id, `$kept = "lost"; ${code}`);
      assert.deepEqual([r.result.error?.name, r.result.error?.message].slice(0, error.length), error, JSON.stringify(r.result));
      assert.deepEqual(r.result.results, []);
      assert.deepEqual(json(await run(id, "[$kept, respond_to?(:g, true)]")), ["before", false]);
    });
  }

  it("a Ruby error keeps the instance and its state; a top-level return is a LocalJumpError", async () => {
    await rt.createContext("rb", "c-error");
    await run("c-error", "$earlier = 7; 1");
    assert.equal((await run("c-error", 'raise "boom"')).result.error.name, "RuntimeError");
    assert.equal((await run("c-error", "return 1")).result.error.name, "LocalJumpError");
    assert.equal(text(await run("c-error", "$earlier")), "7");
  });

  it("a context keeps the logs written before an output limit", async () => {
    await rt.createContext("rb", "c-limit");
    await run("c-limit", "$n = 1");
    const r = await run("c-limit", 'puts "first"; $n = 2; print "x" * 40000; 1');
    assert.deepEqual([r.result.error.name, r.result.error.message], ["ExecutionLimitError", "Output limit exceeded"]);
    assert.deepEqual(r.result.logs.stdout, ["first"]);
  });

  it("files written by Ruby reach the workspace; Dir.chdir under /workspace is the context's cwd; require finds /workspace", async () => {
    await rt.createContext("rb", "c-files");
    const r = await run("c-files", 'Dir.mkdir("/workspace/sub"); Dir.chdir("sub"); File.write("out.txt", "from ruby"); 1');
    assert.equal(r.result.error, undefined, JSON.stringify(r.result.error));
    assert.equal(r.result.context.cwd, "/workspace/sub");
    assert.equal((await rt.sandbox())["/workspace/sub/out.txt"], "from ruby");
    assert.equal(text(await run("c-files", "Dir.pwd")), '"/workspace/sub"');
    await rt.files({ "/workspace/in.txt": "from the caller", "/workspace/mylib.rb": "module MyLib; def self.v = 42; end" });
    assert.equal(text(await run("c-files", 'File.read("/workspace/in.txt")')), '"from the caller"');
    assert.equal(text(await run("c-files", 'require "mylib"; MyLib.v')), "42");
    // A cwd outside /workspace is not the context's: it reports /workspace, and the next execute starts there.
    const out = await run("c-files", 'Dir.chdir("/stdlib"); Dir.pwd');
    assert.equal(text(out), '"/stdlib"');
    assert.equal(out.result.context.cwd, "/workspace");
    assert.equal(text(await run("c-files", "Dir.pwd")), '"/workspace"');
  });

  it("an open file makes the snapshot stale until it is closed", async () => {
    await rt.createContext("rb2", "c-fh");
    await rt.files({ "/workspace/x.txt": "data" });
    assert.equal((await run("c-fh", "$before = 1")).result.context.snapshot.stale, false);
    const open = await run("c-fh", '$fh = File.open("/workspace/x.txt"); 1');
    assert.equal(open.result.error, undefined, JSON.stringify(open.result.error));
    assert.equal(open.result.context.snapshot.stale, true, JSON.stringify(open.result.context));
    const closed = await run("c-fh", "$fh.close; 1");
    assert.equal(closed.result.context.snapshot.stale, false);
  });

  it("a disabled workspace answers Errno::EACCES; Dir.pwd is still /workspace", async () => {
    await rt.createContext("rb2", "c-disabled");
    const r = await run("c-disabled", '[(File.write("/workspace/n.txt", "x") rescue $!.class.name), Dir.pwd]', { disabled: true });
    assert.equal(r.result.error, undefined, JSON.stringify(r.result.error));
    assert.deepEqual(r.result.results[0].json, ["Errno::EACCES", "/workspace"]);
  });

  it("code that redefines the driver breaks only its own context: EngineError from then on; another context works", async () => {
    await rt.createContext("rb2", "c-broken");
    assert.equal(text(await run("c-broken", 'module Sandbox; def self.run_hex(*) = "x"; end; 7')), "7");
    const broken = await run("c-broken", "1 + 1");
    assert.equal(broken.result.error?.name, "EngineError", JSON.stringify(broken.result));
    assert.equal(text(await run("c-fh", "1 + 1")), "2");
  });

  it("after a restart (a new Interpreter over the same storage) state survives and Random is re-seeded", async () => {
    // Its own Interpreter (key): one Interpreter holds at most 8 contexts.
    const runR = (code) => rt.run({ key: "rb-restart", contextId: "c-restart", code });
    assert.equal((await rt.createContext("rb-restart", "c-restart")).status, 201);
    // The same seed twice in one instance draws the same numbers; after a restore the generator is re-seeded.
    const seeded = "Random.srand(42); $draw = [rand(2**60), rand(2**60)]";
    const before = json(await runR(seeded));
    assert.deepEqual(json(await runR("Random.srand(42); [rand(2**60), rand(2**60)]")), before);
    // A suspended Fiber (its stack is in linear memory) resumes after the restore; the generator is left freshly
    // seeded with 42, so without a re-seed the next draw would be $draw[0].
    const fiber = "n = 41; def inc = $n += 1; $n = 41; $f = Fiber.new { Fiber.yield 1; 2 }; Random.srand(42); $f.resume";
    assert.equal(text(await runR(fiber)), "1");
    // Our BigDecimal (Ruby objects in the heap, engines/ruby/README.md "BigDecimal") survives with its library.
    assert.equal(text(await runR('require "bigdecimal/util"; $total = "0.1".to_d + "0.2".to_d; $total.to_s')), '"0.3e0"');
    await rt.restart();
    const r = await runR("[inc, $n, n, $f.resume, rand(2**60) == $draw[0] ? 'same' : 'reseeded']");
    assert.equal(r.ok, true, JSON.stringify(r));
    assert.equal(r.result.context.restoreError, undefined, JSON.stringify(r.result.context));
    assert.deepEqual(json(r), [42, 42, 41, 2, "reseeded"]);
    assert.deepEqual(json(await runR('[($total * 3).to_s("F"), $total == BigDecimal("0.3"), "1.25".to_d.round(1).to_s]')),
      ["0.9", true, "0.13e1"]);
  });
});
