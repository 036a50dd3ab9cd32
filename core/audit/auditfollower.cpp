#include "core/audit/auditfollower.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>

namespace fieldscope::core {

std::string auditFirstLineHash(std::string_view firstLine)
{
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : firstLine) {
        h ^= c;
        h *= 1099511628211ull;
    }
    char out[17];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
    return out;
}

std::string AuditLogPosition::toText() const
{
    return (firstLineHash.empty() ? std::string("-") : firstLineHash) + " " + std::to_string(offset);
}

AuditLogPosition AuditLogPosition::fromText(const std::string &text)
{
    std::istringstream in(text);
    AuditLogPosition p;
    std::string hash;
    long long offset = 0;
    if (!(in >> hash >> offset) || offset < 0 || hash.size() != 16
        || !std::all_of(hash.begin(), hash.end(),
                        [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }))
        return {};
    p.firstLineHash = hash;
    p.offset = offset;
    return p;
}

// The log being followed: a plain file the API server appends to.
struct AuditLogFollower::Open {
    int fd = -1;
    ino_t inode = 0;
    std::int64_t offset = 0;         // bytes read
    std::int64_t completeOffset = 0; // bytes of complete lines handed to the decoder
    std::string firstLine;           // until its newline was read
    bool firstLineDone = false;
    AuditLineDecoder decoder;
    ~Open()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

namespace {

constexpr std::size_t kChunk = 1 << 20;

// Feeds one chunk, noting the first line and where the last complete line ends.
void takeChunk(std::string_view bytes, std::string &firstLine, bool &firstLineDone, std::int64_t &offset,
               std::int64_t &completeOffset, AuditLineDecoder &decoder, AuditDecodeResult &out)
{
    if (!firstLineDone) {
        const auto nl = bytes.find('\n');
        const std::size_t room = kMaxAuditEventBytes + 2 > firstLine.size() ? kMaxAuditEventBytes + 2 - firstLine.size()
                                                                            : 0;
        firstLine.append(bytes.substr(0, std::min(room, nl == std::string_view::npos ? bytes.size() : nl)));
        firstLineDone = nl != std::string_view::npos;
    }
    decoder.feed(bytes, out);
    if (const auto last = bytes.rfind('\n'); last != std::string_view::npos)
        completeOffset = offset + std::int64_t(last) + 1;
    offset += std::int64_t(bytes.size());
}

// The first line of a rotated file (plain or gzip), for matching it with a remembered position.
std::string firstLineOf(gzFile f)
{
    std::string line;
    char buf[4096];
    for (;;) {
        const int n = gzread(f, buf, sizeof buf);
        if (n <= 0)
            return line;
        const std::string_view piece(buf, std::size_t(n));
        const auto nl = piece.find('\n');
        line.append(piece.substr(0, nl));
        if (nl != std::string_view::npos || line.size() > kMaxAuditEventBytes)
            return line;
    }
}

// The first line of a plain file (without its newline); nullopt until one is complete.
std::optional<std::string> firstLineAt(int fd)
{
    std::string line;
    char buf[4096];
    for (off_t at = 0; line.size() <= kMaxAuditEventBytes;) {
        const ssize_t n = ::pread(fd, buf, sizeof buf, at);
        if (n <= 0)
            return std::nullopt;
        const std::string_view piece(buf, std::size_t(n));
        const auto nl = piece.find('\n');
        line.append(piece.substr(0, nl));
        if (nl != std::string_view::npos)
            return line;
        at += off_t(n);
    }
    return std::nullopt;
}

// Where the first line that starts at or after `from` begins (`size` when none does).
std::int64_t lineStartFrom(int fd, std::int64_t from, std::int64_t size)
{
    char buf[4096];
    for (std::int64_t at = from;;) {
        const ssize_t n = ::pread(fd, buf, sizeof buf, off_t(at));
        if (n <= 0)
            return size;
        const auto nl = std::string_view(buf, std::size_t(n)).find('\n');
        if (nl != std::string_view::npos)
            return at + std::int64_t(nl) + 1;
        at += n;
    }
}

// Rotated siblings of the log, oldest first: lumberjack's `audit-<time>.log[.gz]` and logrotate's
// `audit.log.N[.gz]`.
std::vector<std::filesystem::path> rotatedSiblings(const std::filesystem::path &log)
{
    std::vector<std::pair<std::filesystem::file_time_type, std::filesystem::path>> found;
    const std::string base = log.filename().string();
    const std::string stem = log.stem().string() + "-";
    std::error_code ec;
    for (const auto &entry :
         std::filesystem::directory_iterator(log.parent_path().empty() ? "." : log.parent_path(), ec)) {
        const std::string name = entry.path().filename().string();
        if (name == base || !entry.is_regular_file(ec))
            continue;
        if (name.rfind(base + ".", 0) != 0 && name.rfind(stem, 0) != 0)
            continue;
        found.emplace_back(entry.last_write_time(ec), entry.path());
    }
    std::sort(found.begin(), found.end());
    std::vector<std::filesystem::path> out;
    out.reserve(found.size());
    for (auto &f : found)
        out.push_back(std::move(f.second));
    return out;
}

} // namespace

AuditLogFollower::AuditLogFollower(std::string path, AuditLogPosition resumeFrom)
    : m_path(std::move(path)), m_position(std::move(resumeFrom))
{
}

AuditLogFollower::~AuditLogFollower() = default;

// Reads the rotated files written since the remembered position: the one it points into from its
// offset, the newer ones whole. Nothing when the position is in the log itself (a plain restart)
// or unknown.
Status AuditLogFollower::catchUpRotated(AuditDecodeResult &out)
{
    if (m_position.firstLineHash.empty())
        return success();
    bool found = false;
    for (const auto &file : rotatedSiblings(m_path)) {
        std::unique_ptr<gzFile_s, int (*)(gzFile)> f(gzopen(file.c_str(), "rb"), &gzclose);
        if (!f)
            continue;
        std::string first = firstLineOf(f.get());
        const std::string hash = auditFirstLineHash(first);
        std::int64_t skip = 0;
        if (hash == m_position.firstLineHash) {
            found = true;
            skip = m_position.offset;
        } else if (!found) {
            continue; // older than what was read
        }
        if (gzrewind(f.get()) != 0)
            return Error::make(ErrorCategory::Io, "cannot read rotated audit log " + file.string());
        std::string firstLine;
        bool firstDone = false;
        std::int64_t offset = 0, complete = 0;
        AuditLineDecoder decoder;
        AuditDecodeResult ignored;
        std::string buffer(kChunk, '\0');
        for (;;) {
            const int n = gzread(f.get(), buffer.data(), unsigned(kChunk));
            if (n < 0)
                return Error::make(ErrorCategory::Io, "cannot read rotated audit log " + file.string());
            if (n == 0)
                break;
            std::string_view bytes(buffer.data(), std::size_t(n));
            // Bytes before the remembered offset were read before the restart: only the first line
            // and the offsets see them.
            if (offset + std::int64_t(bytes.size()) <= skip) {
                takeChunk(bytes, firstLine, firstDone, offset, complete, decoder, ignored);
                continue;
            }
            if (offset < skip) {
                const auto before = std::size_t(skip - offset);
                takeChunk(bytes.substr(0, before), firstLine, firstDone, offset, complete, decoder, ignored);
                bytes.remove_prefix(before);
            }
            takeChunk(bytes, firstLine, firstDone, offset, complete, decoder, out);
        }
        decoder.finish(out);
        m_position = {auditFirstLineHash(firstLine), offset};
        m_rotatedRead.push_back(file.string());
    }
    return success();
}

Status AuditLogFollower::openCurrent()
{
    const int fd = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return success();
        return Error::make(ErrorCategory::Io, "cannot open audit log " + m_path + ": " + std::strerror(errno));
    }
    auto open = std::make_unique<Open>();
    open->fd = fd;
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        return Error::make(ErrorCategory::Io, "cannot read audit log " + m_path + ": " + std::strerror(errno));
    open->inode = st.st_ino;
    const auto first = firstLineAt(fd);
    auto startAt = [&](std::int64_t offset) {
        open->firstLine = *first;
        open->firstLineDone = true;
        open->offset = open->completeOffset = offset;
        ::lseek(fd, off_t(offset), SEEK_SET);
    };
    if (first && !m_position.firstLineHash.empty()) {
        // The file we stopped in, if this is it: skip what was read before.
        if (m_position.offset <= st.st_size && auditFirstLineHash(*first) == m_position.firstLineHash)
            startAt(m_position.offset);
    } else if (first && !m_readSomething && st.st_size > kFirstStartTailBytes) {
        // Never read before: only the newest kFirstStartTailBytes (the last writes of the objects a
        // first LIST records), from a line boundary. A window starting on a 100 MB log must not spend
        // its first minute, and the database's write lock, on requests long past.
        startAt(lineStartFrom(fd, st.st_size - kFirstStartTailBytes, st.st_size));
    }
    m_current = std::move(open);
    m_readSomething = true;
    return success();
}

