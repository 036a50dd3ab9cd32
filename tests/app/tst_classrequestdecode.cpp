// The one conversion of an audit event into a student's ClassRequest (classrequestdecode.h) and
// the followers built on it: hostile fields are bounded, a refused write carries no
// resourceVersion, and the class's audit log is followed (what it gained, across rotation), not
// re-read. Files only, no cluster.
#include "app/services/classlessons.h"
#include "app/services/classrequestdecode.h"
#include "core/audit/auditevent.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace fieldscope;
using namespace fieldscope::app;

namespace {

struct Line {
    std::string user = "alice";
    std::string verb = "update";
    std::string resource = "configmaps";
    std::string name = "race";
    int code = 200;
    std::string resourceVersion = "42";
    std::string time = "2026-11-29T10:00:05.000000Z";
    std::string id = "a1";
};

std::string text(const Line &l)
{
    return R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":")" + l.id
         + R"(","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/class/configmaps/race?fieldManager=kubectl","verb":")"
         + l.verb + R"(","user":{"username":")" + l.user + R"(","groups":["fieldscope:class","system:authenticated"]},)"
         + R"("objectRef":{"resource":")" + l.resource + R"(","namespace":"class","name":")" + l.name
         + R"(","apiVersion":"v1"},"responseStatus":{"code":)" + std::to_string(l.code)
         + R"(},"responseObject":{"kind":"ConfigMap","metadata":{"resourceVersion":")" + l.resourceVersion
         + R"("}},"requestReceivedTimestamp":")" + l.time + R"(","stageTimestamp":")" + l.time + R"("})";
}

core::AuditEvent auditEvent(const Line &l)
{
    auto e = core::decodeAuditEventText(text(l), "test");
    if (!e)
        qFatal("%s", e.error().describe().c_str());
    return *e;
}

bool append(const QString &path, const std::vector<Line> &lines)
{
    QFile f(path);
    if (!f.open(QIODevice::Append))
        return false;
    for (const Line &l : lines)
        f.write(QByteArray::fromStdString(text(l) + "\n"));
    return true;
}

QDateTime at(const char *iso)
{
    return QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODateWithMs);
}

std::chrono::system_clock::time_point clockAt(const char *iso)
{
    return std::chrono::system_clock::time_point(std::chrono::milliseconds(at(iso).toMSecsSinceEpoch()));
}

} // namespace

class TestClassRequestDecode : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void hostileLongFieldsAreBounded()
    {
        Line l;
        l.user = std::string(5000, 'u');
        l.name = std::string(5000, 'n');
        l.resource = std::string(5000, 'r');
        l.resourceVersion = std::string(5000, '7');
        const auto r = classRequestFromAudit(auditEvent(l), QDateTime());
        QVERIFY(r);
        QCOMPARE(r->student.size(), 128);
        QCOMPARE(r->name.size(), 253);
        QCOMPARE(r->resource.size(), 253);
        QCOMPARE(r->resourceVersion.size(), 64);
        QCOMPARE(r->fieldManager, QStringLiteral("kubectl"));
    }

    void aRefusedWriteOrAReadHasNoResourceVersion()
    {
        Line refused;
        refused.code = 409;
        refused.resourceVersion = "77"; // a hostile body: a Status would carry none
        const auto r = classRequestFromAudit(auditEvent(refused), QDateTime());
        QVERIFY(r);
        QCOMPARE(r->code, 409);
        QVERIFY2(r->resourceVersion.isEmpty(), qPrintable(r->resourceVersion));
        Line get;
        get.verb = "get";
        QVERIFY(classRequestFromAudit(auditEvent(get), QDateTime())->resourceVersion.isEmpty());
        const auto ok = classRequestFromAudit(auditEvent(Line{}), QDateTime());
        QCOMPARE(ok->resourceVersion, QStringLiteral("42"));
    }

    void eventsOutsideTheClassOrBeforeSinceAreNotRequests()
    {
        Line l;
        QVERIFY(!classRequestFromAudit(auditEvent(l), at("2026-11-29T10:00:06.000Z")));
        QVERIFY(classRequestFromAudit(auditEvent(l), at("2026-11-29T10:00:05.000Z")));
        std::string outsider = text(l);
        outsider.replace(outsider.find("fieldscope:class"), 16, "system:masters");
        QVERIFY(!classRequestFromAudit(*core::decodeAuditEventText(outsider, "test"), QDateTime()));
    }

    void theTailReadsOnlyWhatTheLogGainedAcrossRotation()
    {
        QTemporaryDir dir;
        QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("logs"))));
        const QString log = dir.filePath(QStringLiteral("logs/audit.log"));
        QVERIFY(append(log, {Line{.id = "1"}, Line{.id = "2"}}));
        ClassAuditTail tail(dir.path(), at("2026-11-29T10:00:00.000Z"));
        QList<ClassRequest> got;
        QVERIFY(tail.poll(got, QDateTime(), 1 << 20));
        QCOMPARE(got.size(), 2);
        QVERIFY(append(log, {Line{.user = "bob", .id = "3"}}));
        got.clear();
        QVERIFY(tail.poll(got, QDateTime(), 1 << 20));
        QCOMPARE(got.size(), 1);
        QCOMPARE(got[0].student, QStringLiteral("bob"));
        // The API server renames the log and starts a new one: the rest of the old, then the new.
        QVERIFY(append(log, {Line{.user = "carol", .id = "4"}}));
        QVERIFY(QFile::rename(log, dir.filePath(QStringLiteral("logs/audit-2026-11-29T10-00-09.000.log"))));
        QVERIFY(append(log, {Line{.user = "dave", .id = "5"}}));
        got.clear();
        QVERIFY(tail.poll(got, QDateTime(), 1 << 20));
        QStringList students;
        for (const ClassRequest &r : got)
            students << r.student;
        QCOMPARE(students, (QStringList{QStringLiteral("carol"), QStringLiteral("dave")}));
    }

    void aLessonsWriteSourceKeepsWhatItReadAndCountsFromSince()
    {
        QTemporaryDir dir;
        QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("logs"))));
        const QString log = dir.filePath(QStringLiteral("logs/audit.log"));
        QVERIFY(append(log, {Line{.time = "2026-11-29T10:00:01.000000Z", .id = "1"},
                             Line{.user = "bob", .time = "2026-11-29T10:00:05.000000Z", .id = "2"}}));
        ClassState state;
        state.clusterDir = dir.path();
        state.started = at("2026-11-29T09:59:00.000Z");
        state.running = true;
        ClassWriteSource source(state);
        auto first = source.writesSince(clockAt("2026-11-29T10:00:05.000Z"));
        QVERIFY(first);
        QCOMPARE(first->size(), std::size_t(1));
        QCOMPARE(first->at(0).student, std::string("bob"));
        QVERIFY(append(log, {Line{.user = "carol", .time = "2026-11-29T10:00:07.000000Z", .id = "3"}}));
        auto second = source.writesSince(clockAt("2026-11-29T10:00:05.000Z"));
        QVERIFY(second);
        QCOMPARE(second->size(), std::size_t(2)); // bob, kept from the first read, and carol
        QCOMPARE(second->at(1).student, std::string("carol"));
        auto next = source.writesSince(clockAt("2026-11-29T10:00:06.000Z")); // the next step
        QVERIFY(next);
        QCOMPARE(next->size(), std::size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestClassRequestDecode)
#include "tst_classrequestdecode.moc"
