// The Perl runtime Worker (engines/perl/wrangler.jsonc) in workerd through Miniflare: stateless results (protocol §10.3
// items 58-62), hostile and odd input, and code contexts through a caller Worker with a real getFiles callback and
// on-disk Durable Object storage, across a restart (protocol §10.5 items 123-126).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { jsonBody } from "./helpers.mjs";
import { useLanguageRuntime, hostileCases, contextText } from "./language-runtime.mjs";

const rt = useLanguageRuntime("perl");

const text = contextText;

describe("the Perl runtime Worker: probe and stateless results", () => {
  it("GET /interpreter reports perl with contexts", async () => {
    const body = await jsonBody(await rt.fetch("https://runtime.test/interpreter"));
    assert.equal(body.language, "perl");
    assert.match(body.engine, /^Perl 5\.42/);
    assert.equal(body.contexts, true);
  });

  it("item 58: a hash reference becomes json; print goes to stdout; envVars are %ENV", async () => {
    const r = await rt.exec('print "hello"; +{ name => $ENV{NAME}, sum => 45 };', { NAME: "世界" });
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(r.results, [{ json: { name: "世界", sum: 45 } }]);
    assert.ok(r.logs.stdout.includes("hello"));
    assert.equal(r.language, "perl");
    assert.equal(r.usage.fuelLimit, 10_000_000);
    assert.ok(r.usage.fuelConsumed > 0, JSON.stringify(r.usage));
  });

  it("item 59: die is a PerlError whose message has no trailing newline", async () => {
    const r = await rt.exec('die "broken";');
    assert.equal(r.error.name, "PerlError");
    assert.match(r.error.message, /broken/);
    assert.ok(!r.error.message.endsWith("\n"));
    assert.deepEqual(r.error.traceback, []);
  });

  it("item 60: print lines are stdout entries", async () => {
    const r = await rt.exec('print "a\\n"; print "b\\n";');
    assert.deepEqual(r.logs.stdout, ["a", "b"]);
  });

  it("item 61: UTF-8 in code, %ENV and stdout round-trips as text, with nothing on stderr", async () => {
    const r = await rt.exec('print "$ENV{NAME}\\n"; print "こんにちは\\n"; +{ name => $ENV{NAME} };', { NAME: "世界" });
    assert.deepEqual(r.logs.stdout, ["世界", "こんにちは"]);
    assert.deepEqual(r.logs.stderr, []);
    assert.deepEqual(r.results, [{ json: { name: "世界" } }]);
  });

  it("item 62: while(1) {} ends as ExecutionLimitError with empty logs", async () => {
    const r = await rt.exec('print "x\\n"; while(1) {}');
    assert.equal(r.error.name, "ExecutionLimitError");
    assert.equal(r.error.message, "Execution fuel exhausted");
    assert.deepEqual(r.logs, { stdout: [], stderr: [] });
  });

  it("results: strings and numbers are Perl's stringification; undef is no result; blessed and code refs are text", async () => {
    assert.deepEqual((await rt.exec('"hi " . "world"')).results, [{ text: "hi world" }]);
    assert.deepEqual((await rt.exec("0.1 + 0.2")).results, [{ text: "0.3" }]);
    assert.deepEqual((await rt.exec("undef")).results, []);
    assert.deepEqual((await rt.exec("[1, 'two', { three => 3 }]")).results, [{ json: [1, "two", { three: 3 }] }]);
    assert.match((await rt.exec("bless {}, 'Foo'")).results[0].text, /^Foo=HASH\(0x[0-9a-f]+\)$/);
    assert.match((await rt.exec("sub { 1 }")).results[0].text, /^CODE\(0x[0-9a-f]+\)$/);
  });

  it("warn and STDERR go to stderr; the host environment never leaks", async () => {
    const r = await rt.exec('warn "careful\\n"; print STDERR "e\\n"; printf("%03d\\n", 7); [sort keys %ENV]', { ONLY: "1" });
    assert.deepEqual(r.logs, { stdout: ["007"], stderr: ["careful", "e"] });
    assert.deepEqual(r.results, [{ json: ["ONLY"] }]);
  });

  it("an exception object names the error by its class", async () => {
    const r = await rt.exec("package My::Err; use overload '\"\"' => sub { 'custom text' }; package main; die bless({}, 'My::Err')");
    assert.deepEqual(r.error, { name: "My::Err", message: "custom text", traceback: [] });
  });

  it("output and result limits are ExecutionLimitErrors with empty logs", async () => {
    const out = await rt.exec('print "x" x 40000; 1');
    assert.deepEqual([out.error.name, out.error.message], ["ExecutionLimitError", "Output limit exceeded"]);
    assert.deepEqual(out.logs, { stdout: [], stderr: [] });
    const res = await rt.exec('"y" x 70000');
    assert.deepEqual([res.error.name, res.error.message], ["ExecutionLimitError", "Result limit exceeded"]);
  });

  it("the bundled modules load and work", async () => {
    const r = await rt.exec(
      "use List::Util qw(sum max first); use Scalar::Util qw(blessed looks_like_number); use Data::Dumper;\n" +
        "use JSON::PP; use Digest::MD5 qw(md5_hex); use MIME::Base64; use Time::Local; use Math::BigInt;\n" +
        "$Data::Dumper::Indent = 0; $Data::Dumper::Terse = 1;\n" +
        "[sum(1..10), max(3, 9, 2), md5_hex('abc'), encode_base64('hi', ''), Dumper([1]),\n" +
        " JSON::PP->new->canonical->encode({b => 1, a => [2]}), Math::BigInt->new(2)->bpow(70)->bstr, looks_like_number('1e3') ? 1 : 0]",
    );
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(r.results[0].json, [55, 9, "900150983cd24fb0d6963f7d28e17f72", "aGk=", "[1]", '{"a":[2],"b":1}', "1180591620717411303424", 1]);
  });

  it("two requests never share globals or a rand sequence", async () => {
    const a = await rt.exec("our $leak = 5; [map { int(rand(1e9)) } 1 .. 3]");
    const b = await rt.exec("[defined $main::leak ? 1 : 0, map { int(rand(1e9)) } 1 .. 3]");
    assert.equal(b.results[0].json[0], 0);
    assert.notDeepEqual(a.results[0].json, b.results[0].json.slice(1));
  });
});

