import { GATEWAY_SOCKETS, GATEWAY_VERSION, REQUEST_MAX_BYTES, SERVED_COMMANDS } from '@orange/core';

/** The gateway's socket as the client connects to it, worked out by this perl when the client is written. */
export interface PerlSocket {
  /** The socket's path (the client compares it with the one its environment names). */
  readonly path: string;
  /** AF_UNIX, SOCK_STREAM and `pack_sockaddr_un(path)` (hex) on this system. */
  readonly family: number;
  readonly type: number;
  readonly address: string;
}

/** Where the client finds Perl, the gateway and, for the calls the gateway does not answer, the CLI. */
export interface PerlClientSetup {
  /** Absolute path of the perl that runs the client (its `#!` line). */
  readonly perl: string;
  readonly socket: PerlSocket;
  /** Node and the CLI entry that run what the gateway does not answer; null where there is no CLI (the client then says so). */
  readonly cli: { readonly node: string; readonly entry: string } | null;
}

/** A Perl single-quoted string: only `\` and `'` are special inside one. */
function perlString(text: string): string {
  return `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

/**
 * The agent's `orange` as a Perl program: the gateway's client (the same protocol and the same
 * decisions as `callGateway`), in a process that costs ~3 ms of CPU where Node's start alone costs
 * ~60 — an agent calls `orange` a handful of times per task, and with a fleet those starts were a
 * third of all the CPU Orange used (docs/performance.md). It loads no module: the socket's address
 * is packed when the client is written. What the gateway does not answer — no gateway, a person's
 * call, help, a command it does not serve, a file it cannot read, a referral, another Orange home —
 * is handed to the CLI with the same arguments and standard input. Perl ships wherever git does
 * (Debian's git depends on it; macOS has it); where it does not, the shim runs Node (orange-shim.ts).
 */
export function perlClientScript(setup: PerlClientSetup): string {
  const served = SERVED_COMMANDS.agent.map((words) => `[${words.map(perlString).join(', ')}]`).join(', ');
  const cli = setup.cli ? `(${perlString(setup.cli.node)}, ${perlString(setup.cli.entry)})` : '()';
  const values: Record<string, string> = {
    PERL: setup.perl,
    CLI: cli,
    SERVED: served,
    SOCKET: perlString(setup.socket.path),
    SUFFIX: perlString(`/${GATEWAY_SOCKETS.agent.join('/')}`),
    FAMILY: String(setup.socket.family),
    TYPE: String(setup.socket.type),
    ADDRESS: perlString(setup.socket.address),
    VERSION: String(GATEWAY_VERSION),
    MAX_BYTES: String(REQUEST_MAX_BYTES),
  };
  return PERL_CLIENT.replace(/@@([A-Z_]+)@@/g, (_, name: string) => values[name] ?? '');
}

// Perl's builtins only (no module: loading Socket alone costs ~8 ms), so the few lines of JSON are
// written and read here.
const PERL_CLIENT = String.raw`#!@@PERL@@
# Orange's client for an agent's calls, written by Orange (plugins/tmux/src/perl-client.ts).
use strict;

my @CLI = @@CLI@@;
my @SERVED = (@@SERVED@@);
my $SOCKET = @@SOCKET@@;
my ($FAMILY, $TYPE, $ADDRESS) = (@@FAMILY@@, @@TYPE@@, @@ADDRESS@@);
my $VERSION = @@VERSION@@;
my $MAX_BYTES = @@MAX_BYTES@@;
my $FILE_MAX_BYTES = 1024 * 1024;
my %VALUE_FLAGS = map { $_ => 1 } ('--project', '-p', '--task', '--text', '--file');

$SIG{PIPE} = 'IGNORE';
binmode STDOUT;
binmode STDERR;

# The CLI runs the call, with the standard input this process read (if it read any).
sub cli {
  my ($input) = @_;
  if (!@CLI) {
    print STDERR "orange: no Orange answers agents here (its gateway is not listening); ask the person running Orange\n";
    exit 1;
  }
  if (defined $input) {
    open(my $temp, '+>', undef) or die "orange: cannot keep standard input: $!\n";
    binmode $temp;
    print {$temp} $input;
    seek($temp, 0, 0);
    open(STDIN, '<&', $temp) or die "orange: cannot keep standard input: $!\n";
  }
  # An ignored SIGPIPE would outlive the exec.
  $SIG{PIPE} = 'DEFAULT';
  exec { $CLI[0] } @CLI, @ARGV;
  print STDERR "orange: cannot run $CLI[0]: $!\n";
  exit 127;
}

sub served_words {
  WORDS: for my $words (@SERVED) {
    for my $i (0 .. $#$words) {
      next WORDS if !defined $ARGV[$i] || $ARGV[$i] ne $words->[$i];
    }
    return $words;
  }
  return undef;
}

sub json_string {
  my ($text) = @_;
  $text =~ s/(["\\])/\\$1/g;
  $text =~ s/([\x00-\x1f])/sprintf('\\u%04x', ord($1))/ge;
  return qq("$text");
}

# Reads one JSON value from the character string in $_ at pos(); dies on anything else.
sub json_value {
  /\G\s*/gc;
  if (/\G\{/gc) {
    my %object;
    /\G\s*/gc;
    return \%object if /\G\}/gc;
    while (1) {
      /\G\s*/gc;
      /\G"/gc or die "a key\n";
      pos() -= 1;
      my $key = json_value();
      /\G\s*:/gc or die "a colon\n";
      $object{$key} = json_value();
      /\G\s*/gc;
      next if /\G,/gc;
      return \%object if /\G\}/gc;
      die "an object\n";
    }
  }
  if (/\G\[/gc) {
    my @array;
    /\G\s*/gc;
    return \@array if /\G\]/gc;
    while (1) {
      push @array, json_value();
      /\G\s*/gc;
      next if /\G,/gc;
      return \@array if /\G\]/gc;
      die "an array\n";
    }
  }
  if (/\G"/gc) {
    my $text = '';
    while (1) {
      if (/\G([^"\\]+)/gc) { $text .= $1; next; }
      return $text if /\G"/gc;
      if (/\G\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})/gc) {
        $text .= chr(0x10000 + ((hex($1) - 0xD800) << 10) + (hex($2) - 0xDC00));
        next;
      }
      if (/\G\\u([0-9a-fA-F]{4})/gc) {
        my $code = hex($1);
        $text .= ($code >= 0xD800 && $code <= 0xDFFF) ? "\x{FFFD}" : chr($code);
        next;
      }
      if (/\G\\(["\\\/bfnrt])/gc) {
        my %escaped = ('"' => '"', '\\' => '\\', '/' => '/', b => "\b", f => "\f", n => "\n", r => "\r", t => "\t");
        $text .= $escaped{$1};
        next;
      }
      die "a string\n";
    }
  }
  return $1 + 0 if /\G(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)/gc;
  return 1 if /\Gtrue/gc;
  return 0 if /\Gfalse/gc;
  return undef if /\Gnull/gc;
  die "a value\n";
}

sub read_all {
  my ($handle) = @_;
  binmode $handle;
  local $/;
  my $text = <$handle>;
  return defined $text ? $text : '';
}

sub cut {
  my ($reason) = @_;
  print STDERR "orange: the Orange serving this call stopped answering ($reason); the call may or may not have been carried out: check with orange task show\n";
  exit 1;
}

# Only an agent's own commands, with the identity Orange gave it; anything else is the CLI's.
cli() if !defined $ENV{ORANGE_AGENT_SECRET} || $ENV{ORANGE_AGENT_SECRET} eq '';
my $words = served_words();
cli() if !defined $words || grep { $_ eq '--help' || $_ eq '-h' } @ARGV;

my $cwd = readlink('/proc/self/cwd') // do { require Cwd; Cwd::getcwd() };
my $home = (defined $ENV{ORANGE_HOME} && $ENV{ORANGE_HOME} =~ /\S/) ? $ENV{ORANGE_HOME} : ($ENV{HOME} // (getpwuid($<))[7]) . '/orange';
$home = "$cwd/$home" if $home !~ m{^/};
$home =~ s{/+$}{};
# Another Orange home than the one this client was written for, or nothing listens: the CLI carries
# the call out (standard input untouched).
cli() if $home . @@SUFFIX@@ ne $SOCKET;
socket(my $connection, $FAMILY, $TYPE, 0) or cli();
connect($connection, pack('H*', $ADDRESS)) or cli();

my @args = @ARGV;
my $input;
if ($words->[1] eq 'section') {
  my $wants_stdin = 0;
  for (my $i = scalar(@$words); $i < @args; $i++) {
    my $arg = $args[$i];
    last if $arg eq '--';
    my $value = $arg eq '--file' ? $args[$i + 1] : $arg =~ /^--file=(.*)$/s ? $1 : undef;
    if (defined $value && $value ne '-') {
      # Read here and sent as standard input: the server reads no file for a caller.
      my $path = $value =~ m{^/} ? $value : "$cwd/$value";
      my $file;
      cli() if !-f $path || (-s _ || 0) > $FILE_MAX_BYTES || !open($file, '<', $path);
      $input = read_all($file);
      if ($arg eq '--file') { splice(@args, $i, 2, '--file', '-'); }
      else { splice(@args, $i, 1, '--file=-'); }
      $i++;
      next;
    }
    $wants_stdin = 1 if (defined $value && $value eq '-') || ($arg eq '-' && !($i > 0 && $VALUE_FLAGS{$args[$i - 1]}));
    $i++ if $VALUE_FLAGS{$arg};
  }
  $input = read_all(\*STDIN) if $wants_stdin;
}

my @env;
for my $key (sort keys %ENV) {
  next if $key eq 'ORANGE_PROMPT';
  push @env, json_string($key) . ':' . json_string($ENV{$key}) if $key =~ /^ORANGE_/ || $key eq 'TMUX' || $key eq 'TMUX_PANE';
}
my $request = '{"v":' . $VERSION
  . ',"argv":[' . join(',', map { json_string($_) } @args) . ']'
  . ',"cwd":' . json_string($cwd)
  . ',"env":{' . join(',', @env) . '}'
  . ',"stdin":' . json_string($input // '')
  . ',"pid":' . $$ . "}\n";
if (length($request) > $MAX_BYTES + 1) {
  close($connection);
  cli($input);
}

binmode $connection;
my $sent = 0;
while ($sent < length($request)) {
  my $n = syswrite($connection, $request, length($request) - $sent, $sent);
  cut($! + 0 ? "$!" : 'the connection closed') if !$n;
  $sent += $n;
}
my $answer = '';
while (index($answer, "\n") < 0) {
  my $n = sysread($connection, $answer, 65536, length($answer));
  cut(defined $n ? 'the connection closed' : "$!") if !$n;
}
close($connection);
$_ = substr($answer, 0, index($answer, "\n"));
utf8::decode($_);
my $reply = eval { json_value() };
cut('its answer was not readable') if ref($reply) ne 'HASH';
# Nothing was done: the CLI carries the call out itself.
cli($input) if exists $reply->{refer};
cut('it answered out of turn') if !exists $reply->{exit};
for my $part (['stdout', \*STDOUT], ['stderr', \*STDERR]) {
  my $text = $reply->{$part->[0]} // '';
  utf8::encode($text);
  print {$part->[1]} $text;
}
exit($reply->{exit});
`;
