# engines/ruby/driver.rb: the Ruby half of the Ruby engine's driver (engines/ruby/README.md). The host evaluates this
# file once at boot (rb-eval-string-protect; it must evaluate to true), so it is part of the boot image; then every
# request is one evaluation of `Sandbox.run_hex("<code as hex>", "<env JSON as hex>")`, which returns the outcome JSON
# of engines/common/engine.h as a String:
#   {"logs":{"stdout":[..],"stderr":[..]},"results":[] | [{"text":..}] | [{"json":..}],
#    "error"?:{"name":..,"message":..,"traceback":[..]}}
# A code context's execute is `Sandbox.run_hex("<code>", "<env>", "<the context's cwd as hex>")`: the code runs in
# the session's one binding (locals, methods, classes, constants, globals and required libraries persist, as in irb),
# after a chdir to that cwd, and the outcome carries "cwd", the working directory after the call (docs/code-contexts.md
# "Ruby"). Semantics: protocol §3.2-3.3 and §6.5. Guest code runs with $stdout/$stderr/STDOUT/STDERR captured and ENV
# replaced; whatever it does (raise any Exception, throw, exit, redefine Sandbox, JSON, Kernel or core methods), run_hex
# returns an outcome String: everything it needs after the guest ran was captured here, at boot, as Method objects
# and locals of this file, which guest code cannot redefine.
require "json"
require "stringio"

module Sandbox
  MAX_OUTPUT_BYTES = 32_768   # stdout + stderr, UTF-8 bytes (protocol §3.3)
  MAX_OUTPUT_CHUNKS = 200     # writes stored, both streams
  MAX_RESULT_BYTES = 65_536   # the whole outcome envelope (protocol §6.5)
  CODE_FILE = "(sandbox)"     # the file name guest frames carry in backtraces
  MAX_TRACEBACK = 50          # frames kept (runaway recursion would otherwise fill the result limit)

  # Both streams of one request, in write order. One write = one chunk; a write that crosses a limit is refused and
  # marks the request as limited (the guest may rescue the error; the outcome is the limit error regardless).
  class Sink
    attr_reader :limited

    def initialize
      @chunks = []
      @bytes = 0
      @limited = false
    end

    def capture(stream, text)
      @bytes += text.bytesize
      return if text.empty?
      if @bytes > MAX_OUTPUT_BYTES || @chunks.size >= MAX_OUTPUT_CHUNKS
        @limited = true
        raise OutputLimitError, "Output limit exceeded"
      end
      @chunks << [stream, text]
    end

    # protocol §3.3: a stream's chunks concatenated, split on "\n", a final empty element dropped.
    def lines(stream)
      text = +""
      @chunks.each { |s, t| text << t if s == stream }
      out = text.split("\n", -1)
      out.pop if out.last == ""
      out
    end
  end

  class OutputLimitError < StandardError; end

  # $stdout / $stderr / STDOUT / STDERR during a request. StringIO supplies the IO surface (puts, print, printf, <<,
  # p and warn all end in #write); everything that writes goes to the sink, nothing stays in the buffer.
  class Stream < StringIO
    def initialize(sink, stream)
      super(+"", "w")
      @sink = sink
      @stream = stream
    end

    def write(*args)
      text = args.map { |a| a.to_s.b }.join.force_encoding(Encoding::UTF_8)
      @sink.capture(@stream, text)
      text.bytesize
    end

    def syswrite(s) = write(s)
    def write_nonblock(s, *) = write(s)
    def putc(c) = (write(c.is_a?(Integer) ? (c & 0xff).chr : c.to_s[0].to_s); c)
    def fileno = nil
    def tty? = false
    def isatty = false
    def sync = true
    def sync=(_v); end
    def flush = self
    def fsync = 0
    def inspect = @stream == 1 ? "#<IO:<STDOUT>>" : "#<IO:<STDERR>>"
  end

  # Process exits cannot leave the instance (WASI proc_exit would end it): they raise SystemExit like `exit`.
  [Kernel, Process].each do |m|
    m.module_eval do
      def exit!(status = false) = raise(SystemExit.new(status == true ? 0 : (status == false ? 1 : status.to_i), "exit"))
      module_function :exit!
    end
  end
end