// Our POSIX and Storable (engines/perl/lib/; zeroperl links neither extension). Every line a program prints here is
// compared with what the host's own perl prints with the real, C-backed POSIX (Debian's perl-base), at TZ=UTC as in
// the sandbox: the same values, not just no errors.
const native = (program) =>
  execFileSync("perl", ["-e", program], { env: { PATH: process.env.PATH, TZ: "UTC", LC_ALL: "C" }, encoding: "utf8" });
const sandboxOut = async (program) => {
  const r = await rt.exec(program);
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  return r.logs.stdout.join("\n");
};
const lines = (out) => out.split("\n").filter(Boolean);

const EXACT = `
use POSIX ();
my @x = (0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, 3.7, -3.7, 1e15 + 0.5, 2**52 + 1, 1e300,
         5e-324, 9**9**9, -9**9**9, 9**9**9 - 9**9**9);
for my $f (qw(floor ceil trunc round lround rint nearbyint signbit fpclassify ilogb)) {
  no strict 'refs';
  for my $x (@x) { next if $f =~ /^(?:lround|ilogb)$/ && ($x != $x || abs($x) > 2**31 || $x == 0);
    printf "%s(%.17g) = %.17g\\n", $f, $x, &{"POSIX::$f"}($x) }
}
`;

const EXACT2 = `
use POSIX ();
my @x = (0, -0.0, 0.5, -1.5, 2.5, 0.49999999999999994, -3.7, 1e15 + 0.5, 1e300, 5e-324, 9**9**9, 9**9**9 - 9**9**9);
my @pairs = ([7, 3], [-7, 3], [7, -3], [5.5, 2], [1e300, 3], [0.1, 0.03], [-0.0, 1], [9**9**9, 1], [1, 9**9**9],
             [1, 0], [2**-1074, 1], [-1, -2], [1e-310, 3e-320]);
for my $x (@x) { printf "modf(%.17g) = %.17g %.17g\\n", $x, POSIX::modf($x); printf "frexp(%.17g) = %.17g %d\\n", $x, POSIX::frexp($x) }
for my $e (-1080, -1074, -2, 0, 3, 1023, 1024) { printf "ldexp(0.75, %d) = %.17g\\n", $e, POSIX::ldexp(0.75, $e) }
for my $f (qw(fmod remainder fmin fmax fdim copysign nextafter)) {
  no strict 'refs';
  for my $p (@pairs) { printf "%s(%.17g, %.17g) = %.17g\\n", $f, @$p, &{"POSIX::$f"}(@$p) }
}
for my $x (1, 10, 1000, 1e22, 0.001) { printf "log10(%.17g) = %.17g\\n", $x, POSIX::log10($x) }
for my $x (1, 8, 1024, 0.125, 2**-1074) { printf "log2(%.17g) = %.17g\\n", $x, POSIX::log2($x) }
`;

