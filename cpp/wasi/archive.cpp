// The /stdlib archive mount: a stored zip or a ustar/pax tar parsed into an index of nodes whose contents are views
// into the one archive buffer (nothing is unpacked). protocol §5.4: directory entries are skipped, a `..` component
// fails with "Invalid archive path", every file is read-only.
#include <cstring>

#include "internal.h"

namespace sw::wasi {

using detail::get16;
using detail::get32;
using detail::Node;
using detail::NodeKind;

namespace {

struct Builder {
  Node& root;
  detail::Mount* mount;
  uint32_t files = 0;

  // Adds a file at `path` viewing [data, data + size). False with `error` set on an invalid path.
  bool add(std::string_view path, const uint8_t* data, uint64_t size, std::string& error) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (start <= path.size()) {
      std::size_t end = path.find('/', start);
      if (end == std::string_view::npos) end = path.size();
      std::string_view part = path.substr(start, end - start);
      if (part == ".." || part.find('\0') != std::string_view::npos || part.size() > detail::kMaxNameBytes) {
        error = "Invalid archive path";
        return false;
      }
      if (!part.empty() && part != ".") parts.push_back(part);
      start = end + 1;
    }
    if (parts.empty()) {
      error = "Invalid archive path";
      return false;
    }
    Node* dir = &root;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      auto it = dir->children.find(parts[i]);
      if (it == dir->children.end()) {
        auto child = detail::makeNode(NodeKind::Directory, mount, 0);
        Node* raw = child.get();
        detail::linkChild(*dir, std::string(parts[i]), std::move(child));
        dir = raw;
      } else if (it->second->isDir()) {
        dir = it->second.get();
      } else {
        error = "Invalid archive path";
        return false;
      }
    }
    auto it = dir->children.find(parts.back());
    if (it != dir->children.end() && it->second->isDir()) {
      error = "Invalid archive path";
      return false;
    }
    auto file = detail::makeNode(NodeKind::File, mount, 0);
    file->view = data;
    file->viewSize = size;
    if (it == dir->children.end()) ++files;
    detail::linkChild(*dir, std::string(parts.back()), std::move(file));
    return true;
  }
};

bool parseZip(const std::vector<uint8_t>& b, Builder& out, std::string& error) {
  const std::size_t n = b.size();
  // End of central directory: 22 bytes plus a comment of at most 65535 bytes.
  if (n < 22) {
    error = "Invalid archive";
    return false;
  }
  std::size_t eocd = std::string::npos;
  std::size_t lowest = n >= 22 + 65535 ? n - 22 - 65535 : 0;
  for (std::size_t p = n - 22 + 1; p-- > lowest;) {
    if (get32(&b[p]) == 0x06054b50) {
      eocd = p;
      break;
    }
  }
  if (eocd == std::string::npos) {
    error = "Invalid archive";
    return false;
  }
  uint32_t count = get16(&b[eocd + 10]);
  uint64_t cdOffset = get32(&b[eocd + 16]);
  uint64_t p = cdOffset;
  for (uint32_t i = 0; i < count; ++i) {
    if (p + 46 > n || get32(&b[p]) != 0x02014b50) {
      error = "Invalid archive";
      return false;
    }
    uint16_t method = get16(&b[p + 10]);
    uint32_t compSize = get32(&b[p + 20]);
    uint32_t size = get32(&b[p + 24]);
    uint16_t nameLen = get16(&b[p + 28]);
    uint16_t extraLen = get16(&b[p + 30]);
    uint16_t commentLen = get16(&b[p + 32]);
    uint64_t local = get32(&b[p + 42]);
    if (p + 46 + nameLen > n) {
      error = "Invalid archive";
      return false;
    }
    std::string_view name(reinterpret_cast<const char*>(&b[p + 46]), nameLen);
    p += 46ull + nameLen + extraLen + commentLen;
    if (!name.empty() && name.back() == '/') continue;  // directory entry
    if (method != 0 || compSize != size) {
      error = "Unsupported archive compression";
      return false;
    }
    if (local + 30 > n || get32(&b[local]) != 0x04034b50) {
      error = "Invalid archive";
      return false;
    }
    uint64_t data = local + 30 + get16(&b[local + 26]) + get16(&b[local + 28]);
    if (data + size > n) {
      error = "Invalid archive";
      return false;
    }
    if (!out.add(name, b.data() + data, size, error)) return false;
  }
  return true;
}

uint64_t parseOctal(const uint8_t* p, std::size_t len) {
  uint64_t v = 0;
  for (std::size_t i = 0; i < len && p[i]; ++i) {
    if (p[i] == ' ') continue;
    if (p[i] < '0' || p[i] > '7') break;
    v = v * 8 + (p[i] - '0');
  }
  return v;
}

std::string_view cstr(const uint8_t* p, std::size_t max) {
  std::size_t len = 0;
  while (len < max && p[len]) ++len;
  return std::string_view(reinterpret_cast<const char*>(p), len);
}

// Pax extended header records: "<len> key=value\n"; only `path` matters here.
std::string paxPath(std::string_view records) {
  std::string path;
  while (!records.empty()) {
    std::size_t sp = records.find(' ');
    if (sp == std::string_view::npos) break;
    uint64_t len = 0;
    for (char c : records.substr(0, sp)) len = len * 10 + uint64_t(c - '0');
    if (len <= sp || len > records.size()) break;
    std::string_view rec = records.substr(sp + 1, len - sp - 1);
    if (!rec.empty() && rec.back() == '\n') rec.remove_suffix(1);
    if (rec.starts_with("path=")) path = std::string(rec.substr(5));
    records.remove_prefix(len);
  }
  return path;
}

