# Storable for the sandbox's Perl (engines/perl/README.md, "POSIX and Storable").
#
# zeroperl links no Storable extension (and Encode needs Storable's dclone), so this is our own implementation, in
# Perl, of Storable's interface: dclone, freeze/nfreeze/thaw, store/nstore/retrieve and their lock_ forms, with
# shared and circular references, blessed objects, regular expressions, the STORABLE_freeze/STORABLE_thaw/
# STORABLE_attach hooks and $Storable::canonical. What it writes is its own format, not Storable's binary one: data
# frozen or stored here is read back here, and thaw/retrieve of Storable's own images is an error that says so.
# Strings keep their UTF-8 flag, numbers stay numbers and booleans booleans. CODE and GLOB references are an error,
# as in Storable (no $Storable::Deparse/Eval).
package Storable;
use strict;
use warnings;
no warnings 'experimental::builtin';
our $VERSION = '3.32_sw';

use Exporter 'import';
use Carp ();
use Scalar::Util ();

our @EXPORT = qw(store retrieve);
our @EXPORT_OK = qw(nstore store_fd nstore_fd fd_retrieve freeze nfreeze thaw dclone retrieve_fd lock_store
                    lock_nstore lock_retrieve file_magic read_magic);
our %EXPORT_TAGS = (all => [@EXPORT, @EXPORT_OK]);
our $canonical;
our $flags = 0;
our ($Deparse, $Eval) = (0, 0);

my $MAGIC = "sw-storable\x01";

sub _freeze {
  my ($ref, $cloning) = @_;
  Carp::croak('Not a reference') unless ref $ref;
  my %seen;
  my $next = 0;
  my $out = $MAGIC;
  my ($value, $node);
  $value = sub {
    my $v = shift;
    if (!defined $v) { $out .= 'u'; return }
    if (ref $v) { $out .= 'r'; $node->($v); return }
    if (builtin::is_bool($v)) { $out .= $v ? 'b1' : 'b0'; return }
    if (builtin::created_as_number($v)) {
      my $text = "$v";
      $text = sprintf('%.17g', $v) unless $text + 0 == $v || $v != $v;
      $out .= 'n' . length($text) . ':' . $text;
      return;
    }
    if (utf8::is_utf8($v)) { utf8::encode(my $bytes = $v); $out .= 'w' . length($bytes) . ':' . $bytes; return }
    $out .= 's' . length($v) . ':' . $v;
  };
  my $string = sub {
    my $s = shift;
    if (utf8::is_utf8($s)) { utf8::encode($s); return 'w' . length($s) . ':' . $s }
    's' . length($s) . ':' . $s;
  };
  $node = sub {
    my $r = shift;
    my $addr = Scalar::Util::refaddr($r);
    if (exists $seen{$addr}) { $out .= 'p' . $seen{$addr} . ';'; return }
    $seen{$addr} = $next++;
    my $type = Scalar::Util::reftype($r);
    my $class = Scalar::Util::blessed($r);
    Carp::croak("Can't store $type items") if $type eq 'CODE' || $type eq 'GLOB' || $type eq 'IO' || $type eq 'FORMAT';
    if (defined $class && $type ne 'REGEXP') {
      if (my $hook = $r->can('STORABLE_freeze')) {
        my ($serialized, @refs) = $hook->($r, $cloning ? 1 : 0);
        if (defined $serialized) {
          my $kind = $type eq 'ARRAY' ? 'A' : $type eq 'HASH' ? 'H' : 'S';
          $out .= 'K' . $string->($class) . $kind . $string->($serialized) . scalar(@refs) . ';';
          for my $x (@refs) {
            Carp::croak("Item returned by STORABLE_freeze for $class is not a reference") unless ref $x;
            $node->($x);
          }
          return;
        }
      }
    }
    $out .= 'B' . $string->($class) if defined $class && !($type eq 'REGEXP' && $class eq 'Regexp');
    if ($type eq 'ARRAY') {
      $out .= 'A' . scalar(@$r) . ';';
      $value->($_) for @$r;
    } elsif ($type eq 'HASH') {
      my @keys = keys %$r;
      @keys = sort @keys if $canonical;
      $out .= 'H' . scalar(@keys) . ';';
      for my $k (@keys) { $out .= $string->($k); $value->($r->{$k}) }
    } elsif ($type eq 'REGEXP') {
      my ($pattern, $mods) = re::regexp_pattern($r);
      $out .= 'Q' . $string->($pattern) . $string->($mods);
    } else {    # SCALAR, REF, VSTRING, LVALUE: the scalar it points to
      $out .= 'S';
      $value->($$r);
    }
  };
  # The two closures refer to each other: break the cycle whatever happens.
  my $ok = eval { $node->($ref); 1 };
  my $err = $@;
  undef $node;
  undef $value;
  die $err unless $ok;
  $out;
}