# Everything run_hex uses after guest code ran, captured now (guest code can redefine methods, not these objects).
sandbox_run = lambda do
  generate = JSON.method(:generate)
  parse = JSON.method(:parse)
  scrub = String.instance_method(:scrub)
  dup = String.instance_method(:dup)
  force = String.instance_method(:force_encoding)
  bytesize = String.instance_method(:bytesize)
  inspect = Kernel.instance_method(:inspect)
  utf8 = Encoding::UTF_8
  code_file = Sandbox::CODE_FILE
  max_traceback = Sandbox::MAX_TRACEBACK
  max_result = Sandbox::MAX_RESULT_BYTES
  sink_class = Sandbox::Sink
  stream_class = Sandbox::Stream
  remove_const = Module.instance_method(:remove_const)
  const_set = Module.instance_method(:const_set)
  obj = Object
  hash_class = Hash
  array_class = Array
  string_class = String
  # Guest code runs in a binding of a proc made here, at the top level of this boot-time evaluation: that
  # evaluation has returned, so a guest `return` (also one inside a block) is a LocalJumpError, not a return out of
  # run_hex (which would lose the logs and hand the host a non-String).
  toplevel_proc = proc { binding }
  # A code context's binding, one per instance (so per context: each has its own memory). Made from the top level's
  # binding, not here, so that guest code sees none of these locals; the binding of a proc whose lambda has returned,
  # so that its locals persist between executes and a `return` is a LocalJumpError as above.
  session_binding = TOPLEVEL_BINDING.eval("-> { proc { binding } }.call.call")
  workspace = "/workspace"
  chdir = Dir.method(:chdir)
  pwd = Dir.method(:pwd)
  directory = File.method(:directory?)
  expand = File.method(:expand_path)
  load_path = $LOAD_PATH
  in_workspace = ->(p) { string_class === p && (p == workspace || p.start_with?(workspace + "/")) }
  # Before a context's execute: /workspace first on the load path (`require "mine"` finds /workspace/mine.rb), and the
  # context's cwd, when it is under /workspace (the core sends only such a cwd; anything else leaves Dir.pwd as is).
  session_prepare = lambda do |cwd|
    load_path.delete(workspace) if load_path.first != workspace && load_path.include?(workspace)
    load_path.unshift(workspace) unless load_path.first == workspace
    return if cwd.empty?
    target = expand.(cwd, "/")
    chdir.(target) if in_workspace.(target)
  rescue SystemCallError, ArgumentError, TypeError, FrozenError
    nil
  end
  # After it: Dir.pwd when it is an existing directory under /workspace, else /workspace (protocol §4.4: a cwd
  # outside the workspace is never the context's).
  session_cwd = lambda do
    now = (pwd.() rescue nil)
    in_workspace.(now) && (directory.(now) rescue false) ? now : workspace
  end
  fallback = '{"logs":{"stdout":[],"stderr":[]},"results":[],"error":{"name":"EngineError",' \
             '"message":"The Ruby driver could not encode the outcome","traceback":[]}}'.freeze
  # The driver's own failure, naming what failed (ASCII only: guest text may be what broke the encoder).
  fallback_with = lambda do |e|
    what = "#{e.class}: #{e.message}".encode("US-ASCII", invalid: :replace, undef: :replace).gsub(/[^ -~]/, "?")
    fallback.sub("outcome", "outcome (" + what.gsub(/["\\]/, "?")[0, 200] + ")")
  end
  limit_outcome = lambda do |message|
    '{"logs":{"stdout":[],"stderr":[]},"results":[],"error":{"name":"ExecutionLimitError","message":"' +
      message + '","traceback":[]}}'
  end

  text = lambda do |s|
    s = string_class === s ? s : (inspect.bind_call(s) rescue "?")
    s = force.bind_call(dup.bind_call(s), utf8)
    scrub.bind_call(s, "\uFFFD")
  end
  str_json = ->(s) { generate.call(text.(s)) }
  list_json = ->(items) { "[" + items.map { |i| str_json.(i) }.join(",") + "]" }

  # protocol §3.2 / §6.5: nil -> none; Hash/Array -> json when JSON.generate succeeds; else value.inspect.
  result_json = lambda do |value|
    return nil if value.nil?
    if hash_class === value || array_class === value
      begin
        return '{"json":' + generate.call(value) + "}"
      rescue Exception # rubocop:disable Lint/RescueException -- a NaN, a guest's own to_json/to_s raising, recursion
      end
    end
    shown = begin
      value.inspect
    rescue Exception => e # rubocop:disable Lint/RescueException
      raise e
    end
    '{"text":' + str_json.(shown) + "}"
  end

  error_json = lambda do |e|
    name = (obj.instance_method(:class).bind_call(e).name rescue nil) || "Exception"
    message = (e.message rescue nil)
    message = (obj.instance_method(:inspect).bind_call(e) rescue "") unless string_class === message
    trace = (e.backtrace rescue nil)
    trace = [] unless array_class === trace
    frames = trace.select { |f| string_class === f && f.start_with?(code_file) }
    frames = frames.first(max_traceback) + ["... #{frames.size - max_traceback} levels..."] if
      frames.size > max_traceback + 1
    '{"name":' + str_json.(name) + ',"message":' + str_json.(message) + ',"traceback":' + list_json.(frames) + "}"
  end

  # protocol §6.5: a break/next/redo/retry escaping the top level is a LocalJumpError. Ruby's parser (Prism, 3.4 and 4.0) refuses
  # them when compiling ("Invalid break"); when that is the only syntax error, it is reported as the jump it is.
  syntax_error = SyntaxError
  jump_error = lambda do |e|
    message = (e.message rescue "")
    return e unless string_class === message && message.match?(/\A[^\n]*: syntax error found\n/) &&
                    (jump = message[/\^~* (Invalid (?:break|next|redo|retry)\b.*)$/, 1])
    LocalJumpError.new(jump)
  end

  swap_const = lambda do |name, value|
    old = obj.const_get(name)
    remove_const.bind_call(obj, name)
    const_set.bind_call(obj, name, value)
    old
  end

  # cwd: nil for a stateless request, the context's cwd (maybe "") for a context's execute.
  lambda do |code, env_json, cwd|
    session = !cwd.nil?
    sink = sink_class.new
    out = stream_class.new(sink, 1)
    err = stream_class.new(sink, 2)
    env = {}
    (parse.call(env_json) || {}).each { |k, v| env[text.(k.to_s).freeze] = text.(v.to_s).freeze } if env_json
    code = scrub.bind_call(force.bind_call(code, utf8), "\uFFFD")
    saved = [$stdout, $stderr, swap_const.(:STDOUT, out), swap_const.(:STDERR, err), swap_const.(:ENV, env)]
    $stdout = out
    $stderr = err
    value = error = nil
    session_prepare.(force.bind_call(dup.bind_call(cwd), utf8)) if session
    begin
      value = (session ? session_binding : toplevel_proc.call).eval(code, code_file, 1)
    rescue Exception => e # rubocop:disable Lint/RescueException -- every guest failure is an outcome
      error = e
    end
    error = jump_error.(error) if syntax_error === error
    # The guest may have reassigned these; the outcome is built with the host streams restored.
    $stdout, $stderr = saved[0], saved[1]
    swap_const.(:STDOUT, saved[2])
    swap_const.(:STDERR, saved[3])
    swap_const.(:ENV, saved[4])
    # A context keeps the logs written before a limit; a stateless request reports none (protocol §11 item 7).
    cwd_json = session ? ',"cwd":' + generate.call(session_cwd.()) : ""
    logs = '{"logs":{"stdout":' + list_json.(sink.lines(1)) + ',"stderr":' + list_json.(sink.lines(2)) + "}"
    limited = lambda do |message|
      return limit_outcome.(message) unless session
      logs + ',"results":[],"error":{"name":"ExecutionLimitError","message":"' + message + '","traceback":[]}' +
        cwd_json + "}"
    end
    return limited.("Output limit exceeded") if sink.limited

    entry = nil
    if error.nil?
      begin
        entry = result_json.(value)
      rescue Exception => e # rubocop:disable Lint/RescueException -- value.inspect raised: that is the error
        error = e
      end
    end
    body = logs + ',"results":[' + (entry || "") + "]"
    body << ',"error":' << error_json.(error) if error
    body << cwd_json << "}"
    return limited.("Result limit exceeded") if bytesize.bind_call(body) > max_result

    body
  rescue Exception => e # rubocop:disable Lint/RescueException -- the guest broke something the encoder needs
    (fallback_with.(e) rescue fallback)
  end
end.call

pack = Array.instance_method(:pack)
string_class = String
Sandbox.define_singleton_method(:run_hex) do |code_hex, env_hex, cwd_hex = nil|
  outcome = sandbox_run.(pack.bind_call([code_hex], "H*"), pack.bind_call([env_hex], "H*"),
                         cwd_hex && pack.bind_call([cwd_hex], "H*"))
  string_class === outcome ? outcome : '{"logs":{"stdout":[],"stderr":[]},"results":[],"error":{"name":"EngineError",' \
                                       '"message":"The Ruby driver returned no outcome","traceback":[]}}'

end

# Start in /workspace: the boot image is taken with /workspace mounted, so every instance started from it (a context,
# or a stateless request with its disabled /workspace) reports Dir.pwd == "/workspace", as Perl and Python do.
begin
  Dir.chdir("/workspace")
rescue SystemCallError
  nil
end
true
