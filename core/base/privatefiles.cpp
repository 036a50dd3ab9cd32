#include "core/base/privatefiles.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace fieldscope::core {

namespace {

namespace fs = std::filesystem;

Error ioError(const std::string &what, const std::string &path, int err)
{
    return Error::make(ErrorCategory::Io, what + " " + path + ": " + std::strerror(err));
}

Status fsyncPath(const std::string &path, int flags)
{
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
    if (fd < 0)
        return ioError("cannot open", path, errno);
    const int rc = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    // Some file systems cannot fsync a directory (EINVAL): the rename is then as durable as they allow.
    if (rc != 0 && err != EINVAL)
        return ioError("cannot fsync", path, err);
    return success();
}

} // namespace

Status makePrivateDirectory(const std::string &dir, bool tightenExisting)
{
    if (dir.empty())
        return success();
    const fs::path p(dir);
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
        if (tightenExisting && ::chmod(dir.c_str(), 0700) != 0)
            return ioError("cannot restrict", dir, errno);
        return success();
    }
    if (p.has_parent_path() && p.parent_path() != p)
        if (auto st = makePrivateDirectory(p.parent_path().string(), false); !st)
            return st;
    if (::mkdir(dir.c_str(), 0700) != 0 && (errno != EEXIST || !fs::is_directory(p, ec)))
        return ioError("cannot create", dir, errno);
    // mkdir's mode is masked by the umask; this one is not.
    if (::chmod(dir.c_str(), 0700) != 0)
        return ioError("cannot restrict", dir, errno);
    return success();
}

namespace {

// `path` exists: a regular file, and nobody but its owner may read or write it. Bits are only
// taken away: a file its owner made read-only stays so (writing to it then fails, as it should).
// The file is held by an O_PATH descriptor, so the check and the chmod are of the same file; closing
// an O_PATH descriptor releases no lock (only descriptors opened for I/O do).
Status restrictExisting(const std::string &path)
{
    const int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0)
        return ioError("cannot open", path, errno);
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return Error::make(ErrorCategory::Io, path + " is not a regular file");
    }
    int rc = 0;
    if ((st.st_mode & 0777) != (st.st_mode & 0600)) {
        // fchmod refuses O_PATH descriptors; the descriptor's /proc name reaches the same inode.
        const std::string self = "/proc/self/fd/" + std::to_string(fd);
        rc = ::chmod(self.c_str(), st.st_mode & 0600);
        if (rc != 0 && errno == ENOENT) // no /proc (a minimal container): the name, as before
            rc = ::chmod(path.c_str(), st.st_mode & 0600);
    }
    const int err = errno;
    ::close(fd);
    if (rc != 0)
        return ioError("cannot restrict", path, err);
    return success();
}

} // namespace

Status ensurePrivateFile(const std::string &path)
{
    // An existing file is never opened: closing a descriptor drops every POSIX lock this process
    // holds on the file (fcntl(2)), and SQLite's locks on a history file and its -shm are such
    // locks. Another process would then take the WAL index for unused and rebuild it under our
    // readers (SQLite's "How To Corrupt An SQLite Database File", section 2.2).
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0)
        return restrictExisting(path);
    if (errno != ENOENT)
        return ioError("cannot read", path, errno);
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) {
        // Made meanwhile (another recorder), or a link to nothing (O_EXCL does not follow it).
        if (::stat(path.c_str(), &st) == 0)
            return restrictExisting(path);
        if (errno != ENOENT)
            return ioError("cannot read", path, errno);
        return Error::make(ErrorCategory::Io, path + " is a link to a file that does not exist");
    }
    if (fd < 0)
        return ioError("cannot create", path, errno);
    // open's mode is masked by the umask; this one is not. Nobody else holds a lock on a file
    // this call has just made, so closing it loses none.
    const int rc = ::fchmod(fd, 0600);
    const int err = errno;
    ::close(fd);
    if (rc != 0)
        return ioError("cannot restrict", path, err);
    return success();
}

Status writePrivateFileDurably(const std::string &path, std::string_view bytes)
{
    // A fresh name made with O_CREAT | O_EXCL (mkostemp): in a folder others can write (a shared
    // drafts or kubeconfig folder), a FILE.tmp someone left there as a symlink or a file of
    // theirs is never opened, so the write cannot be redirected or read by them. 0600 from birth.
    std::string tmp = path + ".tmp.XXXXXX";
    const int raw = ::mkostemp(tmp.data(), O_CLOEXEC);
    if (raw < 0)
        return ioError("cannot write", path + ".tmp", errno);
    const Result<int> fd = raw;
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(*fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const int err = n < 0 ? errno : ENOSPC;
            ::close(*fd);
            ::unlink(tmp.c_str());
            return ioError("cannot write", tmp, err);
        }
        done += std::size_t(n);
    }
    if (::fsync(*fd) != 0) {
        const int err = errno;
        ::close(*fd);
        ::unlink(tmp.c_str());
        return ioError("cannot fsync", tmp, err);
    }
    if (::close(*fd) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        return ioError("cannot write", tmp, err);
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        return ioError("cannot replace", path, err);
    }
    const fs::path parent = fs::path(path).parent_path();
    return fsyncPath(parent.empty() ? std::string(".") : parent.string(), O_RDONLY | O_DIRECTORY);
}

} // namespace fieldscope::core