Status AuditLogFollower::readFrom(Open &file, AuditDecodeResult &out, std::int64_t &budget)
{
    std::string buffer(kChunk, '\0');
    while (budget > 0) {
        const ssize_t n = ::read(file.fd, buffer.data(),
                                 std::size_t(std::min<std::int64_t>(std::int64_t(kChunk), budget)));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return Error::make(ErrorCategory::Io, "cannot read audit log " + m_path + ": " + std::strerror(errno));
        }
        if (n == 0)
            break;
        takeChunk(std::string_view(buffer.data(), std::size_t(n)), file.firstLine, file.firstLineDone, file.offset,
                  file.completeOffset, file.decoder, out);
        budget -= n;
    }
    if (file.firstLineDone)
        m_position = {auditFirstLineHash(file.firstLine), file.completeOffset};
    return success();
}

Status AuditLogFollower::poll(AuditDecodeResult &out, std::int64_t maxBytes)
{
    if (!m_started) {
        m_started = true;
        if (auto st = catchUpRotated(out); !st)
            return st;
    }
    if (!m_current)
        if (auto st = openCurrent(); !st || !m_current)
            return st;
    std::int64_t budget = maxBytes;
    if (auto st = readFrom(*m_current, out, budget); !st)
        return st;
    if (budget <= 0)
        return success(); // more next time
    struct stat st {};
    if (::stat(m_path.c_str(), &st) != 0)
        return success(); // renamed, the new file not there yet: keep the old one open
    if (st.st_ino != m_current->inode) {
        // Rotated: everything of the old file was read above (the budget was not used up); a line
        // the server left without its newline is complete now.
        m_current->decoder.finish(out);
        if (m_current->firstLineDone)
            m_position = {auditFirstLineHash(m_current->firstLine), m_current->offset};
        m_current.reset();
        if (auto s = openCurrent(); !s || !m_current)
            return s;
        return readFrom(*m_current, out, budget);
    }
    if (st.st_size < m_current->offset) {
        // Truncated in place (logrotate's copytruncate): the file starts again.
        m_current.reset();
        m_position = {};
        if (auto s = openCurrent(); !s || !m_current)
            return s;
        return readFrom(*m_current, out, budget);
    }
    return success();
}

} // namespace fieldscope::core
