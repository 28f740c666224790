// fd_readdir: an empty directory lists `.` and `..`; entries carry their name, type and the inode fd_filestat_get
// reports; a cookie resumes after the entry that returned it; a buffer too small for an entry is filled to the brim
// (the caller retries); 300 files all appear exactly once.
#include "conf.h"
typedef struct { char name[64]; uint8_t type; uint64_t ino; } Ent;
static int list(__wasi_fd_t dir, Ent* out, int max, __wasi_size_t bufSize) {
  static uint8_t buf[65536];
  __wasi_dircookie_t cookie = 0;
  int n = 0;
  for (;;) {
    __wasi_size_t used;
    OK(__wasi_fd_readdir(dir, buf, bufSize, cookie, &used));
    __wasi_size_t at = 0;
    int progress = 0;
    while (at + sizeof(__wasi_dirent_t) <= used) {
      __wasi_dirent_t d;
      memcpy(&d, buf + at, sizeof d);
      if (at + sizeof d + d.d_namlen > used) break;  // truncated: ask again from this cookie
      CHECK(n < max && d.d_namlen < 64);
      memcpy(out[n].name, buf + at + sizeof d, d.d_namlen);
      out[n].name[d.d_namlen] = 0;
      out[n].type = d.d_type;
      out[n].ino = d.d_ino;
      n++;
      progress = 1;
      cookie = d.d_next;
      at += sizeof d + d.d_namlen;
    }
    if (used < bufSize && !(at < used)) break;  // the whole listing fit
    if (!progress) FAIL("buffer of %u bytes holds no entry", (unsigned)bufSize);
  }
  return n;
}
static int find(Ent* e, int n, const char* name) {
  int hits = -1;
  for (int i = 0; i < n; ++i) {
    if (strcmp(e[i].name, name) == 0) {
      if (hits >= 0) FAIL("%s listed twice", name);
      hits = i;
    }
  }
  return hits;
}
static Ent ents[400];
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t dir = make_dir(root, "fd_readdir.d");
  int n = list(dir, ents, 400, 4096);
  CHECK(n == 2 && find(ents, n, ".") >= 0 && find(ents, n, "..") >= 0);
  CHECK(ents[find(ents, n, ".")].type == __WASI_FILETYPE_DIRECTORY);
  __wasi_fd_t f = open_file(dir, "file", __WASI_OFLAGS_CREAT, __WASI_RIGHTS_FD_FILESTAT_GET, 0);
  __wasi_filestat_t st;
  OK(__wasi_fd_filestat_get(f, &st));
  OK(__wasi_fd_close(f));
  OK(__wasi_path_create_directory(dir, "nested"));
  n = list(dir, ents, 400, 4096);
  CHECK(n == 4);
  int i = find(ents, n, "file");
  CHECK(i >= 0 && ents[i].type == __WASI_FILETYPE_REGULAR_FILE && ents[i].ino == st.ino);
  i = find(ents, n, "nested");
  CHECK(i >= 0 && ents[i].type == __WASI_FILETYPE_DIRECTORY);
  // A buffer smaller than one entry's header plus name: the host fills it and the caller sees a partial entry.
  static uint8_t tiny[16];
  __wasi_size_t used;
  OK(__wasi_fd_readdir(dir, tiny, sizeof tiny, 0, &used));
  CHECK(used == sizeof tiny);
  // Small buffers: every entry still appears once.
  n = list(dir, ents, 400, 40);
  CHECK(n == 4 && find(ents, n, "file") >= 0 && find(ents, n, "nested") >= 0);
  OK(__wasi_path_unlink_file(dir, "file"));
  OK(__wasi_path_remove_directory(dir, "nested"));
  char name[32];
  for (int k = 0; k < 300; ++k) {
    snprintf(name, sizeof name, "f%03d", k);
    create_file(dir, name);
  }
  n = list(dir, ents, 400, 1000);
  CHECK(n == 302);
  for (int k = 0; k < 300; ++k) {
    snprintf(name, sizeof name, "f%03d", k);
    CHECK(find(ents, n, name) >= 0);
    OK(__wasi_path_unlink_file(dir, name));
  }
  OK(__wasi_fd_close(dir));
  OK(__wasi_path_remove_directory(root, "fd_readdir.d"));
  return 0;
}
