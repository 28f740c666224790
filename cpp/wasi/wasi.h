// cpp/wasi: the WASI preview1 host every language engine runs under (protocol §5.4, §5.5, §3.3, §7.11).
//
// One Host per guest instance holds everything the guest can see: the descriptor table (stdio, the /stdlib archive,
// /dev, /workspace in the fixed order of protocol §5.4), the in-memory file system, captured stdout/stderr, the fuel
// meter and the pending trap. Every syscall has the uvwasi shape
//
//     Errno fd_write(Host&, uint32_t fd, uint32_t iovs, uint32_t iovsLen, uint32_t nwrittenPtr);
//
// declared below from the table in syscalls.def: the host first, guest-side values after, the WASI errno returned.
// No syscall throws. Guest memory is reached only through GuestMemory, bounds-checked (out of range -> Fault).
//
// A syscall that must not return to the guest (proc_exit, the output limit, fuel exhaustion, a host failure)
// records a Trap on the Host and returns Errno::Trap, which is not a WASI errno: the bridge turns it into a
// JavaScript throw that unwinds the guest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sw::wasi {

namespace detail {
struct HostState;
struct Mount;
struct Node;
}  // namespace detail

// WASI errno values (wasi_snapshot_preview1), plus Trap.
enum class Errno : uint16_t {
  Success = 0, TooBig = 1, Acces = 2, AddrInUse = 3, AddrNotAvail = 4, AfNoSupport = 5, Again = 6, Already = 7,
  Badf = 8, BadMsg = 9, Busy = 10, Canceled = 11, Child = 12, ConnAborted = 13, ConnRefused = 14, ConnReset = 15,
  Deadlk = 16, DestAddrReq = 17, Dom = 18, Dquot = 19, Exist = 20, Fault = 21, Fbig = 22, HostUnreach = 23,
  Idrm = 24, Ilseq = 25, InProgress = 26, Intr = 27, Inval = 28, Io = 29, IsConn = 30, IsDir = 31, Loop = 32,
  Mfile = 33, Mlink = 34, MsgSize = 35, Multihop = 36, NameTooLong = 37, NetDown = 38, NetReset = 39,
  NetUnreach = 40, Nfile = 41, NoBufs = 42, NoDev = 43, NoEnt = 44, NoExec = 45, NoLck = 46, NoLink = 47,
  NoMem = 48, NoMsg = 49, NoProtoOpt = 50, NoSpc = 51, NoSys = 52, NotConn = 53, NotDir = 54, NotEmpty = 55,
  NotRecoverable = 56, NotSock = 57, NotSup = 58, NoTty = 59, Nxio = 60, Overflow = 61, OwnerDead = 62, Perm = 63,
  Pipe = 64, Proto = 65, ProtoNoSupport = 66, ProtoType = 67, Range = 68, Rofs = 69, Spipe = 70, Srch = 71,
  Stale = 72, TimedOut = 73, TxtBsy = 74, Xdev = 75, NotCapable = 76,
  Trap = 0xffff,  // not a WASI errno: the call does not return to the guest, see Host::trap()
};

// Node-style name ("ENOENT") for an errno; "EUNKNOWN" for values without one.
const char* errnoName(Errno e);

// The guest's linear memory, as the core sees it. Natively a vector (VectorMemory); under Emscripten a pair of
// copy primitives the shim provides (exports.cpp). All access is bounds-checked against size().
class GuestMemory {
 public:
  virtual ~GuestMemory() = default;
  // Current byte length (memory can grow between calls, never shrink).
  virtual uint64_t size() = 0;
  // Copy [guestPtr, guestPtr + len) out of / into the guest. Bounds were checked by the caller.
  virtual void copyOut(uint32_t guestPtr, void* dst, uint32_t len) = 0;
  virtual void copyIn(uint32_t guestPtr, const void* src, uint32_t len) = 0;

  // Bounds-checked access: false if the range leaves the memory (the syscall then answers Fault).
  bool inBounds(uint32_t guestPtr, uint64_t len);
  bool read(uint32_t guestPtr, void* dst, uint32_t len);
  bool write(uint32_t guestPtr, const void* src, uint32_t len);
  bool readU32(uint32_t guestPtr, uint32_t& value);
  bool writeU32(uint32_t guestPtr, uint32_t value);
  bool writeU64(uint32_t guestPtr, uint64_t value);

 private:
  uint64_t knownSize_ = 0;  // memory never shrinks: a range inside it needs no new size() query
};

