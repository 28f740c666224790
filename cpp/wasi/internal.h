// cpp/wasi internals shared by the files of this directory. Not part of the public API (wasi.h).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "wasi.h"

namespace sw::wasi::detail {

// --- rights (WASI preview1 bit order) -------------------------------------------------------------------------
namespace right {
constexpr uint64_t FdDatasync = 1ull << 0, FdRead = 1ull << 1, FdSeek = 1ull << 2, FdFdstatSetFlags = 1ull << 3,
                   FdSync = 1ull << 4, FdTell = 1ull << 5, FdWrite = 1ull << 6, FdAdvise = 1ull << 7,
                   FdAllocate = 1ull << 8, PathCreateDirectory = 1ull << 9, PathCreateFile = 1ull << 10,
                   PathLinkSource = 1ull << 11, PathLinkTarget = 1ull << 12, PathOpen = 1ull << 13,
                   FdReaddir = 1ull << 14, PathReadlink = 1ull << 15, PathRenameSource = 1ull << 16,
                   PathRenameTarget = 1ull << 17, PathFilestatGet = 1ull << 18, PathFilestatSetSize = 1ull << 19,
                   PathFilestatSetTimes = 1ull << 20, FdFilestatGet = 1ull << 21, FdFilestatSetSize = 1ull << 22,
                   FdFilestatSetTimes = 1ull << 23, PathSymlink = 1ull << 24, PathRemoveDirectory = 1ull << 25,
                   PathUnlinkFile = 1ull << 26, PollFdReadwrite = 1ull << 27, SockShutdown = 1ull << 28,
                   SockAccept = 1ull << 29;
constexpr uint64_t All = (1ull << 30) - 1;
constexpr uint64_t FileAll = FdDatasync | FdRead | FdSeek | FdFdstatSetFlags | FdSync | FdTell | FdWrite | FdAdvise |
                             FdAllocate | FdFilestatGet | FdFilestatSetSize | FdFilestatSetTimes | PollFdReadwrite;
constexpr uint64_t DirAll = FdFdstatSetFlags | FdSync | FdAdvise | PathCreateDirectory | PathCreateFile |
                            PathLinkSource | PathLinkTarget | PathOpen | FdReaddir | PathReadlink |
                            PathRenameSource | PathRenameTarget | PathFilestatGet | PathFilestatSetSize |
                            PathFilestatSetTimes | FdFilestatGet | FdFilestatSetTimes | PathSymlink |
                            PathRemoveDirectory | PathUnlinkFile;
constexpr uint64_t FileWrite = FdDatasync | FdWrite | FdAllocate | FdFilestatSetSize;
constexpr uint64_t FileReadOnly = FileAll & ~(FileWrite | FdFilestatSetTimes);
constexpr uint64_t DirReadOnly = FdFdstatSetFlags | FdSync | FdAdvise | PathOpen | FdReaddir | PathReadlink |
                                 PathFilestatGet | FdFilestatGet;
constexpr uint64_t Stdio = FdWrite | FdFdstatSetFlags | FdFilestatGet | PollFdReadwrite | FdSync | FdDatasync;
}  // namespace right

enum class FileType : uint8_t { Unknown = 0, CharacterDevice = 2, Directory = 3, RegularFile = 4, SymbolicLink = 7 };

// --- the tree ---------------------------------------------------------------------------------------------------

enum class MountKind : uint8_t { ReadOnly, Device, Workspace };

// What a node belongs to: decides writability, the workspace limits and the disabled flag (protocol §5.4's "tag").
struct Mount {
  MountKind kind = MountKind::ReadOnly;
  uint64_t device = 0;
  uint64_t nextIno = 1;
  // Workspace only.
  bool disabled = false;
  WorkspaceLimits limits;
  uint64_t totalBytes = 0;  // sizes of linked files
  uint32_t entries = 0;     // linked files + directories, root excluded
  uint64_t pathBytes = 0;   // the root-relative path lengths of every linked entry
  uint64_t detachedBytes = 0;  // sizes of unlinked files still alive (a guest descriptor holds them)

