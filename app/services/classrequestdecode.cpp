#include "app/services/classrequestdecode.h"

#include <QFile>

#include <algorithm>
#include <string_view>

namespace fieldscope::app {

namespace {

constexpr std::string_view kClassGroup = "fieldscope:class";

QString boundedText(const std::string &s, int maxChars)
{
    QString text = QString::fromUtf8(s.data(), qsizetype(std::min<std::size_t>(s.size(), std::size_t(maxChars) * 4)));
    if (text.size() > maxChars)
        text = text.left(maxChars - 1) + QChar(0x2026);
    return text;
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

} // namespace

ClassRequest classRequestFromAudit(const core::AuditEvent &event)
{
    ClassRequest r;
    r.time = QDateTime::fromMSecsSinceEpoch(event.requestReceivedMicros / 1000, Qt::UTC);
    r.student = boundedText(event.user.username, 128);
    r.verb = boundedText(event.verb, 32);
    if (event.hasObjectRef) {
        r.resource = boundedText(event.objectRef.resource, 253);
        r.namespaceName = boundedText(event.objectRef.namespace_, 253);
        r.name = boundedText(event.objectRef.name, 253);
        r.subresource = boundedText(event.objectRef.subresource, 253);
    }
    r.code = event.responseCode;
    if (r.isWrite() && event.succeeded())
        r.resourceVersion = boundedText(event.responseResourceVersion, 64);
    if (const auto manager = core::auditQueryParameter(event.requestURI, "fieldManager"); manager)
        r.fieldManager = boundedText(*manager, 128);
    if (r.code >= 400)
        r.reason = boundedText(event.responseMessage, kMaxClassReasonChars);
    return r;
}

std::optional<ClassRequest> classRequestFromAudit(const core::AuditEvent &event, const QDateTime &since)
{
    if (!event.isFinal()
        || std::find(event.user.groups.begin(), event.user.groups.end(), kClassGroup) == event.user.groups.end())
        return std::nullopt;
    if (since.isValid() && event.requestReceivedMicros / 1000 < since.toMSecsSinceEpoch())
        return std::nullopt;
    return classRequestFromAudit(event);
}

core::AuditLogPosition classLogStart(const QString &logPath, const QDateTime &from)
{
    QFile log(logPath);
    if (!log.open(QIODevice::ReadOnly))
        return {};
    const qint64 maxLine = qint64(core::kMaxAuditEventBytes) + 2;
    const QByteArray first = log.readLine(maxLine);
    if (!first.endsWith('\n'))
        return {};
    const qint64 since = from.isValid() ? from.toMSecsSinceEpoch() - qint64(60) * 1000 : 0;
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
    // The first line identifies the file (core::AuditLogFollower).
    return {core::auditFirstLineHash(std::string_view(first.constData(), std::size_t(first.size() - 1))),
            lo == 0 ? 0 : start};
}

ClassAuditTail::ClassAuditTail(const QString &clusterDir, const QDateTime &from)
{
    const QString logPath = clusterDir + QStringLiteral("/logs/audit.log");
    m_follower = std::make_unique<core::AuditLogFollower>(logPath.toStdString(), classLogStart(logPath, from));
}

ClassAuditTail::~ClassAuditTail() = default;

core::Status ClassAuditTail::poll(QList<ClassRequest> &out, const QDateTime &since, qint64 maxBytes)
{
    core::AuditDecodeResult decoded;
    core::Status polled = m_follower->poll(decoded, maxBytes);
    for (const core::AuditEvent &e : decoded.events)
        if (auto r = classRequestFromAudit(e, since))
            out.append(std::move(*r));
    return polled;
}

} // namespace fieldscope::app
