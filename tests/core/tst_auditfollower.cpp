// Following an audit log as the API server writes it (core/audit/auditfollower.h): appended
// lines, a line written in two pieces, rotation by rename (kube-apiserver, logrotate), by
// compression and by truncation, and a restart from a remembered position that neither repeats
// nor skips an event. The lines are the real events of tests/data/audit/rr-audit.log.
#include "auditfixtures.h"
#include "core/audit/auditfollower.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <zlib.h>

#include <fstream>
#include <set>

using namespace fieldscope::core;
using namespace auditfixtures;

namespace {

std::vector<std::string> sampleLines()
{
    std::vector<std::string> out;
    const std::string text = readAuditData("rr-audit.log");
    for (std::size_t start = 0; start < text.size();) {
        const std::size_t nl = text.find('\n', start);
        out.push_back(text.substr(start, nl - start));
        start = nl == std::string::npos ? text.size() : nl + 1;
    }
    return out;
}

void append(const std::string &path, const std::string &bytes)
{
    std::ofstream f(path, std::ios::app | std::ios::binary);
    f << bytes;
}

std::string lines(const std::vector<std::string> &all, std::size_t from, std::size_t to)
{
    std::string s;
    for (std::size_t i = from; i < to; ++i)
        s += all[i] + "\n";
    return s;
}

void gzipFile(const std::string &from, const std::string &to)
{
    std::ifstream in(from, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    gzFile out = gzopen(to.c_str(), "wb");
    gzwrite(out, text.data(), unsigned(text.size()));
    gzclose(out);
    std::remove(from.c_str());
}

// auditID + stage of every event read, in order.
struct Reader {
    std::vector<std::string> seen;
    void poll(AuditLogFollower &f)
    {
        AuditDecodeResult out;
        const Status st = f.poll(out);
        QVERIFY2(st.ok(), st.ok() ? "" : st.error().describe().c_str());
        QCOMPARE(out.skipped, std::int64_t(0));
        for (const auto &e : out.events)
            seen.push_back(e.auditID + "/" + e.stage);
    }
};

std::vector<std::string> idsOf(const std::vector<std::string> &all, std::size_t from, std::size_t to)
{
    std::vector<std::string> out;
    for (std::size_t i = from; i < to; ++i) {
        const auto e = decodeAuditEventText(all[i], "line").value();
        out.push_back(e.auditID + "/" + e.stage);
    }
    return out;
}

} // namespace

class TestAuditFollower : public QObject
{
    Q_OBJECT
    std::vector<std::string> m_lines = sampleLines();

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_lines.size() >= 12); }

    void appendedLinesAreReadOnceAndAHalfWrittenLineWaits()
    {
        QTemporaryDir dir;
        const std::string log = dir.filePath(QStringLiteral("audit.log")).toStdString();
        AuditLogFollower f(log);
        Reader r;
        r.poll(f); // no file yet: nothing, no error
        QVERIFY(r.seen.empty());
        append(log, lines(m_lines, 0, 3));
        r.poll(f);
        append(log, m_lines[3].substr(0, 40)); // the server is in the middle of a line
        r.poll(f);
        QCOMPARE(r.seen, idsOf(m_lines, 0, 3));
        append(log, m_lines[3].substr(40) + "\n" + lines(m_lines, 4, 5));
        r.poll(f);
        r.poll(f);
        QCOMPARE(r.seen, idsOf(m_lines, 0, 5));
    }

    void renamedLogIsReadToItsEndThenTheNewOne_data()
    {
        QTest::addColumn<QString>("rotatedName");
        QTest::newRow("kube-apiserver") << "audit-2026-11-25T14-05-10.000.log";
        QTest::newRow("logrotate") << "audit.log.1";
    }
    void renamedLogIsReadToItsEndThenTheNewOne()
    {
        QFETCH(QString, rotatedName);
        QTemporaryDir dir;
        const std::string log = dir.filePath(QStringLiteral("audit.log")).toStdString();
        append(log, lines(m_lines, 0, 3));
        AuditLogFollower f(log);
        Reader r;
        r.poll(f);
        append(log, lines(m_lines, 3, 5)); // written just before the rename: still to be read
        QVERIFY(QFile::rename(QString::fromStdString(log), dir.filePath(rotatedName)));
        append(log, lines(m_lines, 5, 8));
        r.poll(f);
        r.poll(f);
        QCOMPARE(r.seen, idsOf(m_lines, 0, 8));
    }

    void aTruncatedLogIsReadAgainFromItsStart()
    {
        QTemporaryDir dir;
        const std::string log = dir.filePath(QStringLiteral("audit.log")).toStdString();
        append(log, lines(m_lines, 0, 4));
        AuditLogFollower f(log);
        Reader r;
        r.poll(f);
        QVERIFY(QFile::resize(QString::fromStdString(log), 0)); // logrotate's copytruncate
        append(log, lines(m_lines, 4, 6));
        r.poll(f);
        QCOMPARE(r.seen, idsOf(m_lines, 0, 6));
    }

    // Stopped after line 4; meanwhile the server wrote on, rotated (and the rotated file was
    // compressed), rotated again, and wrote a new log. A restart reads exactly the lines it missed.
    void aRestartReadsWhatItMissedAcrossRotatedFilesAndNothingTwice_data()
    {
        QTest::addColumn<bool>("compress");
        QTest::newRow("plain rotated files") << false;
        QTest::newRow("compressed rotated files") << true;
    }
    void aRestartReadsWhatItMissedAcrossRotatedFilesAndNothingTwice()
    {
        QFETCH(bool, compress);
        QTemporaryDir dir;
        const std::string log = dir.filePath(QStringLiteral("audit.log")).toStdString();
        const std::string older = dir.filePath(QStringLiteral("audit-2026-11-25T14-00-00.000.log")).toStdString();
        append(older, lines(m_lines, 0, 1)); // rotated before the first run: never read again
        QTest::qWait(20);
        append(log, lines(m_lines, 1, 4));
        AuditLogFollower first(log);
        Reader r1;
        r1.poll(first);
        QCOMPARE(r1.seen, idsOf(m_lines, 1, 4)); // a first start reads the log, not what was rotated before
        const std::string saved = first.position().toText();

        append(log, lines(m_lines, 4, 6));
        const std::string rotated1 = dir.filePath(QStringLiteral("audit-2026-11-25T14-05-10.000.log")).toStdString();
        QVERIFY(QFile::rename(QString::fromStdString(log), QString::fromStdString(rotated1)));
        QTest::qWait(20); // distinct modification times order the rotated files
        append(log, lines(m_lines, 6, 8));
        const std::string rotated2 = dir.filePath(QStringLiteral("audit-2026-11-25T14-05-12.000.log")).toStdString();
        QVERIFY(QFile::rename(QString::fromStdString(log), QString::fromStdString(rotated2)));
        QTest::qWait(20);
        if (compress) {
            gzipFile(rotated1, rotated1 + ".gz");
            QTest::qWait(20);
            gzipFile(rotated2, rotated2 + ".gz");
        }
        QTest::qWait(20);
        append(log, lines(m_lines, 8, 10));

        AuditLogFollower second(log, AuditLogPosition::fromText(saved));
        Reader r2;
        r2.poll(second);
        QCOMPARE(r2.seen, idsOf(m_lines, 4, 10));
        QCOMPARE(second.rotatedFilesRead().size(), std::size_t(2));
        // And a plain restart in the same file: nothing again.
        AuditLogFollower third(log, second.position());
        Reader r3;
        r3.poll(third);
        QVERIFY(r3.seen.empty());
        append(log, lines(m_lines, 10, 11));
        r3.poll(third);
        QCOMPARE(r3.seen, idsOf(m_lines, 10, 11));
    }

    // A first start on a long log reads its newest 4 MiB from a line boundary, not its whole past.
    void aFirstStartReadsOnlyTheTailOfALongLog()
    {
        QTemporaryDir dir;
        const std::string log = dir.filePath(QStringLiteral("audit.log")).toStdString();
        std::string all;
        std::int64_t total = 0;
        while (all.size() < std::size_t(AuditLogFollower::kFirstStartTailBytes) + (2 << 20)) {
            all += lines(m_lines, 0, m_lines.size());
            total += std::int64_t(m_lines.size());
        }
        append(log, all);
        AuditLogFollower f(log);
        AuditDecodeResult out;
        QVERIFY(f.poll(out, std::int64_t(1) << 30).ok());
        QCOMPARE(out.skipped, std::int64_t(0)); // started on a line boundary
        QVERIFY(!out.events.empty());
        QVERIFY2(std::int64_t(out.events.size()) < total * 3 / 4, qPrintable(QString::number(out.events.size())));
        QCOMPARE(out.events.back().auditID, decodeAuditEventText(m_lines.back(), "line").value().auditID);
        // Its position is the end: a restart reads nothing again.
        AuditLogFollower again(log, f.position());
        Reader r;
        r.poll(again);
        QVERIFY(r.seen.empty());
    }

    void aMalformedRememberedPositionMeansNothingWasRead()
    {
        QCOMPARE(AuditLogPosition::fromText("garbage"), AuditLogPosition{});
        QCOMPARE(AuditLogPosition::fromText("0123456789abcdef -5"), AuditLogPosition{});
        const AuditLogPosition p{"0123456789abcdef", 42};
        QCOMPARE(AuditLogPosition::fromText(p.toText()), p);
    }
};

QTEST_GUILESS_MAIN(TestAuditFollower)
#include "tst_auditfollower.moc"
