#pragma once
// A class on one sandbox: every student gets a client certificate of their own (CN = the
// student's name, O = fieldscope:class) signed by a per-class CA that the sandbox's API server trusts
// while the class runs, a namespace of their own, and write access to the shared class namespace.
// The state lives in DIR/class/state.json (0600) and DIR/class/pki/ (0700) of the sandbox directory
// DIR that `scripts/fieldscope-cluster start DIR` made.
//
// Every function here blocks (processes, files, API calls): the command line calls them directly,
// the window only from a worker thread. No key or token ever appears in a process argument or a log.
#include "core/base/result.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

#include <chrono>

namespace fieldscope::app {

struct ClassStudent {
    QString name;
    QString ownNamespace;   // student-NAME
    QString kubeconfigPath; // absolute: OUT/NAME.kubeconfig
};

struct ClassState {
    QString clusterDir;
    QString classNamespace = QStringLiteral("class");
    QString listen; // "" = loopback only; else the ADDR:PORT students use (shown by the window)
    QDateTime started, expires;
    QString outDir; // where the student kubeconfigs are
    bool running = false;
    QList<ClassStudent> students;
};

struct ClassStartOptions {
    QString clusterDir;
    QStringList students;
    QString listen; // "", ADDR or ADDR:PORT (the port defaults to the sandbox API server's)
    std::chrono::seconds expires{std::chrono::hours(8)};
    QString outDir;
    // "" (a teacher's class): the namespaces `class` and `student-NAME`. Otherwise the class
    // namespace is PREFIX and each student's PREFIX-NAME: a rehearsal (lesson run
    // --simulate-students) gets names of its own, so it never waits for the namespaces an earlier
    // rehearsal's purge is still deleting (a minute or more on a busy machine).
    QString namespacePrefix;
};

// The longest student name: the namespace student-NAME must stay a DNS label (63 characters).
inline constexpr int kMaxStudentNameLength = 63 - 8;
// The most students a class may have (a roster longer than that is refused).
inline constexpr int kMaxStudents = 500;
// The largest roster file read.
inline constexpr qint64 kMaxRosterBytes = qint64(256) * 1024;

// A DNS label (RFC 1123: lower-case letters, digits, '-', starting and ending alphanumeric) short
// enough for student-NAME, and not a reserved name (system:*, admin, fieldscope-admin, ...).
core::Status validateStudentName(const QString &name);
// One name a line; '#' starts a comment; blank lines are fine. Every name is validated;
// duplicates are refused. The error names the line.
core::Result<QStringList> parseRoster(const QByteArray &text);
// Reads DIR/class/state.json only (fast, no process, no network). An error when there is no class
// or the file is corrupt.
core::Result<ClassState> readClassState(const QString &clusterDir);
// Makes the class (see the top of this file) on the running sandbox in options.clusterDir.
// Refuses when a class is already running there.
core::Result<ClassState> startClass(const ClassStartOptions &options);
// Revokes every student identity at once (the API server refuses them from then on). Keeps the
// namespaces unless `purge`; purge deletes the class's namespaces and its state too.
core::Status stopClass(const QString &clusterDir, bool purge);

// One request a student sent, from the audit log (DIR/logs/audit.log and its rotations), since the
// class started. Requests the API server refused to authenticate (a revoked or expired
// certificate) are not the student's: the server does not know who sent them.
struct ClassRequest {
    QDateTime time;
    QString student;
    QString verb;                                       // "get","list","watch","create","update","patch","delete"
    QString resource, namespaceName, name, subresource; // "configmaps","class","demo",""
    int code = 0;                                       // HTTP status the server answered
    QString resourceVersion;                            // resulting resourceVersion of a write, when audited
    QString fieldManager;                               // from the request URI, when given
    QString reason;                                     // the refusal's message (409/422/403), bounded
    bool isWrite() const;                               // create/update/patch/delete
    bool refused() const;                               // a write answered >= 400
};
// The most bytes of one refusal's message kept in ClassRequest::reason.
inline constexpr int kMaxClassReasonChars = 1024;
// What the audit log could not tell: a student can hide a write in an event too large to read
// (a huge body), and a busy log rotates the class's first events away.
struct ClassLogCoverage {
    qint64 overlongClassLines = 0; // lines over core::kMaxAuditEventBytes naming fieldscope:class: skipped
    QDateTime oldestEvent;         // the oldest event the log files still hold (UTC); invalid when none
    // The log begins after the class started: its first requests were rotated away.
    bool startRotatedAway(const ClassState &state) const
    {
        return oldestEvent.isValid() && oldestEvent > state.started;
    }
};
// In time order. At most `maxEvents` (the newest); lines above core::kMaxAuditEventBytes are
// skipped and, when they name the class's group, counted in `coverage`.
core::Result<QList<ClassRequest>> readClassRequests(const ClassState &state, qint64 maxEvents = 1000000,
                                                    ClassLogCoverage *coverage = nullptr);

struct StudentActivity {
    QString name;
    qint64 requests = 0, writes = 0, refused = 0;
    QString lastObject;  // "configmaps/class/demo": the object of the student's last write, accepted or refused
    QDateTime lastWrite; // when the student sent it (UTC); invalid before the first write
};
// Every student of the roster, in roster order (requests of names not on it are ignored).
QList<StudentActivity> summarizeClass(const ClassState &state, const QList<ClassRequest> &requests);

} // namespace fieldscope::app