  bool isWorkspace() const { return kind == MountKind::Workspace; }
};

// Symlink: only ever created with the reference policy off (the runner's --full-wasi); its target is `data`.
enum class NodeKind : uint8_t { File, Directory, NullDevice, Symlink };

struct Node : std::enable_shared_from_this<Node> {
  NodeKind kind = NodeKind::File;
  Mount* mount = nullptr;
  Node* parent = nullptr;  // null for a mount root and for an unlinked node
  uint64_t ino = 0;
  uint64_t atim = 0, mtim = 0, ctim = 0;
  // Workspace only, kept by linkChild: components and bytes of the root-relative path (0 for the root).
  uint32_t depth = 0;
  uint32_t pathBytes = 0;
  bool detached = false;  // a file unlinked from a workspace: its size counts in Mount::detachedBytes
  // File contents: owned bytes, or a view into an archive buffer (read-only mounts).
  std::vector<uint8_t> data;
  const uint8_t* view = nullptr;
  uint64_t viewSize = 0;
  // Directory entries, sorted (fd_readdir cookies are indices into this order).
  std::map<std::string, std::shared_ptr<Node>, std::less<>> children;
  // Bumped on every change to `children`: a descriptor's readdir position (FdEntry::dirPos) is valid while it holds.
  uint64_t generation = 0;

  Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  ~Node();  // releases a detached file's bytes; children are released without recursion

  bool isDir() const { return kind == NodeKind::Directory; }
  bool isSymlink() const { return kind == NodeKind::Symlink; }
  uint64_t size() const { return view ? viewSize : data.size(); }
  const uint8_t* bytes() const { return view ? view : data.data(); }
  bool linked() const { return parent != nullptr; }
  FileType fileType() const;
};

std::shared_ptr<Node> makeNode(NodeKind kind, Mount* mount, uint64_t timeNs);

// Workspace accounting; no-ops outside a workspace mount. Every walk over a subtree is iterative (no recursion: a
// tree is as deep as its longest path).
// A new entry `name` under `dir`: NoSpc at the entry cap or the total path bytes, NameTooLong over the path limits.
Errno reserveEntry(const Node& dir, std::string_view name);
// Moving the linked subtree `node` to `name` under `dir`, `replaced` (an empty directory or a file, may be null)
// being removed: NameTooLong / NoSpc against the path limits.
Errno checkMove(const Node& node, const Node& dir, std::string_view name, const Node* replaced);
void linkChild(Node& dir, std::string name, std::shared_ptr<Node> child);
std::shared_ptr<Node> unlinkChild(Node& dir, std::string_view name);
Errno resizeFile(Node& file, uint64_t newSize);          // Fbig / NoSpc against the limits
bool isAncestor(const Node* ancestor, const Node* node);

// --- descriptors ------------------------------------------------------------------------------------------------

enum class FdKind : uint8_t { Closed, File, Directory, Stdout, Stderr };

struct FdEntry {
  FdKind kind = FdKind::Closed;
  std::shared_ptr<Node> node;
  std::shared_ptr<Node> root;  // the preopen this descriptor lives under: `..` never climbs above it
  // With the reference policy off, a directory descriptor is a capability for its own subtree: `..` never climbs
  // above this node either (null: only `root` bounds it).
  std::shared_ptr<Node> limit;
  uint64_t rightsBase = 0;
  uint64_t rightsInheriting = 0;
  uint16_t fdflags = 0;
  uint64_t offset = 0;
  std::string preopenName;  // non-empty for a preopen (fd_prestat_*)
  // Where the last fd_readdir on this descriptor stopped: the last child it emitted and that child's index, in `dir`
  // at `generation`. The next call resumes there instead of counting from the first child (a listing in batches of k
  // entries is O(n log n), not O(n^2 / k)).
  struct DirPos {
    const Node* dir = nullptr;
    uint64_t generation = 0;
    uint64_t index = 0;
    std::string name;
  } dirPos;

  bool open() const { return kind != FdKind::Closed; }
  bool inWorkspace() const { return node && node->mount && node->mount->isWorkspace(); }
};

constexpr uint32_t kMaxFds = 1024;

class FdTable {
 public:
  // Lowest free slot at or above `from`; Mfile when kMaxFds are open.
  Errno allocate(uint32_t from, FdEntry entry, uint32_t& fd);
  void set(uint32_t fd, FdEntry entry);
  FdEntry* get(uint32_t fd);
  // Badf if closed/unknown, NotCapable if `needed` rights are missing.
  Errno lookup(uint32_t fd, uint64_t needed, FdEntry*& out);
  Errno close(uint32_t fd);
  bool anyOpenFrom(uint32_t from) const;
  std::size_t size() const { return slots_.size(); }

