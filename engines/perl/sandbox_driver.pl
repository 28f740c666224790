# The Perl side of the sandbox driver (protocol §3, §6.4), loaded once from /stdlib when the interpreter boots; the
# host side is cpp/wasmify/perl.cpp. One call: the host sets $Sandbox::REQ (the request: mode, env JSON, cwd and
# code, NUL-separated), evaluates `Sandbox::run()`, and reads the outcome JSON from $Sandbox::OUT and, for a session,
# the working directory from $Sandbox::CWD.
#
# User code runs in a string eval compiled by _user() below, which is defined before any lexical variable of this
# file, so user code sees none of the driver's state.
package Sandbox;
sub _user { eval "package main;\n#line 1 \"sandbox\"\n" . $Sandbox::CODE . "\n;" }

# `exit` would tear the interpreter down, and `sleep` would stall a request on wall-clock time: in user code `exit`
# ends the program (0: normally, keeping its output; otherwise as an error) and `sleep` returns at once.
package Sandbox::Exit;
sub new { my ($class, $status) = @_; bless { status => $status }, $class }
package Sandbox;
BEGIN {
  *CORE::GLOBAL::exit = sub { die Sandbox::Exit->new(int(@_ ? ($_[0] // 0) : 0)) };
  *CORE::GLOBAL::sleep = sub { @_ ? int($_[0] // 0) : 0 };
}

package Sandbox::Capture;
# STDOUT and STDERR are tied to this class during a call: output is kept as character strings (the reference's UTF-8
# layer, protocol §6.4) and counted in UTF-8 bytes against the output limit; past the limit nothing more is stored.
sub TIEHANDLE { my ($class, $fd) = @_; bless { fd => $fd }, $class }
sub PRINT {
  my $self = shift;
  my $text = join(defined $, ? $, : '', map { defined $_ ? $_ : '' } @_);
  $text .= $\ if defined $\;
  Sandbox::_capture($self->{fd}, $text);
  1;
}
sub PRINTF { my $self = shift; my $fmt = shift; Sandbox::_capture($self->{fd}, sprintf($fmt, @_)); 1 }
sub WRITE {
  my ($self, $buf, $len, $offset) = @_;
  $offset = 0 unless defined $offset;
  $len = length($buf) - $offset unless defined $len;
  Sandbox::_capture($self->{fd}, substr($buf, $offset, $len));
  $len;
}
sub BINMODE { 1 }
sub FILENO { $_[0]{fd} + 1 }
sub CLOSE { 1 }
sub OPEN { 1 }
sub EOF { 1 }
sub READLINE { undef }
sub GETC { undef }
sub READ { 0 }
sub UNTIE { 1 }

package Sandbox;
use strict;
use warnings;
no warnings 'once';
use JSON::PP ();
# Our POSIX and Storable (engines/perl/lib/: zeroperl links neither extension), after zeroperl's own library. They
# and Encode are loaded here, into the boot image, so that a request's `use POSIX` costs an import, not a compile
# (about 79,000 fuel units and 50 ms for POSIX, 58,000 for Encode).
push @INC, '/stdlib/lib';
require POSIX;
require Storable;
require Encode;
use Cwd ();

our ($REQ, $CODE, $OUT, $CWD);
my $MAX_OUTPUT_BYTES = 32768;   # stdout + stderr, UTF-8 bytes (protocol §3.3)
my $MAX_RESULT_BYTES = 65536;   # the serialized result (protocol §3.2)
my $JSON = JSON::PP->new->canonical->allow_nonref;
my $WIRE = JSON::PP->new->canonical->allow_nonref->ascii;
my (@chunks, $total, $over);

sub _bytes { my $s = shift; utf8::upgrade($s); utf8::encode($s); length $s }

# Past the cap the program ends there (issue 22 item 4): every print from then on dies, so a print loop stops at its
# first refused line instead of running on to the fuel limit.
sub _capture {
  my ($fd, $text) = @_;
  die "Output limit exceeded\n" if $over;
  return unless length $text;
  $total += _bytes($text);
  if ($total > $MAX_OUTPUT_BYTES) { $over = 1; die "Output limit exceeded\n" }
  push @chunks, [$fd, $text];
}

sub _lines {
  my $fd = shift;
  my $all = join '', map { $_->[0] == $fd ? $_->[1] : () } @chunks;
  return [] unless length $all;
  my @lines = split /\n/, $all, -1;
  pop @lines if @lines && $lines[-1] eq '';
  \@lines;
}

sub _limit { { name => 'ExecutionLimitError', message => $_[0], traceback => [] } }

# protocol §6.4: name = ref($@) for an exception object, else PerlError; message = "$@" without trailing newlines.
sub _describe {
  my $err = shift;
  my $name = ref($err) ? ref($err) : 'PerlError';
  my $message = eval { "$err" };
  $message = $name unless defined $message;
  $message =~ s/\n+\z//;
  { name => $name, message => $message, traceback => [] };
}

# The result entry of a value (protocol §3.2, §6.4): undef -> none; HASH/ARRAY references -> json when JSON::PP encodes
# them, else text; anything else -> its stringification.
sub _entry {
  my $value = shift;
  return undef unless defined $value;
  my $type = ref $value;
  if ($type eq 'HASH' || $type eq 'ARRAY') {
    my $json = eval { $JSON->encode($value) };
    return ['json', $json] if defined $json;
  }
  my $text = eval { "$value" };
  $text = $type unless defined $text;
  ['text', $text];
}

# %ENV becomes a plain hash of the request's envVars as character strings (protocol §6.1, §6.4): no process environment
# leaks, and no setenv magic re-encodes values to bytes or warns about wide characters.
sub _set_env {
  my $json = shift;
  my $env = length($json) ? eval { JSON::PP->new->utf8->decode($json) } : undef;
  my %plain = ref $env eq 'HASH' ? %$env : ();
  *main::ENV = \%plain;
}

sub run {
  utf8::encode($REQ) if utf8::is_utf8($REQ);    # the host's bytes, whatever flag the SV was given
  my ($mode, $env, $cwd, $code) = split /\0/, $REQ, 4;
  $REQ = undef;
  my $session = $mode eq 'session';
  $code = '' unless defined $code;
  utf8::decode($code);    # string literals are characters, printed through the UTF-8 capture (protocol §10.3 item 61)
  @chunks = ();
  ($total, $over) = (0, 0);
  _set_env($env);
  if ($session && length $cwd) { chdir $cwd }
  local $SIG{__DIE__};
  local $SIG{__WARN__};
  local $@;
  my ($entry, $error);
  {
    local *STDOUT;
    local *STDERR;
    tie *STDOUT, 'Sandbox::Capture', 0;
    tie *STDERR, 'Sandbox::Capture', 1;
    my $previous = select(STDOUT);
    $CODE = $code;
    my $value = Sandbox::_user();
    $CODE = undef;
    if (ref $@ eq 'Sandbox::Exit') {
      $error = { name => 'PerlError', message => "exit($@->{status}) called", traceback => [] } if $@->{status};
    } elsif ($@) {
      $error = _describe($@);
    } else {
      $entry = eval { _entry($value) };
      $error = _describe($@) if $@;
    }
    undef $value;
    select($previous);
    untie *STDOUT;
    untie *STDERR;
  }
  my $limited = 0;
  if ($over) {
    ($error, $entry, $limited) = (_limit('Output limit exceeded'), undef, 1);
  } elsif ($entry && !$error && _bytes($entry->[1]) > $MAX_RESULT_BYTES) {
    ($error, $entry, $limited) = (_limit('Result limit exceeded'), undef, 1);
  }
  my ($stdout, $stderr) = ($limited && !$session) ? ([], []) : (_lines(0), _lines(1));   # protocol §11 item 7
  @chunks = ();
  my $out = '{"logs":{"stdout":' . $WIRE->encode($stdout) . ',"stderr":' . $WIRE->encode($stderr) . '},"results":[';
  if ($entry && !$error) {
    my ($kind, $payload) = @$entry;
    $out .= '{"' . $kind . '":' . ($kind eq 'json' ? _ascii($payload) : $WIRE->encode($payload)) . '}';
  }
  $out .= ']';
  $out .= ',"error":' . $WIRE->encode($error) if $error;
  if ($session) {
    my $now = eval { Cwd::getcwd() };
    $CWD = (defined $now && ($now eq '/workspace' || index($now, '/workspace/') == 0) && -d $now) ? $now : '/workspace';
    $out .= ',"cwd":' . $WIRE->encode($CWD);
  }
  $OUT = $out . '}';
  1;
}

# JSON text (characters) as ASCII-only JSON: every non-ASCII character as \u escapes, so the outcome is bytes.
sub _ascii {
  my $json = shift;
  $json =~ s/([^\x00-\x7f])/my $c = ord $1; $c > 0xffff
    ? sprintf('\\u%04x\\u%04x', 0xd800 + (($c - 0x10000) >> 10), 0xdc00 + (($c - 0x10000) & 0x3ff))
    : sprintf('\\u%04x', $c)/ge;
  $json;
}

# Start in /workspace: the boot image is taken with /workspace mounted, so every instance started from it (a context,
# or a stateless request with its disabled /workspace) reports getcwd() eq '/workspace' even while the workspace is
# disabled and chdir there fails (protocol §6.4, §10.5 item 126).
chdir '/workspace';

1;