const APPROX = `
use POSIX ();
for my $f (qw(tan atan asin acos sinh cosh tanh asinh acosh atanh log1p expm1 cbrt exp2 log10 log2)) {
  no strict 'refs';
  for my $x (-0.9, -0.3, 1e-10, 0.25, 0.5, 0.99, 1.5, 3, 20) {
    next if $f =~ /^(?:asin|acos|atanh)$/ && abs($x) >= 1; next if $f =~ /^(?:acosh|log10|log2)$/ && $x < 1;
    printf "%s(%.17g) = %.17g\\n", $f, $x, &{"POSIX::$f"}($x);
  }
}
for my $p ([3, 4], [1e200, 1e200], [1e-200, 3e-200], [5, 0]) { printf "hypot(%.17g, %.17g) = %.17g\\n", @$p, POSIX::hypot(@$p) }
`;

const TIME = `
use POSIX qw(strftime mktime asctime ctime difftime);
for my $t (0, 1e9, -86400 * 365 * 30 - 12345, 951782400, 4102444800, 1700000000) {
  print strftime("%Y-%m-%d %H:%M:%S|%a %A %b %B|%j %U %W %w %u %G %V|%e %y %C %D %T %R %p %I|%z %Z|%%", gmtime($t)), "\\n";
  print asctime(gmtime($t)), ctime($t);
}
for my $f ([0, 0, 0, 32, 0, 100], [0, 0, 0, 0, 0, 100], [0, 0, 0, 1, -1, 100], [0, 0, 0, 1, 13, 100],
           [59, 59, 23, 31, 11, 99], [3600, 0, 0, 1, 0, 70], [-1, 0, 0, 1, 0, 70], [0, 0, 0, 29, 1, 200]) {
  print strftime("%Y-%m-%d %H:%M:%S %a %j", @$f), " ", mktime(@$f), "\\n";
}
print difftime(5, 3), "\\n";
`;

const STRTO = `
use POSIX qw(strtol strtoul strtod);
for my $c (["42", 10], [" -17xyz", 10], ["0x1F", 16], ["0x1F", 0], ["017", 0], ["z", 36], ["", 10], ["12abc", 16],
           ["-2147483648", 10], ["2147483647", 10], ["+7", 8], ["  0", 0], ["0x", 16], ["1010", 2]) {
  print join(",", "strtol", @$c, strtol($c->[0], $c->[1])), "\\n";
  print join(",", "strtoul", @$c, strtoul($c->[0], $c->[1])), "\\n" unless $c->[0] =~ /-/;
}
for my $s ("3.14abc", "  -1e3", ".5", "inf", "-Infinity!", "abc", "1e", "0x1.8p1xyz", " -0x10", "1e400", "12.", "") {
  my ($v, $rest) = strtod($s); printf "strtod(%s) = %.17g %d\\n", $s, $v, $rest;
}
`;

