// Build-time helper of scripts/engines/ruby.sh.
//
//   node --no-turbo-fast-api-calls engines/ruby/buildtool.mjs stdlib RUBY_STDLIB_WASM LIST OUT_DIR
//
// Requires every library named in LIST (engines/ruby/stdlib.txt) inside ruby+stdlib.wasm (its stdlib is embedded
// with wasi-vfs) and writes each Ruby file that got loaded into OUT_DIR, laid out as a load-path root:
// /usr/local/lib/ruby/4.0.0/json/common.rb -> json/common.rb, .../gems/4.0.0/gems/csv-3.3.5/lib/csv.rb -> csv.rb
// (a bundled gem's files, found in its gem directory: the module runs with --disable-gems). Adds js.rb, which
// refuses the JavaScript bridge (protocol §6.5). Fails if a library does not load.
import fs from 'node:fs';
import path from 'node:path';
import { boot, loadModule, evalString, readRString } from './test/prototype.mjs';

const [cmd, wasm, list, outDir] = process.argv.slice(2);
if (cmd !== 'stdlib' || !outDir) throw new Error('usage: buildtool.mjs stdlib RUBY_STDLIB_WASM LIST OUT_DIR');
const libs = fs.readFileSync(list, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
const rt = boot(loadModule(wasm), { driver: false });
const probe = `
  gem_libs = Dir.glob("/usr/local/lib/ruby/gems/*/gems/*/lib")
  out = {}
  ${JSON.stringify(libs)}.each do |lib|
    before = $LOADED_FEATURES.dup
    begin
      require lib
    rescue LoadError
      dir = gem_libs.find { |d| File.exist?(File.join(d, lib + ".rb")) } or raise
      $LOAD_PATH << dir
      require lib
    end
    ($LOADED_FEATURES - before).each do |f|
      next unless f.end_with?(".rb")
      root = ($LOAD_PATH + gem_libs).select { |d| f.start_with?(d + "/") }.max_by(&:size) or raise "no root for #{f}"
      out[f.delete_prefix(root + "/")] = [File.binread(f)].pack("m0")
    end
  end
  out.sort.map { |k, v| k + " " + v }.join("\\n")`;
const r = evalString(rt, probe);
if (r.state !== 0) throw new Error(`stdlib probe failed (state ${r.state}): a library in ${list} does not load`);
const lines = readRString(rt, r.handle).split('\n').filter(Boolean);
for (const line of lines) {
  const [rel, b64] = line.split(' ');
  const file = path.join(outDir, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, Buffer.from(b64, 'base64'));
}
fs.writeFileSync(path.join(outDir, 'js.rb'),
  '# sandbox-workers: the JavaScript bridge of ruby.wasm is disabled (protocol §6.5).\n' +
  'raise NotImplementedError, "JavaScript host access is disabled"\n');
console.log(`    ${lines.length} Ruby files from ${libs.length} libraries, plus js.rb`);
