// What the students did, from the API server's audit log (see classroom.h). The log is input a
// student shapes (object names, messages, bodies): lines are read with a bound, decoded by
// core/audit's bounded decoder, and only events of the class's group are kept.
#include "app/services/classrequestdecode.h"
#include "app/services/classroom.h"
#include "app/services/classroom_p.h"
#include "core/audit/auditevent.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <deque>
#include <string_view>

namespace fieldscope::app {

namespace {

constexpr std::string_view kClassGroup = "fieldscope:class";
constexpr qint64 kReadChunk = 1 << 20;

// DIR/logs/audit.log's rotations (audit-TIMESTAMP.log, oldest first by name), then the log itself;
// files last written before the class started are skipped.
QStringList auditFiles(const ClassState &state)
{
    const QDir logs(state.clusterDir + QStringLiteral("/logs"));
    QStringList out;
    const QStringList rotated = logs.entryList({QStringLiteral("audit-*.log")}, QDir::Files | QDir::NoSymLinks,
                                               QDir::Name);
    for (const QString &name : rotated) {
        const QFileInfo info(logs.filePath(name));
        if (info.lastModified() >= state.started.addSecs(-60))
            out.append(info.filePath());
    }
    if (QFileInfo::exists(logs.filePath(QStringLiteral("audit.log"))))
        out.append(logs.filePath(QStringLiteral("audit.log")));
    return out;
}

bool inClassGroup(const core::AuditEvent &event)
{
    return std::find(event.user.groups.begin(), event.user.groups.end(), kClassGroup) != event.user.groups.end();
}

// Reads one file line by line; a line above the event limit is skipped as it streams past, and
// only lines naming the class's group are decoded at all (most of a shared log is not the class's).
class ClassLogReader
{
public:
    ClassLogReader(const ClassState &state, qint64 maxEvents, std::deque<ClassRequest> &out, ClassLogCoverage &coverage)
        : m_sinceMicros(state.started.toMSecsSinceEpoch() * 1000)
        , m_maxEvents(maxEvents)
        , m_out(out)
        , m_coverage(coverage)
    {
    }

    core::Status read(const QString &path)
    {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return classroom_detail::classError(core::ErrorCategory::Io,
                                                QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
        m_partial.clear();
        m_overlong = false;
        QByteArray chunk;
        while (!(chunk = file.read(kReadChunk)).isEmpty())
            feed(std::string_view(chunk.constData(), std::size_t(chunk.size())));
        if (!m_overlong && !m_partial.empty())
            takeLine(m_partial);
        endOverlong();
        return core::success();
    }

private:
    void feed(std::string_view bytes)
    {
        while (!bytes.empty()) {
            const std::size_t nl = bytes.find('\n');
            const std::string_view piece = bytes.substr(0, nl);
            if (!m_overlong) {
                if (m_partial.size() + piece.size() > core::kMaxAuditEventBytes) {
                    m_overlong = true;
                    m_overlongNamesClass = false;
                    scanOverlong(m_partial);
                    m_partial.clear();
                } else {
                    m_partial.append(piece);
                }
            }
            if (m_overlong)
                scanOverlong(piece);
            if (nl == std::string_view::npos)
                return;
            if (!m_overlong)
                takeLine(m_partial);
            endOverlong();
            m_partial.clear();
            bytes.remove_prefix(nl + 1);
        }
    }

    // Looks for the class's group in a line too long to keep, as it streams past: the pieces'
    // seams are covered by the tail kept from the previous piece.
    void scanOverlong(std::string_view piece)
    {
        if (m_overlongNamesClass || piece.empty())
            return;
        std::string seam = m_tail;
        seam.append(piece.substr(0, std::min(piece.size(), kClassGroup.size())));
        if (seam.find(kClassGroup) != std::string::npos || piece.find(kClassGroup) != std::string_view::npos)
            m_overlongNamesClass = true;
        m_tail.append(piece.substr(piece.size() - std::min(piece.size(), kClassGroup.size())));
        if (m_tail.size() >= kClassGroup.size())
            m_tail.erase(0, m_tail.size() - (kClassGroup.size() - 1));
    }

    void endOverlong()
    {
        if (m_overlong && m_overlongNamesClass)
            ++m_coverage.overlongClassLines;
        m_overlong = false;
        m_overlongNamesClass = false;
        m_tail.clear();
    }

    void takeLine(std::string_view line)
    {
        if (!m_sawFirst && !line.empty()) {
            // The oldest event the files still hold: whoever sent it.
            m_sawFirst = true;
            if (auto first = core::decodeAuditEventText(line, "audit log line"); first)
                m_coverage.oldestEvent = QDateTime::fromMSecsSinceEpoch(first->requestReceivedMicros / 1000, Qt::UTC);
        }
        if (line.find(kClassGroup) == std::string_view::npos)
            return;
        auto event = core::decodeAuditEventText(line, "audit log line");
        if (!event || !event->isFinal() || !inClassGroup(*event) || event->requestReceivedMicros < m_sinceMicros)
            return;
        m_out.push_back(classRequestFromAudit(*event));
        if (qint64(m_out.size()) > m_maxEvents)
            m_out.pop_front(); // the newest are kept
    }

    qint64 m_sinceMicros;
    qint64 m_maxEvents;
    std::deque<ClassRequest> &m_out;
    ClassLogCoverage &m_coverage;
    std::string m_partial;
    std::string m_tail;
    bool m_overlong = false;
    bool m_overlongNamesClass = false;
    bool m_sawFirst = false;
};

QString objectText(const ClassRequest &r)
{
    QString resource = r.resource;
    if (!r.subresource.isEmpty())
        resource += QLatin1Char('/') + r.subresource;
    QStringList parts{resource};
    if (!r.namespaceName.isEmpty())
        parts.append(r.namespaceName);
    if (!r.name.isEmpty())
        parts.append(r.name);
    return parts.join(QLatin1Char('/'));
}

} // namespace

core::Result<QList<ClassRequest>> readClassRequests(const ClassState &state, qint64 maxEvents,
                                                    ClassLogCoverage *coverage)
{
    std::deque<ClassRequest> requests;
    ClassLogCoverage seen;
    ClassLogReader reader(state, std::max<qint64>(maxEvents, 1), requests, seen);
    for (const QString &path : auditFiles(state))
        if (auto read = reader.read(path); !read)
            return read.error();
    if (coverage)
        *coverage = seen;
    QList<ClassRequest> out(requests.begin(), requests.end());
    // Rotations and the live log overlap by at most a moment; order by time (stable: file order).
    std::stable_sort(out.begin(), out.end(),
                     [](const ClassRequest &a, const ClassRequest &b) { return a.time < b.time; });
    return out;
}

QList<StudentActivity> summarizeClass(const ClassState &state, const QList<ClassRequest> &requests)
{
    QList<StudentActivity> out;
    QHash<QString, qsizetype> index;
    for (const ClassStudent &student : state.students) {
        index.insert(student.name, out.size());
        out.append(StudentActivity{student.name});
    }
    for (const ClassRequest &r : requests) {
        const auto it = index.constFind(r.student);
        if (it == index.constEnd())
            continue;
        StudentActivity &a = out[*it];
        ++a.requests;
        if (!r.isWrite())
            continue;
        ++a.writes;
        if (r.refused())
            ++a.refused;
        if (!a.lastWrite.isValid() || r.time >= a.lastWrite) {
            a.lastWrite = r.time;
            a.lastObject = objectText(r);
        }
    }
    return out;
}

} // namespace fieldscope::app