describe("the Perl runtime Worker: POSIX and Storable (ours) against the real modules", () => {
  for (const [name, program] of [["math: exact functions of one number", EXACT], ["math: exact functions of two numbers", EXACT2], ["time functions (UTC)", TIME], ["strtol, strtoul, strtod", STRTO]]) {
    it(`POSIX ${name}: every line as the host perl's C POSIX prints it`, async () => {
      const want = lines(native(program));
      const got = lines(await sandboxOut(program));
      assert.ok(want.length > 20, `${want.length} lines`);
      assert.deepEqual(got, want);
    });
  }

  it("POSIX math from Perl's builtins (tan, asin, expm1, ...) is within a few ulps of the C library's", async () => {
    const want = lines(native(APPROX));
    const got = lines(await sandboxOut(APPROX));
    assert.equal(got.length, want.length);
    for (let i = 0; i < want.length; i++) {
      const [wName, wValue] = want[i].split(" = ");
      const [gName, gValue] = got[i].split(" = ");
      assert.equal(gName, wName);
      const a = Number(gValue);
      const b = Number(wValue);
      assert.ok(Math.abs(a - b) <= 4 * Number.EPSILON * Math.max(Math.abs(a), Math.abs(b)), `${got[i]} against ${want[i]}`);
    }
  });

  it("POSIX constants are the platform's: a 32-bit long, WASI's errno and open flags", async () => {
    const r = await rt.exec(`use POSIX; require Errno; require Fcntl; local $! = ENOENT;
      [LONG_MAX, ULONG_MAX, INT_MIN, sprintf("%.17g", DBL_MAX), DBL_EPSILON, FLT_MAX, ENOENT == Errno::ENOENT() ? 1 : 0, "$!",
       O_CREAT == Fcntl::O_CREAT() ? 1 : 0, SEEK_END, EXIT_FAILURE, scalar(strtoul("-1", 10)), setlocale(LC_ALL, "C"),
       defined(setlocale(LC_ALL, "de_DE.UTF-8")) ? 1 : 0, WIFEXITED(256), WEXITSTATUS(256), M_PI, floor(-0.5),
       scalar(grep { $_ eq 'strftime' } @POSIX::EXPORT), scalar(grep { $_ eq 'round' } @POSIX::EXPORT)]`);
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(r.results[0].json, [
      2147483647, 4294967295, -2147483648, "1.7976931348623157e+308", 2.22044604925031e-16, 3.40282346638529e38, 1,
      "No such file or directory", 1, 2, 1, 4294967295, "C", 0, 1, 1, 3.14159265358979, -1, 1, 0,
    ]);
  });

  it("a POSIX function the sandbox cannot have is a clear error, at the call and not at the import", async () => {
    const r = await rt.exec("use POSIX qw(setsid floor); floor(1.5) . ' ' . setsid()");
    assert.equal(r.error.name, "PerlError");
    assert.match(r.error.message, /^POSIX::setsid is not available in this sandbox/);
  });

  it("Storable: dclone and freeze/thaw keep values, numbers, booleans, UTF-8, cycles, sharing, classes and hooks", async () => {
    const r = await rt.exec(`use Storable qw(dclone freeze thaw);
      package Point; sub new { bless { x => $_[1], y => $_[2] }, $_[0] } sub sum { $_[0]{x} + $_[0]{y} }
      package Cached; sub new { bless { key => $_[1], cache => [1 .. 1000] }, $_[0] }
      sub STORABLE_freeze { my ($self, $cloning) = @_; ($self->{key}) }
      sub STORABLE_thaw { my ($self, $cloning, $key) = @_; $self->{key} = $key; $self->{cloned} = $cloning }
      package main;
      my $list = [1, 2.5, "3"];
      my $data = { list => $list, same => $list, text => "\\x{263a}", t => !!1, p => Point->new(2, 3), c => Cached->new("k"),
                   re => qr/^ab+c$/i, nested => \\\\"deep" };
      $data->{self} = $data;
      my $copy = dclone($data);
      my $thawed = thaw(freeze($data));
      my @checks = map { my $d = $_; [
        $d != $data ? 1 : 0, $d->{self} == $d ? 1 : 0, $d->{same} == $d->{list} ? 1 : 0, $d->{list} != $list ? 1 : 0,
        length($d->{text}), ref($d->{p}), $d->{p}->sum, $d->{c}{key}, exists $d->{c}{cache} ? 1 : 0, $d->{c}{cloned},
        "ABBC" =~ $d->{re} ? 1 : 0, \${\${$d->{nested}}}, builtin::is_bool($d->{t}) ? 1 : 0 ] } $copy, $thawed;
      delete $_->{self} for $copy;
      [@checks, $copy->{list}, $copy->{text}]`);
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(r.results[0].json, [
      [1, 1, 1, 1, 1, "Point", 5, "k", 0, 1, 1, "deep", 1],
      [1, 1, 1, 1, 1, "Point", 5, "k", 0, 0, 1, "deep", 1],
      [1, 2.5, "3"],
      "☺",
    ]);
  });

  it("Storable: CODE references and another Storable's images are errors that say so", async () => {
    const code = await rt.exec("use Storable qw(freeze); freeze([sub { 1 }])");
    assert.match(code.error.message, /^Can't store CODE items at sandbox line 1/);
    const foreign = await rt.exec('use Storable qw(thaw); thaw("pst0\\x05\\x0b")');
    assert.match(foreign.error.message, /not data frozen by this sandbox's Storable/);
  });

  it("Encode loads (it needs Storable) and converts UTF-8, Latin-1 and Shift_JIS", async () => {
    const r = await rt.exec(`use Encode qw(encode decode);
      [length(encode("UTF-8", "\\x{263a}")), decode("UTF-8", "\\xe2\\x98\\xba") eq "\\x{263a}" ? 1 : 0,
       unpack("H*", encode("iso-8859-1", "\\x{e9}")), unpack("H*", encode("shiftjis", "\\x{3042}")),
       decode("shiftjis", "\\x82\\xa0") eq "\\x{3042}" ? 1 : 0]`);
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(r.results[0].json, [3, 1, "e9", "82a0", 1]);
  });
});

describe("the Perl runtime Worker: the file system outside /workspace", () => {
  it("paths outside the preopens do not exist and /stdlib is read-only", async () => {
    const r = await rt.exec(
      "my @out; for my $p ('/etc/passwd', '/tmp/x') { push @out, open(my $f, '<', $p) ? 'ok' : \"$!\" }\n" +
        "push @out, open(my $w, '>', '/stdlib/x.txt') ? 'ok' : \"$!\"; push @out, -e '/dev/null' ? 1 : 0; \\@out",
    );
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(r.results[0].json, ["No such file or directory", "No such file or directory", "Operation not permitted", 1]);
  });
});

describe("the Perl runtime Worker: hostile and odd input ends as an error inside a 200 result", () => {
  const cases = [
    ["a syntax error", "1 +", "PerlError"],
    ["exit 3", "exit 3", "PerlError"],
    ["exit 0 ends the program normally", 'print "bye\\n"; exit 0; print "not here\\n"', undefined],
    ["die with a hash reference", "die { code => 5 }", "HASH"],
    ["fork", "fork()", "PerlError"],
    ["system", 'system("ls")', undefined],
    ["backticks", "my $o = `ls`; $?", undefined],
    ["sleep returns at once", "sleep 1000", undefined],
    ["a memory bomb", '"x" x (2**40)', null],
    ["a growing string", "my $s = 'x'; $s .= $s for 1 .. 40; length $s", "ExecutionLimitError"],
    ["runaway recursion", "sub f { f($_[0] + 1) } f(0)", "ExecutionLimitError"],
    ["a catastrophic regex (Perl's super-linear cache answers at once)", "('a' x 40 . '!') =~ /^(a+)+$/ ? 1 : 0", undefined],
    ["an infinite loop in a sort comparator", "my @a = sort { while (1) {} } 1, 2; 1", "ExecutionLimitError"],
    // CORE::exit cannot be overridden: Perl leaves through proc_exit, which ends the instance (an EngineError naming
    // the exit code; the next request starts from the boot image as always).
    ["CORE::exit, which bypasses the exit override", "CORE::exit(4)", "EngineError"],
    ["a deeply nested structure as the result", "my $r = []; $r = [$r] for 1 .. 100000; $r", undefined],
    ["a cyclic structure as the result", "my $r = {}; $r->{self} = $r; $r", undefined],
    ["redefining the driver's package", "no warnings; *Sandbox::_entry = sub { die \"mine\\n\" }; 1", "PerlError"],
    ["untie STDOUT and print", 'untie *STDOUT; print "x\\n"; 1', undefined],
    ["require of a missing module", "require No::Such::Module", "PerlError"],
  ];
  hostileCases((code) => rt.exec(code), cases);
});

describe("the Perl library at /zeroperl, out of the module (engines/perl/README.md, \"The Perl library\")", () => {
  it("a module the boot did not load is read from /zeroperl/lib, and %INC says so", async () => {
    const r = await rt.exec("use Text::Wrap qw(wrap); $Text::Wrap::columns = 10; " +
      "[wrap('', '', 'aaa bbb ccc ddd'), $INC{'Text/Wrap.pm'}, $INC{'strict.pm'}]");
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(r.results, [{ json: ["aaa bbb\nccc ddd", "/zeroperl/lib/5.42.0/Text/Wrap.pm",
      "/zeroperl/lib/5.42.0/strict.pm"] }]);
  });

  it("a module nobody has is a clean Can't locate that names the library's @INC entries", async () => {
    const r = await rt.exec("use No::Such::Thing; 1");
    assert.equal(r.error.name, "PerlError");
    assert.match(r.error.message, /^Can't locate No\/Such\/Thing\.pm in @INC \(you may need to install the No::Such::Thing module\) \(@INC entries checked: [^)]*\/zeroperl\/lib\/5\.42\.0\/wasm32-wasi \/zeroperl\/lib\/5\.42\.0 /);
  });

  it("is a read-only directory tree: files read as they are, nothing written, nothing of it under /stdlib", async () => {
    const r = await rt.exec(`
      my $lib = '/zeroperl/lib/5.42.0';
      open(my $in, '<', "$lib/strict.pm") or die "read: $!";
      my $first = <$in>; close $in; chomp $first;
      my $write = open(my $out, '>>', "$lib/strict.pm") ? 'opened' : 'refused';
      my $create = open(my $new, '>', "$lib/Mine.pm") ? 'created' : 'refused';
      my $unlink = unlink("$lib/strict.pm") ? 'removed' : 'refused';
      opendir(my $d, $lib) or die "opendir: $!";
      my $listed = grep { $_ eq 'strict.pm' } readdir $d;
      [$first, $write, $create, $unlink, -d $lib ? 'dir' : 'none', -s "$lib/strict.pm" > 0 ? 'file' : 'none',
       $listed, -e '/stdlib/zeroperl' ? 'in stdlib' : 'not in stdlib', -e '/stdlib/.mounts' ? '.mounts' : 'no .mounts']`);
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(r.results, [{ json: ["package strict;", "refused", "refused", "refused", "dir", "file", 1,
      "not in stdlib", "no .mounts"] }]);
    // The next request still loads it.
    assert.deepEqual((await rt.exec("use strict; require Text::Abbrev; 1")).results, [{ text: "1" }]);
  });
});

describe("Perl code contexts (protocol §10.5 items 123-126)", () => {
  const run = (contextId, code, extra = {}) => rt.run({ key: "pl", contextId, code, ...extra });

  it("item 123: our variables and subs persist; my variables do not", async () => {
    assert.equal((await rt.createContext("pl", "c123")).status, 201);
    assert.equal(text(await run("c123", "our $counter = 1; my $gone = 2; sub greet { \"hi $_[0]\" } 1;")), "1");
    assert.equal(text(await run("c123", "$counter + 1")), "2");
    assert.equal(text(await run("c123", "greet('world')")), "hi world");
    assert.equal(text(await run("c123", "defined $gone ? 'kept' : 'gone'")), "gone");
  });

  it("item 124: loaded modules persist", async () => {
    await rt.createContext("pl", "c124");
    assert.equal(text(await run("c124", "use List::Util qw(max); max(1, 5, 3);")), "5");
    assert.equal(text(await run("c124", "max(7, 2)")), "7");
  });

  it("item 125: while(1) {} is an ExecutionLimitError; the instance is dropped and the last snapshot restored", async () => {
    await rt.createContext("pl", "c125");
    await run("c125", "our $kept = 'before'; 1");
    const r = await run("c125", "$kept = 'lost'; while(1) {}");
    assert.equal(r.result.error.name, "ExecutionLimitError");
    assert.equal(text(await run("c125", "$kept")), "before");
  });

  it("running out of memory is an ExecutionLimitError; the instance is dropped and the last snapshot restored", async () => {
    await rt.createContext("pl", "c-oom");
    await run("c-oom", "our $kept = 'before'; 1");
    const r = await run("c-oom", "$kept = 'lost'; my $s = 'x'; $s .= $s for 1 .. 40; 1");
    assert.deepEqual([r.result.error.name, r.result.error.message], ["ExecutionLimitError", "Memory limit exceeded"]);
    assert.equal(text(await run("c-oom", "$kept")), "before");
  });

  it("a Perl error keeps the instance and its state", async () => {
    await rt.createContext("pl", "c125b");
    await run("c125b", "our $earlier = 7; 1");
    assert.equal((await run("c125b", 'die "boom\\n"')).result.error.name, "PerlError");
    assert.equal(text(await run("c125b", "$earlier")), "7");
  });

  it("files written by Perl reach the workspace; chdir under /workspace is the context's cwd", async () => {
    await rt.createContext("pl", "c-files");
    const r = await run("c-files", "mkdir '/workspace/sub'; chdir 'sub'; open(my $f, '>', 'out.txt') or die $!; print $f 'from perl'; close $f; 1");
    assert.equal(r.result.error, undefined, JSON.stringify(r.result.error));
    assert.equal(r.result.context.cwd, "/workspace/sub");
    assert.equal((await rt.sandbox())["/workspace/sub/out.txt"], "from perl");
    assert.equal(text(await run("c-files", "use Cwd; getcwd()")), "/workspace/sub");
    await rt.files({ "/workspace/in.txt": "from the caller" });
    assert.equal(text(await run("c-files", "open(my $f, '<', '/workspace/in.txt') or die $!; local $/; <$f>")), "from the caller");
  });

  it("Storable's nstore writes a file under /workspace that retrieve reads back in the next execute", async () => {
    // Its own Interpreter (key): one Interpreter holds at most 8 contexts.
    const runS = (code) => rt.run({ key: "pl-storable", contextId: "c-storable", code });
    await rt.createContext("pl-storable", "c-storable");
    const r = await runS("use Storable qw(nstore retrieve); nstore({ list => [1, 2, 3], name => 'x' }, 'data.sto'); -s 'data.sto'");
    assert.equal(r.result.error, undefined, JSON.stringify(r.result.error));
    assert.ok(Number(text(r)) > 0, JSON.stringify(r.result));
    assert.ok((await rt.sandbox())["/workspace/data.sto"] !== undefined);
    assert.equal(text(await runS("my $d = retrieve('data.sto'); join ',', @{ $d->{list} }, $d->{name}")), "1,2,3,x");
  });

  it("an open file handle makes the snapshot stale until it is closed", async () => {
    await rt.createContext("pl", "c-fh");
    await rt.files({ "/workspace/x.txt": "data" });
    assert.equal((await run("c-fh", "our $before = 1")).result.context.snapshot.stale, false);
    const open = await run("c-fh", "open(our $fh, '<', '/workspace/x.txt') or die $!; 1");
    assert.equal(open.result.error, undefined, JSON.stringify(open.result.error));
    assert.equal(open.result.context.snapshot.stale, true, JSON.stringify(open.result.context));
    const closed = await run("c-fh", "close $fh; 1");
    assert.equal(closed.result.context.snapshot.stale, false);
  });

  it("item 126: a disabled workspace answers Permission denied; getcwd is still /workspace", async () => {
    await rt.createContext("pl", "c126");
    const r = await run("c126", "my @r; push @r, open(my $f, '>', '/workspace/n.txt') ? 'ok' : \"$!\"; use Cwd; push @r, getcwd(); \\@r", { disabled: true });
    assert.equal(r.result.error, undefined, JSON.stringify(r.result.error));
    assert.deepEqual(r.result.results[0].json, ["Permission denied", "/workspace"]);
  });

  it("after a restart (a new Interpreter over the same storage) subs and our variables survive", async () => {
    // Its own Interpreter (key): one Interpreter holds at most 8 contexts.
    const runR = (code) => rt.run({ key: "pl-restart", contextId: "c-restart", code });
    assert.equal((await rt.createContext("pl-restart", "c-restart")).status, 201);
    assert.equal(text(await runR("our $n = 41; sub inc { ++$n } 1")), "1");
    await rt.restart();
    const r = await runR("[inc(), $n]");
    assert.equal(r.ok, true, JSON.stringify(r));
    assert.equal(r.result.error, undefined, JSON.stringify(r.result.error));
    assert.deepEqual(r.result.results[0].json, [42, 42]);
  });
});
