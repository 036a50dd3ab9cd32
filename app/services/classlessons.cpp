#include "app/services/classlessons.h"

#include <algorithm>

namespace fieldscope::app {

namespace {

std::string bounded(const QString &s, int max)
{
    return s.left(max).toStdString();
}

} // namespace

ClassWriteSource::ClassWriteSource(ClassState state) : m_state(std::move(state)) {}

ClassWriteSource::~ClassWriteSource() = default;

std::vector<std::string> ClassWriteSource::students() const
{
    std::vector<std::string> out;
    for (const ClassStudent &s : m_state.students)
        out.push_back(s.name.toStdString());
    return out;
}

lessons::StudentWrite studentWrite(const ClassRequest &r)
{
    lessons::StudentWrite w;
    w.time = std::chrono::system_clock::time_point(std::chrono::milliseconds(r.time.toMSecsSinceEpoch()));
    w.student = bounded(r.student, 253);
    w.verb = bounded(r.verb, 32);
    w.resource = bounded(r.resource, 253);
    w.ns = bounded(r.namespaceName, 253);
    w.name = bounded(r.name, 253);
    w.subresource = bounded(r.subresource, 64);
    w.code = r.code;
    w.resourceVersion = bounded(r.resourceVersion, 64);
    w.fieldManager = bounded(r.fieldManager, 128);
    w.message = bounded(r.reason, kMaxClassReasonChars);
    return w;
}

core::Result<std::vector<lessons::StudentWrite>>
ClassWriteSource::writesSince(std::chrono::system_clock::time_point since)
{
    // The audit log's times are in milliseconds here: a write in the step's first millisecond counts.
    const auto from = std::chrono::floor<std::chrono::milliseconds>(since);
    if (!m_tail)
        m_tail = std::make_unique<ClassAuditTail>(m_state.clusterDir,
                                                  QDateTime::fromMSecsSinceEpoch(from.time_since_epoch().count(),
                                                                                 Qt::UTC));
    QList<ClassRequest> requests;
    const core::Status polled = m_tail->poll(requests, m_state.started, kMaxBytesPerCall);
    for (const ClassRequest &r : requests) {
        if (!r.isWrite() || !r.time.isValid())
            continue;
        m_writes.push_back(studentWrite(r));
        if (m_writes.size() > kMaxKeptWrites)
            m_writes.pop_front(); // the newest are kept
    }
    if (!polled)
        return polled.error();
    // Writes before this step's start are no step's any more (`since` does not go back).
    std::erase_if(m_writes, [&](const lessons::StudentWrite &w) { return w.time < from; });
    std::vector<lessons::StudentWrite> out(m_writes.begin(), m_writes.end());
    // Rotated files and the live log may overlap by a moment: order by time (stable: log order).
    std::stable_sort(out.begin(), out.end(),
                     [](const lessons::StudentWrite &a, const lessons::StudentWrite &b) { return a.time < b.time; });
    return out;
}

core::Result<std::shared_ptr<SimulatedClass>> connectStudents(const ClassState &state)
{
    auto out = std::make_shared<SimulatedClass>();
    out->connections.reserve(std::size_t(state.students.size()));
    for (const ClassStudent &s : state.students) {
        kube::ConnectionOptions o;
        o.kubeconfigPath = s.kubeconfigPath.toStdString();
        auto c = kube::connect(o);
        if (!c)
            return core::Error::make(core::ErrorCategory::Config,
                                     "student " + s.name.toStdString()
                                         + ": cannot use their kubeconfig: " + c.error().describe());
        out->connections.push_back(std::move(*c));
        out->students.push_back({s.name.toStdString(), out->connections.back().transport->config()});
    }
    return out;
}

QStringList simulatedStudentNames(int count)
{
    QStringList names;
    for (int i = 1; i <= count; ++i)
        names << QStringLiteral("student%1").arg(i);
    return names;
}

} // namespace fieldscope::app
