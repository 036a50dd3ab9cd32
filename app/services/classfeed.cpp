#include "app/services/classfeed.h"

#include "app/services/threadreaper.h"
#include "core/audit/auditfollower.h"
#include "core/base/boundary.h"

#include <QFile>
#include <QPointer>
#include <QThreadPool>

#include <algorithm>
#include <mutex>

namespace fieldscope::app {

namespace {

const std::string kClassGroup = "fieldscope:class";

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

// The time a log line's request was received; nullopt when the line has none.
std::optional<qint64> receivedMsOf(const QByteArray &line)
{
    static const QByteArray key = QByteArrayLiteral("\"requestReceivedTimestamp\":\"");
    const qsizetype at = line.indexOf(key);
    if (at < 0)
        return std::nullopt;
    const qsizetype end = line.indexOf('"', at + key.size());
    if (end < 0)
        return std::nullopt;
    const QDateTime t = QDateTime::fromString(QString::fromLatin1(line.mid(at + key.size(), end - at - key.size())),
                                              Qt::ISODateWithMs);
    return t.isValid() ? std::optional<qint64>(t.toMSecsSinceEpoch()) : std::nullopt;
}

// Where the follower starts: in the current log, at a line received a minute before the class
// started (the API server writes events in about the order it received the requests; a minute
// covers the difference), found by bisection, so a class on a sandbox with a 100 MB log reads
// only its own part. The first line identifies the file (core::AuditLogFollower).
core::AuditLogPosition startOf(const QString &logPath, const QDateTime &started)
{
    QFile log(logPath);
    if (!log.open(QIODevice::ReadOnly))
        return {};
    const qint64 maxLine = qint64(core::kMaxAuditEventBytes) + 2;
    const QByteArray first = log.readLine(maxLine);
    if (!first.endsWith('\n'))
        return {};
    const qint64 since = started.isValid() ? started.toMSecsSinceEpoch() - 60 * 1000 : 0;
    // The line starting at or after `offset`, and where it starts.
    auto lineAfter = [&](qint64 offset, qint64 *lineStart) -> QByteArray {
        if (!log.seek(offset))
            return {};
        if (offset > 0)
            log.readLine(maxLine); // the rest of the line `offset` is inside
        *lineStart = log.pos();
        return log.readLine(maxLine);
    };
    qint64 lo = 0, hi = log.size(); // the wanted line starts in (lo, hi]
    for (int probes = 0; probes < 64 && hi - lo > maxLine; ++probes) {
        const qint64 mid = lo + (hi - lo) / 2;
        qint64 start = 0;
        const auto t = receivedMsOf(lineAfter(mid, &start));
        if (t && *t < since)
            lo = mid;
        else
            hi = mid;
    }
    qint64 start = 0;
    lineAfter(lo, &start);
    return {core::auditFirstLineHash(std::string_view(first.constData(), std::size_t(first.size() - 1))),
            lo == 0 ? 0 : start};
}

bool sameClass(const ClassState &a, const ClassState &b)
{
    if (a.running != b.running || a.listen != b.listen || a.started != b.started || a.expires != b.expires
        || a.outDir != b.outDir || a.students.size() != b.students.size())
        return false;
    for (qsizetype i = 0; i < a.students.size(); ++i)
        if (a.students[i].name != b.students[i].name || a.students[i].kubeconfigPath != b.students[i].kubeconfigPath)
            return false;
    return true;
}

} // namespace

std::optional<ClassRequest> classRequestFromAudit(const core::AuditEvent &e, const QDateTime &since)
{
    if (!e.isFinal() || std::find(e.user.groups.begin(), e.user.groups.end(), kClassGroup) == e.user.groups.end())
        return std::nullopt;
    if (since.isValid() && e.requestReceivedMicros / 1000 < since.toMSecsSinceEpoch())
        return std::nullopt;
    ClassRequest r;
    r.time = QDateTime::fromMSecsSinceEpoch(e.requestReceivedMicros / 1000, Qt::UTC);
    r.student = qs(e.user.username);
    r.verb = qs(e.verb);
    if (e.hasObjectRef) {
        r.resource = qs(e.objectRef.resource);
        r.namespaceName = qs(e.objectRef.namespace_);
        r.name = qs(e.objectRef.name);
        r.subresource = qs(e.objectRef.subresource);
    }
    r.code = e.responseCode;
    r.resourceVersion = qs(e.responseResourceVersion);
    r.fieldManager = qs(e.fieldManager());
    if (e.responseCode >= 400)
        r.reason = qs(e.responseMessage).left(kMaxClassReasonChars);
    return r;
}

// The follower of one directory's audit log; one tick at a time uses it (the pool has one thread).
struct ClassFeed::Tail {
    std::mutex mutex;
    std::unique_ptr<core::AuditLogFollower> follower;
    QDateTime following; // the start time of the class being followed
};

ClassFeed::ClassFeed(QObject *parent) : QObject(parent), m_pool(new QThreadPool)
{
    m_pool->setMaxThreadCount(1);
    m_timer.setInterval(1000);
    connect(&m_timer, &QTimer::timeout, this, &ClassFeed::tick);
}

ClassFeed::~ClassFeed()
{
    reapWhenDone(std::exchange(m_pool, nullptr));
}

void ClassFeed::setClusterDir(const QString &dir)
{
    if (dir == m_dir)
        return;
    m_dir = dir;
    ++m_generation;
    m_busy = false;
    m_tail = std::make_shared<Tail>();
    const bool had = m_state.has_value();
    m_state.reset();
    if (had)
        Q_EMIT stateChanged();
    if (dir.isEmpty()) {
        m_timer.stop();
        return;
    }
    m_timer.start();
    tick();
}

void ClassFeed::pollNow()
{
    tick();
}

void ClassFeed::tick()
{
    if (m_busy || m_dir.isEmpty())
        return;
    m_busy = true;
    QPointer<ClassFeed> self(this);
    m_pool->start([self, tail = m_tail, dir = m_dir, generation = m_generation] {
        Tick result;
        const core::Status done = core::guarded("class feed", [&] { result = work(tail, dir); });
        if (!done)
            result.problem = qs(done.error().describe());
        QMetaObject::invokeMethod(
            self.get(),
            [self, generation, r = std::move(result)]() mutable {
                if (self)
                    self->onTick(generation, std::move(r));
            },
            Qt::QueuedConnection);
    });
}

// On the pool's thread.
ClassFeed::Tick ClassFeed::work(const std::shared_ptr<Tail> &tail, const QString &dir)
{
    Tick out;
    auto state = readClassState(dir);
    if (!state) {
        std::lock_guard lock(tail->mutex);
        tail->follower.reset();
        return out; // no class here (yet): nothing to say
    }
    out.state = *state;
    std::lock_guard lock(tail->mutex);
    if (!state->running) {
        tail->follower.reset();
        return out;
    }
    const QString logPath = dir + QStringLiteral("/logs/audit.log");
    if (!tail->follower || tail->following != state->started) {
        tail->follower = std::make_unique<core::AuditLogFollower>(logPath.toStdString(),
                                                                  startOf(logPath, state->started));
        tail->following = state->started;
    }
    core::AuditDecodeResult decoded;
    if (auto polled = tail->follower->poll(decoded, kMaxBytesPerTick); !polled)
        out.problem = qs(polled.error().describe());
    for (const core::AuditEvent &e : decoded.events)
        if (auto r = classRequestFromAudit(e, state->started))
            out.requests.append(std::move(*r));
    return out;
}

void ClassFeed::onTick(int generation, Tick result)
{
    if (generation != m_generation)
        return;
    m_busy = false;
    const bool changed = result.state.has_value() != m_state.has_value()
                      || (result.state && !sameClass(*result.state, *m_state));
    m_state = std::move(result.state);
    if (changed)
        Q_EMIT stateChanged();
    if (!result.requests.isEmpty())
        Q_EMIT requestsArrived(result.requests);
    if (!result.problem.isEmpty())
        Q_EMIT failing(result.problem);
}

} // namespace fieldscope::app
