// `fieldscope class start|status|stop|report` against a real kube-apiserver: a class of
// 30 students, each with the kubeconfig `class start` wrote, racing on one ConfigMap; every write
// and every refused write named by student from the audit log; isolation; revocation; expiry;
// --listen. Runs its own cluster (scripts/fieldscope-cluster): a class changes the API server's
// client CA bundle and --listen restarts it, which must not disturb the shared test cluster.
#include "kube/apierror.h"
#include "kube/connection.h"
#include "kube/transport.h"
#include "tests/support/clusterenv.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <future>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

constexpr int kStudents = 30;

// One request to its end from the calling thread (the transport has its own network thread):
// the HTTP status, 0 when the server could not be reached, and the body.
struct Answer {
    int status = 0;
    QByteArray body;
};

std::future<core::Result<kube::HttpResponse>> startRequest(kube::Transport &t, kube::HttpRequest r)
{
    auto promise = std::make_shared<std::promise<core::Result<kube::HttpResponse>>>();
    auto future = promise->get_future();
    t.start(std::move(r),
            [promise](core::Result<kube::HttpResponse> answer) { promise->set_value(std::move(answer)); });
    return future;
}

Answer answerOf(core::Result<kube::HttpResponse> r)
{
    if (!r)
        return {r.error().httpStatus, QByteArray::fromStdString(r.error().message)};
    return {r->status, QByteArray::fromStdString(r->body)};
}

Answer send(kube::Connection &c, const char *method, const std::string &path, const QByteArray &body = {})
{
    return answerOf(startRequest(*c.transport, request(method, path, body.toStdString())).get());
}

std::optional<kube::Connection> connectKubeconfig(const QString &path)
{
    kube::ConnectionOptions o;
    o.kubeconfigPath = path.toStdString();
    auto c = kube::connect(o);
    if (!c)
        return std::nullopt;
    return std::move(*c);
}

QJsonObject jsonOf(const QByteArray &bytes)
{
    return QJsonDocument::fromJson(bytes).object();
}

QString firstNonLoopbackIPv4()
{
    QProcess p;
    p.start(QStringLiteral("hostname"), {QStringLiteral("-I")});
    if (!p.waitForFinished(10000))
        return {};
    for (const QString &a : QString::fromLatin1(p.readAllStandardOutput()).split(QLatin1Char(' '), Qt::SkipEmptyParts))
        if (a.count(QLatin1Char('.')) == 3 && !a.startsWith(QLatin1String("127.")))
            return a.trimmed();
    return {};
}

} // namespace

