#pragma once
// Follows an audit log file as the API server's log backend writes it (`--audit-log-path`), across
// rotation, and remembers where it stopped so a restart neither loses nor repeats an event.
//
// Rotation: kube-apiserver renames the file it writes (lumberjack: `audit-2026-11-26T18-00-00.000.log`,
// gzip-compressed with --audit-log-compress) and opens a new one under the same name; logrotate
// renames it to `audit.log.1` (later `audit.log.2.gz`) or copies and truncates it. The follower
// keeps reading the renamed file through its open descriptor to its end, then opens the new one; a
// file that shrank under it was truncated and is read again from its start.
//
// Position: the file is identified by the first line's bytes (a hash), not by name or inode,
// since rotation renames and compression rewrites it. On start, the rotated files next to the log
// (plain or gzip) are looked at oldest first: the one whose first line matches is read from the
// remembered offset, the ones written after it are read whole, earlier ones are skipped.
//
// Thread: one owner; blocking file reads (call it off the GUI thread).
#include "core/audit/auditevent.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fieldscope::core {

struct AuditLogPosition {
    std::string firstLineHash; // hex; "" = nothing read yet
    std::int64_t offset = 0;   // bytes of that file (uncompressed) already read
    bool operator==(const AuditLogPosition &) const = default;
    std::string toText() const;                                // "HASH OFFSET", for the store
    static AuditLogPosition fromText(const std::string &text); // a malformed text is "nothing read"
};

class AuditLogFollower
{
public:
    // A first start (no remembered position) reads only this much of the end of the log.
    static constexpr std::int64_t kFirstStartTailBytes = 4 << 20;
    explicit AuditLogFollower(std::string path, AuditLogPosition resumeFrom = {});
    ~AuditLogFollower();
    AuditLogFollower(const AuditLogFollower &) = delete;
    AuditLogFollower &operator=(const AuditLogFollower &) = delete;

    // Reads what was written since the last call: on the first call, the rotated files not read
    // yet, then the log from the remembered position. At most `maxBytes` per call, so a huge
    // backlog is taken in steps. A missing log is no error (the server may not have written yet).
    Status poll(AuditDecodeResult &out, std::int64_t maxBytes = 16 << 20);
    // Where the events handed out so far end: store it with what was made of them.
    AuditLogPosition position() const { return m_position; }
    const std::string &path() const { return m_path; }
    // Rotated files read since the start (for messages and tests).
    const std::vector<std::string> &rotatedFilesRead() const { return m_rotatedRead; }

private:
    struct Open;
    Status catchUpRotated(AuditDecodeResult &out);
    Status readFrom(Open &file, AuditDecodeResult &out, std::int64_t &budget);
    Status openCurrent();

    std::string m_path;
    AuditLogPosition m_position;
    std::unique_ptr<Open> m_current;
    bool m_started = false;
    bool m_readSomething = false; // a log was opened: later files (after rotation) are read whole
    std::vector<std::string> m_rotatedRead;
};

// The hash the follower identifies a file by: FNV-1a 64 of its first line (without the newline).
std::string auditFirstLineHash(std::string_view firstLine);

} // namespace fieldscope::core