class VectorMemory final : public GuestMemory {
 public:
  explicit VectorMemory(std::size_t bytes) : bytes_(bytes) {}
  uint64_t size() override { return bytes_.size(); }
  void copyOut(uint32_t guestPtr, void* dst, uint32_t len) override;
  void copyIn(uint32_t guestPtr, const void* src, uint32_t len) override;
  std::vector<uint8_t>& bytes() { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

// --- /stdlib --------------------------------------------------------------------------------------------------

// A read-only tree backed by one archive buffer: an uncompressed ("stored") zip or a ustar/pax tar. Files are
// views into the buffer; only the index (one node per entry) is allocated. Immutable once parsed, so one Archive
// is shared by every Host of an engine.
class Archive {
 public:
  // Errors: "Invalid archive path" (a `..` component, or a file where a directory is needed),
  // "Unsupported archive compression", "Invalid archive". An empty buffer is an empty archive.
  static std::shared_ptr<const Archive> parse(std::vector<uint8_t> bytes, std::string& error);
  ~Archive();
  uint32_t fileCount() const { return fileCount_; }  // under root() and the mounts' roots
  const std::shared_ptr<detail::Node>& root() const { return root_; }

  // Further read-only preopens the archive declares in a root file `.mounts` (kMountsFile), one per line:
  // `<absolute guest path> <directory in the archive>`. Each directory is taken out of /stdlib and preopened at its
  // guest path after /workspace, in the file's order (docs/wasi-host.md, "The mounts"): an engine whose prebuilt
  // module looks for its library at a fixed path (zeroperl's /zeroperl) gets it there without a copy in memory.
  // Errors: "Invalid archive mounts" (a path that is not absolute and plain, one at or around /stdlib, /dev or
  // /workspace, a repeated one, a directory the archive does not hold), at most kMaxMounts.
  struct ArchiveMount {
    std::string guestPath;
    std::shared_ptr<detail::Node> root;
  };
  static constexpr std::string_view kMountsFile = ".mounts";
  static constexpr std::size_t kMaxMounts = 4;
  const std::vector<ArchiveMount>& mounts() const { return mounts_; }

 private:
  Archive();
  std::vector<uint8_t> bytes_;
  std::unique_ptr<detail::Mount> mount_;
  std::shared_ptr<detail::Node> root_;
  std::vector<ArchiveMount> mounts_;
  uint32_t fileCount_ = 0;
};

// --- /workspace -------------------------------------------------------------------------------------------------

// Every workspace limit, in one place (docs/workspace-limits.md). The first three are protocol §7.11's; the path limits
// are ours: entries count, but so must their paths, or a few thousand entries under long names (or a subtree renamed
// under a deep path) make every full-path list -- checkpoint, diff, the result's `dirs` -- grow without bound.
struct WorkspaceLimits {
  uint64_t maxFileBytes = 1048576;     // EFBIG beyond
  uint64_t maxTotalBytes = 16777216;   // ENOSPC beyond; also counts files that are unlinked but still open
  uint32_t maxEntries = 4096;          // files + directories, root excluded; ENOSPC beyond
  uint32_t maxPathBytes = 4096;        // one entry's path below the root ("a/b.txt"); ENAMETOOLONG beyond
  uint32_t maxDepth = 256;             // components of one entry's path; ENAMETOOLONG beyond
  uint64_t maxPathTotalBytes = 1048576;  // the paths of all entries together; ENOSPC beyond
};

// A read-write directory tree with the workspace limits and the live `disabled` flag (protocol §7.11): while disabled
// every guest access through a descriptor of this tree fails with Acces. Host-side access (below) ignores the
// flag, as reconciliation must still work, but not the limits.
class Workspace {
 public:
  explicit Workspace(WorkspaceLimits limits = {});
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  bool disabled() const;
  void setDisabled(bool disabled);
  const WorkspaceLimits& limits() const;
  uint64_t totalBytes() const;
  uint32_t entryCount() const;
  uint64_t pathBytes() const;      // root-relative path bytes of every entry (maxPathTotalBytes)
  uint64_t detachedBytes() const;  // bytes of removed files a guest descriptor still holds (count toward the total)

  // relPath is relative to the root ("a/b.txt"); `.`, `..` and absolute paths are refused with Inval.
  Errno writeFile(std::string_view relPath, std::string_view data, uint64_t mtimeNs = 0);  // creates parents
  Errno makeDirectories(std::string_view relPath);
  // A symbolic link to the relative `target` (the runner copying a host directory in --full-wasi mode); parents must
  // exist. Exist when the path is taken, NotCapable for an absolute target.
  Errno makeSymlink(std::string_view relPath, std::string_view target);
  Errno readFile(std::string_view relPath, std::string& out) const;
  struct Entry {
    std::string path;  // relative, '/'-separated
    bool directory;
    std::string_view data;  // a symlink's target
    uint64_t mtimeNs;
    bool symlink = false;   // only with the reference policy off (HostOptions::referencePolicy)
  };
  // Pre-order, children sorted by name, root excluded.
  void forEach(const std::function<void(const Entry&)>& visit) const;
  // The same walk over one subtree: the entry at relPath first, then everything below it (relPath empty: the whole
  // tree, as forEach). Paths stay root-relative. NoEnt/NotDir when relPath does not name an entry.
  Errno forEachUnder(std::string_view relPath, const std::function<void(const Entry&)>& visit) const;
  // One entry by path; `data` views a file's bytes until the tree next changes. NoEnt/NotDir on the way.
  Errno stat(std::string_view relPath, Entry& out) const;

  // Host-side maintenance for the interpreter's mirror (cpp/workspace). Each keeps totalBytes/entryCount exact and
  // the root node in place, so a mounted instance keeps seeing this tree.
  // Removes a file, or a directory with its whole subtree; NoEnt when absent.
  Errno remove(std::string_view relPath);
  // Removes every entry.
  void clear();
  // Creates every directory on the path, replacing a non-directory in the way; the entry limit does not apply
  // (protocol §2.8 step 1: the caller's shape is authoritative).
  Errno forceDirectories(std::string_view relPath);
  // Sets a file's bytes and mtime in place, creating it (not its parents: NoEnt) if absent; IsDir on a directory.
  // No limit applies: this restores a state that was accounted for before (rollback).
  Errno restoreFile(std::string_view relPath, std::string_view data, uint64_t mtimeNs);
  // Moves a file or a directory's subtree to `to` (rename(2) rules: the destination's parent must exist; a file may
  // replace a file, a directory an empty directory). NoEnt (source or destination parent missing), NotDir (a
  // directory onto a file, or a file on a path's way), IsDir (a file onto a directory), NotEmpty, Inval (a directory
  // into its own subtree), NameTooLong / NoSpc (the moved paths against the path limits). Nothing changes on failure;
  // moved nodes keep their mtime. The caller's Sandbox uses it for the files API's rename (cpp/sandbox).
  Errno rename(std::string_view from, std::string_view to);

  detail::Mount& mount() const { return *mount_; }
  const std::shared_ptr<detail::Node>& root() const { return root_; }

 private:
  std::unique_ptr<detail::Mount> mount_;
  std::shared_ptr<detail::Node> root_;
};

// --- stdio capture (protocol §3.3) ----------------------------------------------------------------------------------

struct OutputLimits {
  uint32_t maxChunks = 200;     // stdout + stderr combined
  uint64_t maxBytes = 32768;    // UTF-8 bytes, stdout + stderr combined
};

class StdioCapture {
 public:
  explicit StdioCapture(OutputLimits limits = {}) : limits_(limits) {}
  // One fd_write = one chunk. Adds the byte length first, ignores empty chunks, then refuses (false, nothing
  // stored) when the total exceeds maxBytes or maxChunks chunks are already stored.
  bool capture(uint32_t fd, std::string_view bytes);
  // True if capture() of `len` bytes would be refused.
  bool wouldRefuse(uint64_t len) const {
    return len != 0 && (totalBytes_ + len > limits_.maxBytes || chunks_.size() >= limits_.maxChunks);
  }
  // Concatenation of a stream's chunks, split on '\n', final empty element (from a trailing newline) dropped.
  std::vector<std::string> lines(uint32_t fd) const;
  std::string text(uint32_t fd) const;
  uint64_t totalBytes() const { return totalBytes_; }
  std::size_t chunkCount() const { return chunks_.size(); }
  void reset();

 private:
  OutputLimits limits_;
  std::vector<std::pair<uint32_t, std::string>> chunks_;
  uint64_t totalBytes_ = 0;
};

// --- fuel (protocol §5.5) ----------------------------------------------------------------------------------------

class Host;

// Where the JavaScript meter signals an interrupt in guest memory (protocol §5.5): a 32-bit 1 at `address`, and `bits`
// ORed into the 32-bit word at `bitsAddress` when that is non-zero.
struct FuelInterrupt {
  uint32_t address = 0;
  uint32_t bitsAddress = 0;
  uint32_t bits = 0;
};

class Fuel {
 public:
  // budget < 0: unmetered. Otherwise `remaining` starts at budget; each tick takes one, each charge `units`.
  void reset(int64_t budget);
  // Hard mode (default, Python/Perl/Ruby): the tick that takes remaining below zero traps.
  // Interrupt mode (the JavaScript engine): at zero the host writes the interrupt words once and the guest runs
  // on until it notices; only a second full budget past zero (the backstop) traps.
  void setInterrupt(FuelInterrupt interrupt);
  bool tick() { return charge(1); }
  bool charge(uint32_t units) { return !metered_ || (remaining_ -= int64_t(units)) >= 0; }
  bool metered() const { return metered_; }
  bool exhausted() const { return metered_ && remaining_ < 0; }
  bool interruptMode() const { return interruptMode_; }
  bool interrupted() const { return interrupted_; }
  const FuelInterrupt& interrupt() const { return interrupt_; }
  int64_t budget() const { return budget_; }
  int64_t remaining() const { return remaining_; }
  // budget - remaining, capped at budget (the spec's usage.fuelConsumed).
  int64_t consumed() const;

 private:
  friend Errno charge(Host& host, uint32_t units);
  bool metered_ = false;
  bool interruptMode_ = false;
  bool interrupted_ = false;
  FuelInterrupt interrupt_;
  int64_t budget_ = 0;
  int64_t remaining_ = 0;
};

// --- the host --------------------------------------------------------------------------------------------------

// The values are those of syscalls.def, which the shim's WasiTrap reads too.
enum class TrapKind : uint32_t {
  None = 0,
#define SW_WASI_TRAP(name, value) name = value,
#include "syscalls.def"
};

struct Trap {
  TrapKind kind = TrapKind::None;
  uint32_t exitCode = 0;  // Exit
  std::string message;    // "Execution fuel exhausted", "Output limit exceeded", or the host failure
  bool isLimit() const { return kind == TrapKind::Fuel || kind == TrapKind::OutputLimit; }
};

class Clock {
 public:
  virtual ~Clock() = default;
  virtual uint64_t realtimeNs() = 0;
  virtual uint64_t monotonicNs() = 0;
  virtual uint64_t resolutionNs() { return 1000; }
};
// std::chrono clocks (Date.now / performance.now under Emscripten).
std::shared_ptr<Clock> systemClock();

// Fills a buffer with cryptographically strong bytes; false on failure (random_get then answers Io).
using RandomSource = std::function<bool(uint8_t* buffer, std::size_t len)>;
// getentropy() natively; crypto.getRandomValues under Emscripten.
RandomSource systemRandom();

enum class StdioMode : uint8_t {
  Capture,      // chunks kept in Host::stdio() under OutputLimits (engines)
  Passthrough,  // every write handed to stdioSink, no limits (the command-line runner)
};

struct HostOptions {
  std::vector<std::string> args{"sandbox"};
  std::vector<std::string> env;  // "KEY=VALUE"
  std::shared_ptr<const Archive> stdlib;  // null: /stdlib is an empty directory; its mounts() follow /workspace
  std::shared_ptr<Workspace> workspace;   // null: no fd 5
  // Further read-write preopens after the fixed ones (the runner's --dir); guest path must be absolute.
  std::vector<std::pair<std::string, std::shared_ptr<Workspace>>> extraPreopens;
  StdioMode stdio = StdioMode::Capture;
  std::function<void(uint32_t fd, std::string_view bytes)> stdioSink;
  OutputLimits outputLimits;
  std::shared_ptr<Clock> clock;  // null: systemClock()
  RandomSource random;           // null: systemRandom()
  // protocol §5.4 overrides (EPERM for links, *filestat_set*, fd_allocate, fd_pwrite, sockets, poll_oneoff).
  // False runs the real implementations (native tests and the runner's --full-wasi).
  bool referencePolicy = true;
  // The guest's module was stripped of its data segments (docs/boot-images.md): its memory is whole only once a boot
  // image or a snapshot filled it, so it must never be booted (wasmify::GuestCaller::canBoot).
  bool noDataSegments = false;
};

class Host {
 public:
  explicit Host(HostOptions options);
  ~Host();
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  // The guest's memory; not owned. Syscalls answer Fault while unset.
  void setMemory(GuestMemory* memory);
  GuestMemory* memory() const;

  Fuel& fuel();
  StdioCapture& stdio();
  const Trap& trap() const;
  void clearTrap();
  // Records a trap (the first one wins) and returns Errno::Trap.
  Errno raiseTrap(TrapKind kind, std::string message, uint32_t exitCode = 0);

  // 3 + number of preopens; descriptors below it are the fixed ones of protocol §5.4.
  uint32_t fdBase() const;
  // True while the guest holds any descriptor at or beyond fdBase() (the snapshot precondition).
  bool hasOpenGuestFds() const;
  Workspace* workspace() const;
  bool noDataSegments() const;

  detail::HostState& state() { return *state_; }

 private:
  std::unique_ptr<detail::HostState> state_;
};

// Fuel::reset plus, in interrupt mode, clearing the interrupt words in guest memory (protocol §5.5 `reset`).
void resetFuel(Host& host, int64_t budget);

// Every syscall of the table, e.g. `Errno fd_write(Host&, uint32_t fd, uint32_t iovs, uint32_t iovsLen,
// uint32_t nwrittenPtr)`. Parameter lists and meaning: syscalls.def and the WASI preview1 witx.
#define SW_WASI_UNPAREN(...) __VA_ARGS__
#define SW_WASI(module, name, params, args) Errno name(Host& host, SW_WASI_UNPAREN params);
#define SW_WASI0(module, name) Errno name(Host& host);
#include "syscalls.def"

}  // namespace sw::wasi