sub _thaw {
  my ($frozen, $cloning) = @_;
  return undef unless defined $frozen;
  if (substr($frozen, 0, length $MAGIC) ne $MAGIC) {
    Carp::croak('Storable: not data frozen by this sandbox\'s Storable (images of the C Storable cannot be read here)');
  }
  my $pos = length $MAGIC;
  my @nodes;
  my $bad = sub { Carp::croak("Storable: corrupt frozen data at byte $pos") };
  my $count = sub {
    my $end = index($frozen, ';', $pos);
    $bad->() if $end < 0;
    my $n = substr($frozen, $pos, $end - $pos);
    $bad->() unless $n =~ /^\d+$/;
    $pos = $end + 1;
    $n;
  };
  my $sized = sub {
    my $end = index($frozen, ':', $pos);
    $bad->() if $end < 0;
    my $n = substr($frozen, $pos, $end - $pos);
    $bad->() unless $n =~ /^\d+$/ && $end + 1 + $n <= length $frozen;
    $pos = $end + 1 + $n;
    substr($frozen, $end + 1, $n);
  };
  my $string = sub {
    my $tag = substr($frozen, $pos++, 1);
    my $s = $sized->();
    if ($tag eq 'w') { utf8::decode($s) or $bad->() } elsif ($tag ne 's') { $bad->() }
    $s;
  };
  my ($value, $node);
  $value = sub {
    my $tag = substr($frozen, $pos++, 1);
    return undef if $tag eq 'u';
    return $node->() if $tag eq 'r';
    if ($tag eq 'b') { my $b = substr($frozen, $pos++, 1); return $b ? !!1 : !!0 }
    if ($tag eq 'n') { return 0 + $sized->() }
    if ($tag eq 's' || $tag eq 'w') { $pos--; return $string->() }
    $bad->();
  };
  $node = sub {
    my $tag = substr($frozen, $pos++, 1);
    if ($tag eq 'p') { my $i = $count->(); $bad->() unless $i < @nodes; return $nodes[$i] }
    my $class;
    if ($tag eq 'B') { $class = $string->(); $tag = substr($frozen, $pos++, 1) }
    if ($tag eq 'K') {
      $class = $string->();
      my $kind = substr($frozen, $pos++, 1);
      my $serialized = $string->();
      my $n = $count->();
      my $index = @nodes;
      push @nodes, undef;
      if ($class->can('STORABLE_attach') && !$n) {
        my $obj = $class->STORABLE_attach($cloning ? 1 : 0, $serialized);
        Carp::croak("STORABLE_attach did not return a $class object") unless Scalar::Util::blessed($obj) && $obj->isa($class);
        return $nodes[$index] = $obj;
      }
      my $obj = $kind eq 'A' ? [] : $kind eq 'H' ? {} : \my $s;
      bless $obj, $class;
      $nodes[$index] = $obj;
      my @refs = map { $node->() } 1 .. $n;
      my $hook = $obj->can('STORABLE_thaw')
        or Carp::croak("No STORABLE_thaw defined for objects of class $class (even after a \"require $class;\")");
      $hook->($obj, $cloning ? 1 : 0, $serialized, @refs);
      return $obj;
    }
    my $r;
    if ($tag eq 'A') {
      my @a;
      $r = \@a;
      push @nodes, $r;
      my $n = $count->();
      push @a, $value->() for 1 .. $n;
    } elsif ($tag eq 'H') {
      my %h;
      $r = \%h;
      push @nodes, $r;
      my $n = $count->();
      for (1 .. $n) { my $k = $string->(); $h{$k} = $value->() }
    } elsif ($tag eq 'S') {
      my $s;
      $r = \$s;
      push @nodes, $r;
      $s = $value->();
    } elsif ($tag eq 'Q') {
      my $pattern = $string->();
      my $mods = $string->();
      $r = length $mods ? qr/(?$mods)$pattern/ : qr/$pattern/;
      push @nodes, $r;
    } else {
      $bad->();
    }
    bless $r, $class if defined $class;
    $r;
  };
  my $result;
  my $ok = eval { $result = $node->(); $bad->() unless $pos == length $frozen; 1 };
  my $err = $@;
  undef $node;
  undef $value;
  die $err unless $ok;
  $result;
}

sub freeze  { _freeze($_[0], 0) }
sub nfreeze { _freeze($_[0], 0) }
sub thaw    { _thaw($_[0], 0) }
sub dclone  { _thaw(_freeze($_[0], 1), 1) }

sub _store {
  my ($ref, $file) = @_;
  Carp::croak('Usage: store(ref, file)') unless defined $file;
  my $data = _freeze($ref, 0);
  open(my $fh, '>:raw', $file) or Carp::croak("can't create $file: $!");
  print {$fh} $data or Carp::croak("can't write $file: $!");
  close($fh) or Carp::croak("can't close $file: $!");
  1;
}
sub _retrieve {
  my ($file) = @_;
  open(my $fh, '<:raw', $file) or Carp::croak("can't open $file: $!");
  local $/;
  my $data = <$fh>;
  close($fh);
  _thaw($data, 0);
}
sub store       { _store(@_) }
sub nstore      { _store(@_) }
sub lock_store  { _store(@_) }
sub lock_nstore { _store(@_) }
sub retrieve      { _retrieve(@_) }
sub lock_retrieve { _retrieve(@_) }

sub store_fd  { my ($ref, $fh) = @_; print {$fh} _freeze($ref, 0) or Carp::croak("can't write: $!"); 1 }
sub nstore_fd { store_fd(@_) }
sub fd_retrieve { my ($fh) = @_; local $/; _thaw(scalar(<$fh>), 0) }
sub retrieve_fd { fd_retrieve(@_) }
sub file_magic { undef }
sub read_magic { undef }

1;