bool parseTar(const std::vector<uint8_t>& b, Builder& out, std::string& error) {
  const std::size_t n = b.size();
  std::string nextPath;  // from a pax 'x' or GNU 'L' header
  for (std::size_t p = 0; p + 512 <= n;) {
    const uint8_t* h = &b[p];
    if (h[0] == 0) break;  // end-of-archive blocks
    uint64_t size = parseOctal(h + 124, 12);
    char type = char(h[156]);
    std::size_t data = p + 512;
    if (size > n || data + size > n) {
      error = "Invalid archive";
      return false;
    }
    std::string_view body(reinterpret_cast<const char*>(&b[data]), std::size_t(size));
    std::string name;
    if (!nextPath.empty()) {
      name = std::move(nextPath);
      nextPath.clear();
    } else {
      std::string_view prefix = std::memcmp(h + 257, "ustar", 5) == 0 ? cstr(h + 345, 155) : std::string_view();
      name = prefix.empty() ? std::string(cstr(h, 100)) : std::string(prefix) + "/" + std::string(cstr(h, 100));
    }
    p = data + ((size + 511) / 512) * 512;
    if (type == 'x') {
      nextPath = paxPath(body);
    } else if (type == 'L') {
      nextPath = std::string(cstr(reinterpret_cast<const uint8_t*>(body.data()), body.size()));
    } else if (type == '0' || type == '\0' || type == '7') {
      if (!out.add(name, &b[data], size, error)) return false;
    }
    // Directories ('5'), links and everything else are skipped.
  }
  return true;
}

// Splits a plain path into its components: false for an empty component, `.` or `..` (`/a//b`, `a/./b`).
bool plainComponents(std::string_view path, std::vector<std::string_view>& parts) {
  parts.clear();
  while (!path.empty()) {
    std::size_t end = path.find('/');
    std::string_view part = path.substr(0, end);
    if (part.empty() || part == "." || part == ".." || part.size() > detail::kMaxNameBytes) return false;
    parts.push_back(part);
    path = end == std::string_view::npos ? std::string_view() : path.substr(end + 1);
  }
  return !parts.empty();
}

// True when one of two absolute plain paths is the other or lies under it.
bool nested(std::string_view a, std::string_view b) {
  if (a.size() > b.size()) std::swap(a, b);
  return b.starts_with(a) && (b.size() == a.size() || b[a.size()] == '/');
}

// Reads the archive's `.mounts` file and takes each directory it names out of the tree (Archive::mounts); the file
// itself goes too (`files` counts one file less).
bool takeMounts(Node& root, std::vector<Archive::ArchiveMount>& mounts, uint32_t& files, std::string& error) {
  auto file = root.children.find(Archive::kMountsFile);
  if (file == root.children.end()) return true;
  error = "Invalid archive mounts";
  if (file->second->isDir()) return false;
  std::string_view text(reinterpret_cast<const char*>(file->second->bytes()), std::size_t(file->second->size()));
  struct Line {
    std::string_view guest, dir;
  };
  std::vector<Line> lines;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (line.empty()) continue;
    std::size_t sp = line.find(' ');
    if (sp == std::string_view::npos) return false;
    lines.push_back({line.substr(0, sp), line.substr(sp + 1)});
  }
  if (lines.size() > Archive::kMaxMounts) return false;
  std::vector<std::string_view> parts;
  for (const Line& l : lines) {
    if (!l.guest.starts_with('/') || !plainComponents(l.guest.substr(1), parts)) return false;
    for (std::string_view fixed : {"/stdlib", "/dev", "/workspace"}) {
      if (nested(l.guest, fixed)) return false;
    }
    for (const auto& m : mounts) {
      if (nested(l.guest, m.guestPath)) return false;
    }
    if (!plainComponents(l.dir, parts)) return false;
    Node* parent = &root;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      auto it = parent->children.find(parts[i]);
      if (it == parent->children.end() || !it->second->isDir()) return false;
      parent = it->second.get();
    }
    auto it = parent->children.find(parts.back());
    if (it == parent->children.end() || !it->second->isDir()) return false;
    mounts.push_back({std::string(l.guest), detail::unlinkChild(*parent, parts.back())});
  }
  detail::unlinkChild(root, Archive::kMountsFile);
  files--;
  error.clear();
  return true;
}

}  // namespace

Archive::Archive() : mount_(std::make_unique<detail::Mount>()) {
  mount_->kind = detail::MountKind::ReadOnly;
  mount_->device = 1;
  root_ = detail::makeNode(NodeKind::Directory, mount_.get(), 0);
}

Archive::~Archive() = default;

std::shared_ptr<const Archive> Archive::parse(std::vector<uint8_t> bytes, std::string& error) {
  std::shared_ptr<Archive> a(new Archive());
  a->bytes_ = std::move(bytes);
  const auto& b = a->bytes_;
  Builder builder{*a->root_, a->mount_.get()};
  bool ok = true;
  if (b.empty()) {
    ok = true;
  } else if (b.size() >= 512 && std::memcmp(&b[257], "ustar", 5) == 0) {
    ok = parseTar(b, builder, error);
  } else {
    ok = parseZip(b, builder, error);
  }
  if (!ok || !takeMounts(*a->root_, a->mounts_, builder.files, error)) return nullptr;
  a->fileCount_ = builder.files;
  return a;
}

}  // namespace sw::wasi
