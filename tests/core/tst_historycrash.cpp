// kill -9 while recording: every version the child reported committed must be in the store after
// the kill, and the store must open cleanly and pass its integrity check.
#include "core/history/historystore.h"
#include "core/history/historywriter.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <cstdio>
#include <set>

using namespace fieldscope::core;

namespace {

const WatchScope kScope = WatchScope::of({"", "v1", "configmaps"}, "load");

// Child mode: records endless batches of ConfigMap updates (many objects, growing data) and
// prints "C <uid> <rv>" for each version right after its transaction committed.
int runChild(const char *dbPath, int generation)
{
    HistoryRecorder::Options opts{dbPath};
    opts.onCommitted = [](const CommitReport &r) {
        for (const auto &v : r.versions)
            std::printf("C %s %s\n", v.uid.c_str(), v.resourceVersion.c_str());
        std::fflush(stdout);
    };
    HistoryRecorder rec(opts);
    for (long long rv = 1;; ++rv) {
        std::vector<WatchEvent> batch;
        for (int i = 0; i < 20; ++i, ++rv) {
            const int obj = int(rv % 50);
            Json cm{{"apiVersion", "v1"},
                    {"kind", "ConfigMap"},
                    {"metadata",
                     {{"name", "cm-" + std::to_string(obj)},
                      {"namespace", "load"},
                      {"uid", "g" + std::to_string(generation) + "-uid-" + std::to_string(obj)},
                      {"resourceVersion", std::to_string(std::int64_t{generation} * 10'000'000 + rv)}}},
                    {"data",
                     {{"counter", std::to_string(rv)}, {"payload", std::string(std::size_t(200 + rv % 300), 'x')}}}};
            batch.push_back({rv < 50 ? HistoryEventType::Added : HistoryEventType::Modified, toJsonText(cm),
                             QDateTime::currentMSecsSinceEpoch()});
        }
        rec.record(kScope, std::move(batch));
        if (rv % 400 == 0)
            QThread::msleep(1); // let the writer keep up a little so commits are frequent
    }
}

} // namespace

class TestHistoryCrash : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void killDashNineLosesNoCommittedVersion_data()
    {
        QTest::addColumn<int>("round");
        for (int i = 0; i < 4; ++i)
            QTest::newRow(qPrintable(QStringLiteral("round %1").arg(i))) << i;
    }
    void killDashNineLosesNoCommittedVersion()
    {
        QFETCH(int, round);
        static QTemporaryDir dir; // shared by the rounds: each reopens what the last one killed
        const QString db = dir.filePath(QStringLiteral("crash.db"));

        QProcess child;
        child.start(QCoreApplication::applicationFilePath(),
                    {QStringLiteral("--crash-child"), db, QString::number(round)});
        QVERIFY(child.waitForStarted());
        // Kill after a random number of commits reported: anywhere in the write cycle.
        const int wantLines = 200 + int(QRandomGenerator::global()->bounded(3000));
        QByteArray out;
        QElapsedTimer timer;
        timer.start();
        while (out.count('\n') < wantLines && timer.elapsed() < 60'000) {
            child.waitForReadyRead(100);
            out += child.readAllStandardOutput();
        }
        child.kill(); // SIGKILL
        QVERIFY(child.waitForFinished());
        out += child.readAllStandardOutput();
        QVERIFY2(out.count('\n') >= wantLines, child.readAllStandardError().constData());

        std::set<std::pair<std::string, std::string>> committed;
        // Only whole lines count: the kill may cut the last one ("C uid 20" of "C uid 2003").
        QList<QByteArray> lines = out.split('\n');
        lines.removeLast();
        for (const QByteArray &line : lines) {
            const auto parts = line.split(' ');
            if (parts.size() == 3 && parts[0] == "C")
                committed.emplace(parts[1].toStdString(), parts[2].toStdString());
        }
        auto store = HistoryStore::open(db.toStdString());
        QVERIFY2(store.ok(), store.ok() ? "" : store.error().describe().c_str());
        auto integrity = (*store)->checkIntegrity();
        QVERIFY2(integrity.ok(), integrity.ok() ? "" : integrity.error().describe().c_str());

        std::set<std::pair<std::string, std::string>> stored;
        // Results held in locals: a range-for over `f().value()` would iterate a destroyed temporary.
        const auto objects = (*store)->allObjects().value();
        for (const auto &o : objects) {
            const auto versions = (*store)->versions(o.id).value();
            for (const auto &v : versions)
                stored.emplace(v.uid, v.resourceVersion);
        }
        std::size_t missing = 0;
        std::string firstMissing;
        for (const auto &c : committed) {
            if (!stored.count(c) && missing++ == 0)
                firstMissing = c.first + " " + c.second;
        }
        QVERIFY2(missing == 0,
                 (std::to_string(missing) + " committed versions missing of " + std::to_string(committed.size())
                  + ", e.g. " + firstMissing + "; stored " + std::to_string(stored.size()))
                     .c_str());
        QVERIFY(committed.size() >= std::size_t(wantLines));
    }
};

int main(int argc, char **argv)
{
    if (argc == 4 && std::string(argv[1]) == "--crash-child") {
        QCoreApplication app(argc, argv);
        return runChild(argv[2], std::atoi(argv[3]));
    }
    QCoreApplication app(argc, argv);
    TestHistoryCrash test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_historycrash.moc"
