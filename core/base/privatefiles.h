#pragma once
// Files and folders the app creates hold cluster data (history, drafts, exports, settings): they
// are 0600 / 0700 whatever the process umask (docs/architecture.md, "Secrets and files at rest").
// The modes are set explicitly (open with a mode, then fchmod; mkdir, then chmod): the umask may be 000.
// Blocking file I/O: call from a worker thread (or the CLI's main thread).
#include "core/base/result.h"

#include <string>
#include <string_view>

namespace fieldscope::core {

// Creates `dir` and every missing parent with mode 0700. `tightenExisting`: an existing `dir`
// (the last component only) is chmod'ed to 0700 too: for folders that belong to the app (its
// history and drafts folders), never for a folder a user named.
Status makePrivateDirectory(const std::string &dir, bool tightenExisting);

// Makes sure `path` exists as a regular file only its owner can read or write (created empty and
// 0600 when missing; group and other bits taken away when present, nothing added). An existing
// file is never opened for I/O, so the locks this process holds on it (SQLite's) survive. A link to
// nothing is refused, not created through. For SQLite: a database created this way gives its
// -wal/-shm/-journal the same mode (SQLite copies the database file's permissions to them).
Status ensurePrivateFile(const std::string &path);

// Writes `bytes` to `path` atomically and durably: a new 0600 temporary in the same folder
// (never an existing file or symlink of that name), written,
// fsync'ed, renamed over `path`, then the folder fsync'ed. Only after that has the file been
// saved: a crash at any moment leaves the old content or the new, never half.
Status writePrivateFileDurably(const std::string &path, std::string_view bytes);

} // namespace fieldscope::core
