#pragma once
// The one conversion of an audit event into a student's ClassRequest (app/services/classroom.h),
// and a follower of a class's audit log that reads only what was added since its last poll.
//
// The audit log is input students shape (names, messages): every field is bounded here, and the
// resourceVersion is kept only for a write that succeeded (a refused write made no version).
// ClassFeed (the window) and ClassWriteSource (a class lesson's steps) read through this file;
// readClassRequests (classroomaudit.cpp) makes the same ClassRequests.
//
// Blocking file reads: call off the GUI thread.
#include "app/services/classroom.h"
#include "core/audit/auditfollower.h"

#include <QDateTime>
#include <QList>
#include <QString>

#include <memory>
#include <optional>

namespace fieldscope::app {

// The request an audit event records, bounded: username 128 characters, verb 32, resource,
// namespace, name and subresource 253, resourceVersion 64 (successful writes only), field
// manager 128 (from the request's query), a refusal's reason kMaxClassReasonChars.
ClassRequest classRequestFromAudit(const core::AuditEvent &event);

// The student request an audit event is, or nothing: not a final stage, not from the class group
// (fieldscope:class), or received before `since` (an invalid `since` admits any time).
std::optional<ClassRequest> classRequestFromAudit(const core::AuditEvent &event, const QDateTime &since);

// Where to start reading DIR/logs/audit.log for requests from `from` on: the line received about a
// minute before (the API server writes events in about the order it received them), found by
// bisection, so a class on a sandbox with a 100 MB log reads only its own part.
core::AuditLogPosition classLogStart(const QString &logPath, const QDateTime &from);

// Follows a cluster directory's audit log (DIR/logs/audit.log) from about a minute before `from`,
// across rotation (core::AuditLogFollower), keeping its offset between polls.
class ClassAuditTail
{
public:
    ClassAuditTail(const QString &clusterDir, const QDateTime &from);
    ~ClassAuditTail();
    ClassAuditTail(const ClassAuditTail &) = delete;
    ClassAuditTail &operator=(const ClassAuditTail &) = delete;

    // Appends the students' requests received at or after `since` that the log gained since the
    // last poll, reading at most `maxBytes` (a flood is taken over several polls).
    core::Status poll(QList<ClassRequest> &out, const QDateTime &since, qint64 maxBytes);

private:
    std::unique_ptr<core::AuditLogFollower> m_follower;
};

} // namespace fieldscope::app