 private:
  std::vector<FdEntry> slots_;
};

// --- path resolution ----------------------------------------------------------------------------------------------

constexpr uint32_t kMaxPathBytes = 4096;
constexpr std::size_t kMaxNameBytes = 255;

struct Resolved {
  std::shared_ptr<Node> node;    // the target, null when it does not exist (a symlink itself unless followed)
  std::shared_ptr<Node> parent;  // the directory holding `name`; null when the target is `.`, `..` or a root
  std::string name;
  bool trailingSlash = false;
};

// Symbolic links expanded in one resolution before it answers Loop (Linux's MAXSYMLINKS).
constexpr uint32_t kMaxSymlinkHops = 40;
// path_* lookupflags: follow a symlink in the last component.
constexpr uint32_t kLookupSymlinkFollow = 1;

// Reads a path argument from guest memory: NameTooLong over kMaxPathBytes, Fault outside memory, Inval with a NUL.
Errno readPath(Host& host, uint32_t ptr, uint32_t len, std::string& out);
// Resolves `path` relative to directory descriptor `dir` without ever leaving dir.root: NotCapable for absolute
// paths and for `..` past the root, NoEnt/NotDir on the way, NameTooLong for a component over 255 bytes.
// Symbolic links on the way are followed (relative targets only: an absolute target is NotCapable, and `..` in a
// target stops at dir.root like any other); the last component is followed only with `followLast` or a trailing
// slash. More than kMaxSymlinkHops expansions: Loop.
Errno resolvePath(const FdEntry& dir, std::string_view path, Resolved& out, bool followLast = false);

// --- serialization (wasi_serdes): little-endian layouts of the WASI structs -------------------------------------

struct Iovec {
  uint32_t buf;
  uint32_t len;
};
constexpr uint32_t kMaxIovecs = 1024;
// Reads iovsLen iovecs; Inval over kMaxIovecs, Fault if the array or any buffer leaves guest memory.
Errno readIovecs(GuestMemory& mem, uint32_t iovs, uint32_t iovsLen, std::vector<Iovec>& out, uint64_t& total);

constexpr uint32_t kFdstatSize = 24, kFilestatSize = 64, kPrestatSize = 8, kDirentSize = 24, kSubscriptionSize = 48,
                   kEventSize = 32;
void encodeFdstat(uint8_t* out, FileType type, uint16_t flags, uint64_t base, uint64_t inheriting);
void encodeFilestat(uint8_t* out, const Node& node);
void encodeDirent(uint8_t* out, uint64_t next, uint64_t ino, uint32_t nameLen, FileType type);
void encodeEvent(uint8_t* out, uint64_t userdata, Errno error, uint8_t type, uint64_t nbytes, uint16_t flags);
void put16(uint8_t* p, uint16_t v);
void put32(uint8_t* p, uint32_t v);
void put64(uint8_t* p, uint64_t v);
uint16_t get16(const uint8_t* p);
uint32_t get32(const uint8_t* p);
uint64_t get64(const uint8_t* p);

// Sets atime/mtime per fst flags (syscalls_fd.cpp); Rofs outside a workspace.
Errno setNodeTimes(Host& host, Node& node, uint64_t atim, uint64_t mtim, uint32_t fstFlags);

// --- the host state -------------------------------------------------------------------------------------------------

struct HostState {
  HostOptions options;
  GuestMemory* memory = nullptr;
  FdTable fds;
  uint32_t fdBase = 3;
  std::unique_ptr<Mount> privateMount;  // stdin's empty file, stdout/stderr, an empty /stdlib
  std::unique_ptr<Mount> devMount;      // /dev and /dev/null
  std::shared_ptr<Node> emptyStdlib;    // /stdlib when no archive is given
  StdioCapture stdio;
  Fuel fuel;
  Trap trap;
  std::vector<uint8_t> scratch;  // reused copy buffer for guest <-> core transfers
  std::vector<Iovec> iovs;       // reused iovec list of fd_read/fd_write/fd_pread/fd_pwrite

  uint64_t now() { return options.clock->realtimeNs(); }
};

// Fault unless memory is set and the range is inside it.
inline GuestMemory* memoryOf(Host& host) { return host.state().memory; }

}  // namespace sw::wasi::detail