class TestClassCli : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tmp;
    QString m_cluster, m_out;
    std::optional<kube::Connection> m_admin;
    QStringList m_names;

    ProcessResult klass(const QStringList &args, int timeoutMs = 180000)
    {
        return runFieldscope(QStringList{QStringLiteral("class")} + args
                                 + QStringList{QStringLiteral("--cluster-dir"), m_cluster},
                             timeoutMs);
    }

    QJsonObject statusJson()
    {
        const ProcessResult r = klass({QStringLiteral("status"), QStringLiteral("-o"), QStringLiteral("json")});
        return r.exitCode == 0 ? jsonOf(r.out) : QJsonObject{};
    }

    // The class's status once all 30 writes and the 29 refusals reached the audit log.
    bool everyRaceWriteIsAudited(QJsonObject &status)
    {
        status = statusJson();
        qint64 writes = 0, refused = 0;
        const QJsonArray students = status.value(u"students").toArray();
        for (const auto &s : students) {
            writes += s.toObject().value(u"writes").toInteger();
            refused += s.toObject().value(u"refused").toInteger();
        }
        return writes == kStudents && refused == kStudents - 1;
    }

    QString kubeconfigOf(const QString &name) const
    {
        return m_out + QLatin1Char('/') + name + QStringLiteral(".kubeconfig");
    }

    int studentStatus(const QString &name, const char *method, const std::string &path, const QByteArray &body = {})
    {
        auto c = connectKubeconfig(kubeconfigOf(name));
        return c ? send(*c, method, path, body).status : -1;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        m_cluster = m_tmp.filePath(QStringLiteral("cluster"));
        m_out = m_tmp.filePath(QStringLiteral("kubeconfigs"));
        QVERIFY2(runClusterScript({QStringLiteral("start"), m_cluster, QStringLiteral("--name"),
                                   QStringLiteral("classroom"), QStringLiteral("--max-lifetime"),
                                   QStringLiteral("1500")}),
                 "private cluster did not start");
        m_admin = connectKubeconfig(m_cluster + QStringLiteral("/kubeconfig"));
        QVERIFY(m_admin);
        for (int i = 0; i < kStudents; ++i)
            m_names << QStringLiteral("s%1").arg(i, 2, 10, QLatin1Char('0'));
    }

    void cleanupTestCase()
    {
        if (!m_cluster.isEmpty())
            runClusterScript({QStringLiteral("stop"), m_cluster, QStringLiteral("--purge")});
    }

    void hostileNamesAndBadRostersAreUsageErrorsWithTheReason_data()
    {
        QTest::addColumn<QString>("roster");
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QString out = QStringLiteral("--out");
        QTest::newRow("upper case") << QString()
                                    << QStringList{QStringLiteral("--students"), QStringLiteral("Alice"), out, m_out}
                                    << QStringLiteral("not a DNS label");
        QTest::newRow("shell") << QString()
                               << QStringList{QStringLiteral("--students"), QStringLiteral("a;rm -rf ~"), out, m_out}
                               << QStringLiteral("not a DNS label");
        QTest::newRow("reserved") << QString()
                                  << QStringList{QStringLiteral("--students"), QStringLiteral("system-x"), out, m_out}
                                  << QStringLiteral("reserved");
        QTest::newRow("too long") << QString()
                                  << QStringList{QStringLiteral("--students"), QString(60, QLatin1Char('a')), out,
                                                 m_out}
                                  << QStringLiteral("longer than");
        QTest::newRow("twice") << QString()
                               << QStringList{QStringLiteral("--students"), QStringLiteral("ann,ann"), out, m_out}
                               << QStringLiteral("named twice");
        QTest::newRow("no out") << QString() << QStringList{QStringLiteral("--students"), QStringLiteral("ann")}
                                << QStringLiteral("--out DIR is required");
        QTest::newRow("both") << QStringLiteral("ann\n")
                              << QStringList{QStringLiteral("--students"), QStringLiteral("ann"), out, m_out}
                              << QStringLiteral("either --students");
        QTest::newRow("bad expires") << QString()
                                     << QStringList{QStringLiteral("--students"), QStringLiteral("ann"), out, m_out,
                                                    QStringLiteral("--expires"),  QStringLiteral("soon")}
                                     << QStringLiteral("--expires");
        QTest::newRow("roster bad line") << QStringLiteral("# class 3b\nann\n\nbo # back row\n<script>\n")
                                         << QStringList{out, m_out} << QStringLiteral("roster line 5");
        QTest::newRow("roster duplicate")
            << QStringLiteral("ann\nann\n") << QStringList{out, m_out} << QStringLiteral("roster line 2");
        QTest::newRow("reserved sandbox user")
            << QString() << QStringList{QStringLiteral("--students"), QStringLiteral("ann,alice"), out, m_out}
            << QStringLiteral("reserved");
        QTest::newRow("listen unspecified v4")
            << QString() << QStringList{QStringLiteral("--students"), QStringLiteral("ann"),    out, m_out,
                                        QStringLiteral("--listen"),   QStringLiteral("0.0.0.0")}
            << QStringLiteral("not an unspecified or multicast address");
        QTest::newRow("listen unspecified v6")
            << QString() << QStringList{QStringLiteral("--students"), QStringLiteral("ann"),      out, m_out,
                                        QStringLiteral("--listen"),   QStringLiteral("[::]:6443")}
            << QStringLiteral("not an unspecified or multicast address");
        QTest::newRow("listen multicast")
            << QString() << QStringList{QStringLiteral("--students"), QStringLiteral("ann"),      out, m_out,
                                        QStringLiteral("--listen"),   QStringLiteral("239.1.2.3")}
            << QStringLiteral("not an unspecified or multicast address");
        QTest::newRow("roster empty") << QStringLiteral("# nobody\n") << QStringList{out, m_out}
                                      << QStringLiteral("no student");
    }

    void hostileNamesAndBadRostersAreUsageErrorsWithTheReason()
    {
        QFETCH(QString, roster);
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        if (!roster.isEmpty()) {
            QFile f(m_tmp.filePath(QStringLiteral("roster.txt")));
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(roster.toUtf8());
            f.close();
            args << QStringLiteral("--roster") << f.fileName();
        }
        const ProcessResult r = klass(QStringList{QStringLiteral("start")} + args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
        QVERIFY(!QFile::exists(m_cluster + QStringLiteral("/class/state.json")));
    }

    void statusWithoutAClassFailsAndABadFormatIsAUsageError()
    {
        QCOMPARE(klass({QStringLiteral("status")}).exitCode, 1);
        QCOMPARE(klass({QStringLiteral("status"), QStringLiteral("-o"), QStringLiteral("xml")}).exitCode, 2);
        QCOMPARE(klass({QStringLiteral("report"), QStringLiteral("-o"), QStringLiteral("text")}).exitCode, 2);
        QCOMPARE(klass({QStringLiteral("dance")}).exitCode, 2);
    }

    void thirtyStudentsRaceOnOneConfigMapAndEveryOutcomeIsNamed()
    {
        const ProcessResult started = klass({QStringLiteral("start"), QStringLiteral("--students"), m_names.join(u','),
                                             QStringLiteral("--out"), m_out});
        QVERIFY2(started.exitCode == 0, started.err.constData());
        QVERIFY(started.out.contains("class started: 30 students"));

        // The teacher puts up the object and its resourceVersion.
        const Answer made =
            send(*m_admin, "POST", "/api/v1/namespaces/class/configmaps",
                 R"j({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"race"},"data":{"v":"0"}})j");
        QCOMPARE(made.status, 201);
        const QString rv = jsonOf(made.body).value(u"metadata").toObject().value(u"resourceVersion").toString();
        QVERIFY(!rv.isEmpty());

        // 30 clients, each its own connection from its own kubeconfig, replace it from that version at once.
        std::vector<kube::Connection> students;
        for (const QString &name : m_names) {
            auto c = connectKubeconfig(kubeconfigOf(name));
            QVERIFY2(c, qPrintable(name));
            students.push_back(std::move(*c));
        }
        std::vector<std::future<core::Result<kube::HttpResponse>>> pending;
        for (int i = 0; i < kStudents; ++i) {
            const QByteArray body =
                QStringLiteral(R"j({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"race",)j"
                               R"j("namespace":"class","resourceVersion":"%1"},"data":{"v":"%2"}})j")
                    .arg(rv, m_names[i])
                    .toUtf8();
            pending.push_back(startRequest(
                *students[std::size_t(i)].transport,
                request("PUT", "/api/v1/namespaces/class/configmaps/race?fieldManager=" + m_names[i].toStdString(),
                        body.toStdString())));
        }
        QHash<QString, int> outcome;
        QString winner, winnerRv;
        for (int i = 0; i < kStudents; ++i) {
            const Answer a = answerOf(pending[std::size_t(i)].get());
            outcome.insert(m_names[i], a.status);
            if (a.status == 200) {
                winner = m_names[i];
                winnerRv = jsonOf(a.body).value(u"metadata").toObject().value(u"resourceVersion").toString();
            }
        }
        QCOMPARE(std::count(outcome.cbegin(), outcome.cend(), 200), 1);
        QCOMPARE(std::count(outcome.cbegin(), outcome.cend(), 409), kStudents - 1);

        // status -o json: every student, one write each, the 29 losers refused, the object named.
        QJsonObject status;
        QTRY_VERIFY_WITH_TIMEOUT(everyRaceWriteIsAudited(status), 30000);
        QVERIFY(status.value(u"running").toBool());
        const QJsonArray rows = status.value(u"students").toArray();
        QCOMPARE(rows.size(), kStudents);
        for (int i = 0; i < kStudents; ++i) {
            const QJsonObject s = rows[i].toObject();
            QCOMPARE(s.value(u"name").toString(), m_names[i]); // roster order
            QCOMPARE(s.value(u"writes").toInteger(), 1);
            QCOMPARE(s.value(u"refused").toInteger(), m_names[i] == winner ? 0 : 1);
            QVERIFY(s.value(u"requests").toInteger() >= 1);
            QCOMPARE(s.value(u"lastWrite").toObject().value(u"object").toString(),
                     QStringLiteral("configmaps/class/race"));
            QVERIFY(QDateTime::fromString(s.value(u"lastWrite").toObject().value(u"time").toString(), Qt::ISODate)
                        .isValid());
        }

        // report -o json: each write with the server's own outcome, the winner's version, the losers' refusal.
        const ProcessResult report = klass({QStringLiteral("report"), QStringLiteral("-o"), QStringLiteral("json")});
        QCOMPARE(report.exitCode, 0);
        const QJsonArray reported = jsonOf(report.out).value(u"students").toArray();
        QCOMPARE(reported.size(), kStudents);
        for (const auto &v : reported) {
            const QJsonObject s = v.toObject();
            const QString name = s.value(u"name").toString();
            const QJsonArray writes = s.value(u"writes").toArray();
            QCOMPARE(writes.size(), 1);
            const QJsonObject w = writes[0].toObject();
            QCOMPARE(w.value(u"verb").toString(), QStringLiteral("update"));
            QCOMPARE(w.value(u"name").toString(), QStringLiteral("race"));
            QCOMPARE(w.value(u"namespace").toString(), QStringLiteral("class"));
            QCOMPARE(w.value(u"code").toInt(), outcome.value(name));
            QCOMPARE(w.value(u"fieldManager").toString(), name);
            QVERIFY(QDateTime::fromString(w.value(u"time").toString(), Qt::ISODate).isValid());
            if (name == winner) {
                QCOMPARE(w.value(u"resourceVersion").toString(), winnerRv);
                QCOMPARE(s.value(u"refused").toArray().size(), 0);
            } else {
                QCOMPARE(s.value(u"refused").toArray().size(), 1);
                QVERIFY2(w.value(u"reason").toString().contains(QStringLiteral("the object has been modified")),
                         qPrintable(w.value(u"reason").toString()));
            }
        }
    }

    void studentKubeconfigsArePrivateAndHoldNoTeacherCredential()
    {
        QFile tokens(m_cluster + QStringLiteral("/pki/tokens.csv"));
        QVERIFY(tokens.open(QIODevice::ReadOnly));
        QByteArrayList secrets;
        for (const QByteArray &line : tokens.readAll().split('\n'))
            if (!line.isEmpty())
                secrets << line.split(',').value(0);
        // The teacher's key and both CA keys, whole and as the base64 a kubeconfig would hold.
        for (const QString &key :
             {QStringLiteral("/pki/admin.key"), QStringLiteral("/pki/ca.key"), QStringLiteral("/class/pki/ca.key")}) {
            QFile f(m_cluster + key);
            QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(key));
            const QByteArray bytes = f.readAll();
            QVERIFY(!bytes.isEmpty());
            secrets << bytes << bytes.toBase64();
            for (const QByteArray &line : bytes.split('\n'))
                if (line.size() > 40 && !line.startsWith("-----"))
                    secrets << line; // the key's own base64 body
        }
        for (const QString &name : m_names) {
            QFile f(kubeconfigOf(name));
            QCOMPARE(f.permissions(), QFile::ReadOwner | QFile::WriteOwner | QFile::ReadUser | QFile::WriteUser);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray text = f.readAll();
            for (const QByteArray &secret : secrets)
                QVERIFY2(!text.contains(secret), qPrintable(name));
            QVERIFY(!text.contains("token"));
            QVERIFY(text.contains("namespace: class"));
            QVERIFY(text.contains("server: 'https://127.0.0.1:"));
        }
        // class start made --out: 0700, as its help says.
        QCOMPARE(QFile(m_out).permissions()
                     & (QFile::ReadGroup | QFile::WriteGroup | QFile::ExeGroup | QFile::ReadOther | QFile::WriteOther
                        | QFile::ExeOther),
                 QFile::Permissions());
        QCOMPARE(QFile(m_cluster + QStringLiteral("/class/state.json")).permissions(),
                 QFile::ReadOwner | QFile::WriteOwner | QFile::ReadUser | QFile::WriteUser);
    }

    void studentsAreIsolatedToTheClassAndTheirOwnNamespace()
    {
        const QString s0 = m_names[0];
        QCOMPARE(studentStatus(s0, "GET", "/api/v1/namespaces/student-s01/configmaps"), 403);
        QCOMPARE(studentStatus(s0, "GET", "/api/v1/namespaces/kube-system/secrets"), 403);
        QCOMPARE(studentStatus(s0, "GET", "/api/v1/namespaces/class/secrets"), 403);
        QCOMPARE(studentStatus(s0, "POST", "/api/v1/namespaces", R"j({"metadata":{"name":"mine"}})j"), 403);
        QCOMPARE(studentStatus(s0, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles",
                               R"j({"metadata":{"name":"mine"},"rules":[]})j"),
                 403);
        QCOMPARE(studentStatus(s0, "POST", "/api/v1/namespaces/student-s00/secrets",
                               R"j({"metadata":{"name":"own"},"stringData":{"k":"v"}})j"),
                 201);
        QCOMPARE(studentStatus(s0, "POST", "/api/v1/namespaces/class/configmaps",
                               R"j({"metadata":{"name":"by-s00"}})j"),
                 201);
    }

    // A student's Deployment with replicas: 100000 gets the quota's Pods and no more: the
    // ReplicaSet controller is refused past it, and so is the student's own next Pod.
    void aStudentsHugeDeploymentStopsAtTheNamespaceQuota()
    {
        const QString name = m_names[3];
        const std::string ns = "student-" + name.toStdString();
        QCOMPARE(studentStatus(name, "POST", "/apis/apps/v1/namespaces/" + ns + "/deployments",
                               R"j({"metadata":{"name":"flood"},"spec":{"replicas":100000,
                                   "selector":{"matchLabels":{"app":"flood"}},
                                   "template":{"metadata":{"labels":{"app":"flood"}},
                                   "spec":{"containers":[{"name":"c","image":"busybox"}]}}}})j"),
                 201);
        const auto pods = [&] {
            const Answer a = send(*m_admin, "GET", "/api/v1/namespaces/" + ns + "/pods");
            return jsonOf(a.body).value(u"items").toArray().size();
        };
        QTRY_COMPARE_WITH_TIMEOUT(pods(), 20, 60000);
        const QByteArray pod = R"j({"metadata":{"name":"one-more"},"spec":{"containers":[{"name":"c","image":"x"}]}})j";
        auto c = connectKubeconfig(kubeconfigOf(name));
        QVERIFY(c);
        const Answer refused = send(*c, "POST", "/api/v1/namespaces/" + ns + "/pods", pod);
        QCOMPARE(refused.status, 403);
        QVERIFY2(refused.body.contains("exceeded quota: fieldscope-class"), refused.body.constData());
        QCOMPARE(pods(), 20);
        QCOMPARE(studentStatus(name, "DELETE", "/apis/apps/v1/namespaces/" + ns + "/deployments/flood"), 200);
    }

    void aHostileRefusalIsEscapedInTheHtmlReport()
    {
        // The server refuses the name, and its message repeats it: the report must show it as text.
        QCOMPARE(studentStatus(m_names[1], "POST", "/api/v1/namespaces/class/configmaps",
                               R"j({"metadata":{"name":"<script>alert(1)</script>"}})j"),
                 422);
        ProcessResult html;
        QTRY_VERIFY_WITH_TIMEOUT((html = klass({QStringLiteral("report"), QStringLiteral("-o"),
                                                QStringLiteral("html")}))
                                     .out.contains("422"),
                                 20000);
        QCOMPARE(html.exitCode, 0);
        QVERIFY(html.out.startsWith("<!DOCTYPE html>"));
        QVERIFY(html.out.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        QVERIFY(!html.out.contains("<script"));
        QVERIFY(!html.out.contains("src=")); // self-contained
    }

    void stopRevokesEveryStudentAtOnceAndKeepsTheNamespaces()
    {
        QCOMPARE(studentStatus(m_names[2], "GET", "/api/v1/namespaces/class/configmaps"), 200);
        const ProcessResult stopped = klass({QStringLiteral("stop")});
        QVERIFY2(stopped.exitCode == 0, stopped.err.constData());
        for (const QString &name : std::as_const(m_names))
            QCOMPARE(studentStatus(name, "GET", "/api/v1/namespaces/class/configmaps"), 401);
        QCOMPARE(send(*m_admin, "GET", "/api/v1/namespaces/class").status, 200);
        QCOMPARE(send(*m_admin, "GET", "/api/v1/namespaces/student-s29").status, 200);
        QCOMPARE(send(*m_admin, "GET", "/api/v1/namespaces/class/configmaps/race").status, 200);
        const QJsonObject status = statusJson();
        QVERIFY(status.value(u"stopped").toBool());
        QVERIFY(!status.value(u"running").toBool());
    }

    void aClassWhoseCertificatesExpiredIsRefused()
    {
        const QString out = m_tmp.filePath(QStringLiteral("expiring"));
        const ProcessResult started = klass({QStringLiteral("start"), QStringLiteral("--students"),
                                             QStringLiteral("late"), QStringLiteral("--expires"), QStringLiteral("30s"),
                                             QStringLiteral("--out"), out});
        QVERIFY2(started.exitCode == 0, started.err.constData());
        auto c = connectKubeconfig(out + QStringLiteral("/late.kubeconfig"));
        QVERIFY(c);
        QCOMPARE(send(*c, "GET", "/api/v1/namespaces/class/configmaps").status, 200);
        QTRY_COMPARE_WITH_TIMEOUT(send(*c, "GET", "/api/v1/namespaces/class/configmaps").status, 401, 60000);
        QVERIFY(statusJson().value(u"expired").toBool());
        QCOMPARE(klass({QStringLiteral("stop")}).exitCode, 0);
    }

    void aListenAddressIsServedAndNamedInTheKubeconfig()
    {
        const QString address = firstNonLoopbackIPv4();
        if (address.isEmpty())
            QSKIP("this machine has no non-loopback IPv4 address (hostname -I)");
        const QString out = m_tmp.filePath(QStringLiteral("listening"));
        const ProcessResult started = klass({QStringLiteral("start"), QStringLiteral("--students"),
                                             QStringLiteral("far"), QStringLiteral("--listen"), address,
                                             QStringLiteral("--out"), out});
        QVERIFY2(started.exitCode == 0, started.err.constData());
        QFile f(out + QStringLiteral("/far.kubeconfig"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readAll().contains((QStringLiteral("server: 'https://") + address + u':').toUtf8()));
        QCOMPARE(statusJson().value(u"listen").toString().section(u':', 0, 0), address);
        auto c = connectKubeconfig(f.fileName());
        QVERIFY(c);
        QCOMPARE(send(*c, "GET", "/api/v1/namespaces/class/configmaps").status, 200);
        // The teacher's loopback kubeconfig keeps working.
        QCOMPARE(send(*m_admin, "GET", "/api/v1/namespaces/class").status, 200);
        QCOMPARE(klass({QStringLiteral("stop")}).exitCode, 0);
        QCOMPARE(send(*c, "GET", "/api/v1/namespaces/class/configmaps").status, 0); // loopback only again
        QCOMPARE(send(*m_admin, "GET", "/api/v1/namespaces/class").status, 200);
    }

    // A watch a student opened before the stop does not outlive it: class-revoke restarts the API
    // server, so the stream ends (not at its timeout), and the next request is refused.
    void aStudentsOpenWatchEndsWhenTheClassStops()
    {
        const QString out = m_tmp.filePath(QStringLiteral("watching"));
        const ProcessResult started = klass({QStringLiteral("start"), QStringLiteral("--students"),
                                             QStringLiteral("watcher"), QStringLiteral("--out"), out});
        QVERIFY2(started.exitCode == 0, started.err.constData());
        QFile port(m_cluster + QStringLiteral("/run/apiserver.port"));
        QVERIFY(port.open(QIODevice::ReadOnly));
        const QString url = QStringLiteral("https://127.0.0.1:%1/api/v1/namespaces/class/configmaps?watch=1&"
                                           "timeoutSeconds=600")
                                .arg(QString::fromLatin1(port.readAll().trimmed()));
        // curl with the student's certificate and key files (paths only on its command line).
        const QString pki = m_cluster + QStringLiteral("/class/pki/watcher");
        QProcess watch;
        watch.start(QStringLiteral("curl"),
                    {QStringLiteral("-sSN"), QStringLiteral("--cacert"), m_cluster + QStringLiteral("/pki/ca.crt"),
                     QStringLiteral("--cert"), pki + QStringLiteral(".crt"), QStringLiteral("--key"),
                     pki + QStringLiteral(".key"), QStringLiteral("-w"), QStringLiteral("\nHTTP %{http_code}\n"), url});
        QVERIFY(watch.waitForStarted());
        // The stream is open once the server sent the (ADDED) events of what is there.
        QByteArray streamed;
        QTRY_VERIFY2_WITH_TIMEOUT((streamed += watch.readAllStandardOutput()).contains("\"type\":\"ADDED\""),
                                  (streamed + watch.readAllStandardError()).constData(), 20000);
        QCOMPARE(watch.state(), QProcess::Running);
        const ProcessResult stopped = klass({QStringLiteral("stop")});
        QVERIFY2(stopped.exitCode == 0, stopped.err.constData());
        QTRY_COMPARE_WITH_TIMEOUT(watch.state(), QProcess::NotRunning, 20000); // not at its 600 s timeout
        auto c = connectKubeconfig(out + QStringLiteral("/watcher.kubeconfig"));
        QVERIFY(c);
        QCOMPARE(send(*c, "GET", "/api/v1/namespaces/class/configmaps").status, 401);
        // The teacher's own client reconnects.
        QTRY_COMPARE_WITH_TIMEOUT(send(*m_admin, "GET", "/api/v1/namespaces/class").status, 200, 30000);
    }

    // The kubeconfigs handed out are the students' now: the teacher may delete them. Stop probes
    // with the class's own copy of the credential and still ends the class.
    void stopEndsAClassWhoseKubeconfigFolderWasDeleted()
    {
        const QString out = m_tmp.filePath(QStringLiteral("deleted"));
        const ProcessResult started = klass({QStringLiteral("start"), QStringLiteral("--students"),
                                             QStringLiteral("gone"), QStringLiteral("--out"), out});
        QVERIFY2(started.exitCode == 0, started.err.constData());
        QVERIFY(QDir(out).removeRecursively());
        const ProcessResult stopped = klass({QStringLiteral("stop")});
        QVERIFY2(stopped.exitCode == 0, stopped.err.constData());
        const QJsonObject status = statusJson();
        QVERIFY(!status.value(u"running").toBool());
        QVERIFY(status.value(u"stopped").toBool());
        QVERIFY2(klass({QStringLiteral("start"), QStringLiteral("--students"), QStringLiteral("gone"),
                        QStringLiteral("--out"), out})
                         .exitCode
                     == 0,
                 "a new class could not start after the stop");
        QCOMPARE(klass({QStringLiteral("stop")}).exitCode, 0);
    }

    // A sandbox whose API server is down: nothing to revoke in memory (the bundle on disk is what
    // the next start reads), so stop marks the class stopped and starts nothing against etcd.
    void stopEndsAClassWhileTheApiServerIsDown()
    {
        const QString out = m_tmp.filePath(QStringLiteral("down"));
        const ProcessResult started = klass({QStringLiteral("start"), QStringLiteral("--students"),
                                             QStringLiteral("down"), QStringLiteral("--out"), out});
        QVERIFY2(started.exitCode == 0, started.err.constData());
        QVERIFY(runClusterScript({QStringLiteral("kill-apiserver"), m_cluster}));
        const ProcessResult stopped = klass({QStringLiteral("stop")});
        QVERIFY2(stopped.exitCode == 0, stopped.err.constData());
        QVERIFY(!statusJson().value(u"running").toBool());
        QVERIFY(!QFile::exists(m_cluster + QStringLiteral("/run/apiserver.pid"))); // stop started none
        QVERIFY(runClusterScript({QStringLiteral("start-apiserver"), m_cluster}));
        auto c = connectKubeconfig(out + QStringLiteral("/down.kubeconfig"));
        QVERIFY(c);
        QCOMPARE(send(*c, "GET", "/api/v1/namespaces/class/configmaps").status, 401);
        QCOMPARE(send(*m_admin, "GET", "/api/v1/namespaces/class").status, 200);
    }

    // A stop whose API server cannot be restarted (its binary not where the script looks: a HOME
    // or PATH that is not the teacher's) used to stop the server and leave the sandbox without
    // one. Now the server keeps serving, the students are refused all the same (the bundle no
    // longer holds the class CA) and the class is over; the exit code and message say that the
    // streams they opened before were not ended.
    void aStopThatCannotRestartTheApiServerStillEndsTheClass()
    {
        const QString out = m_tmp.filePath(QStringLiteral("norestart"));
        const ProcessResult started = klass({QStringLiteral("start"), QStringLiteral("--students"),
                                             QStringLiteral("stuck"), QStringLiteral("--out"), out});
        QVERIFY2(started.exitCode == 0, started.err.constData());
        const QByteArray apiserver = qgetenv("FIELDSCOPE_KUBE_APISERVER");
        qputenv("FIELDSCOPE_KUBE_APISERVER", "/nonexistent/kube-apiserver");
        const ProcessResult stopped = klass({QStringLiteral("stop")});
        qputenv("FIELDSCOPE_KUBE_APISERVER", apiserver);
        QVERIFY2(stopped.exitCode != 0, stopped.out.constData());
        QVERIFY2(stopped.err.contains("could not be restarted"), stopped.err.constData());
        QVERIFY(!statusJson().value(u"running").toBool());
        auto c = connectKubeconfig(out + QStringLiteral("/stuck.kubeconfig"));
        QVERIFY(c);
        QCOMPARE(send(*c, "GET", "/api/v1/namespaces/class/configmaps").status, 401);
        QCOMPARE(send(*m_admin, "GET", "/api/v1/namespaces/class").status, 200);
    }

    void purgeDeletesTheNamespacesAndTheState()
    {
        const ProcessResult purged = klass({QStringLiteral("stop"), QStringLiteral("--purge")});
        QVERIFY2(purged.exitCode == 0, purged.err.constData());
        QVERIFY(!QFile::exists(m_cluster + QStringLiteral("/class")));
        // The last class's student (aStopThatCannotRestartTheApiServerStillEndsTheClass).
        QTRY_COMPARE_WITH_TIMEOUT(send(*m_admin, "GET", "/api/v1/namespaces/student-stuck").status, 404, 60000);
        QTRY_COMPARE_WITH_TIMEOUT(send(*m_admin, "GET", "/api/v1/namespaces/class").status, 404, 60000);
        QCOMPARE(klass({QStringLiteral("status")}).exitCode, 1);
    }

    // The next class right after a purge: its namespaces are still Terminating for a few seconds
    // (the namespace controller empties them); start waits for them to go and makes them anew.
    void aClassStartedRightAfterAPurgeWaitsForTheOldNamespaces()
    {
        const QStringList start{QStringLiteral("start"), QStringLiteral("--students"), QStringLiteral("again"),
                                QStringLiteral("--out"), m_tmp.filePath(QStringLiteral("again"))};
        const ProcessResult first = klass(start);
        QVERIFY2(first.exitCode == 0, first.err.constData());
        QCOMPARE(klass({QStringLiteral("stop"), QStringLiteral("--purge")}).exitCode, 0);
        const ProcessResult second = klass(start);
        QVERIFY2(second.exitCode == 0, second.err.constData());
        const Answer ns = send(*m_admin, "GET", "/api/v1/namespaces/class");
        QCOMPARE(ns.status, 200);
        QVERIFY2(!ns.body.contains("deletionTimestamp"), ns.body.constData());
        QCOMPARE(klass({QStringLiteral("stop"), QStringLiteral("--purge")}).exitCode, 0);
    }

    // A namespace named `class` the teacher had before the class is used as it is, and a purge
    // keeps it: only namespaces carrying the class's label are deleted.
    void purgeKeepsANamespaceTheClassDidNotMake()
    {
        // The namespace controller empties the last purge's namespace first (a minute or more).
        QTRY_COMPARE_WITH_TIMEOUT(send(*m_admin, "GET", "/api/v1/namespaces/class").status, 404, 180000);
        QCOMPARE(send(*m_admin, "POST", "/api/v1/namespaces", R"j({"metadata":{"name":"class"}})j").status, 201);
        const QStringList start{QStringLiteral("start"), QStringLiteral("--students"), QStringLiteral("keeper"),
                                QStringLiteral("--out"), m_tmp.filePath(QStringLiteral("keeper"))};
        const ProcessResult started = klass(start);
        QVERIFY2(started.exitCode == 0, started.err.constData());
        QCOMPARE(klass({QStringLiteral("stop"), QStringLiteral("--purge")}).exitCode, 0);
        const Answer ns = send(*m_admin, "GET", "/api/v1/namespaces/class");
        QCOMPARE(ns.status, 200);
        QVERIFY2(!ns.body.contains("deletionTimestamp"), ns.body.constData());
        const Answer own = send(*m_admin, "GET", "/api/v1/namespaces/student-keeper");
        QVERIFY(own.status == 404 || own.body.contains("deletionTimestamp"));
        QCOMPARE(send(*m_admin, "DELETE", "/api/v1/namespaces/class").status, 200);
    }
};

QTEST_GUILESS_MAIN(TestClassCli)
#include "tst_class_cli.moc"
