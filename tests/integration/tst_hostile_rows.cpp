// Rows someone else wrote into a team's store, written straight into a real PostgreSQL as a
// careless script or a hostile teammate would: a small zstd frame of 250 MiB of valid JSON, a
// raw size of 10^15, random bytes, a megabyte-long kind, a long escape-laden name, a gap whose versions are not
// numbers. `history`, `export`, `store copy` and the window (`--open URL`) each end with a clear
// message, read every sound object, and stay under 600 MB (the largest child's peak RSS).
#include "clusterenv.h"
#include "core/base/json.h"
#include "core/history/historyquery.h"
#include "core/history/historystore.h"
#include "testpostgres.h"

#include <QProcess>
#include <QTemporaryDir>

#include <sys/resource.h>
#include <zstd.h>

#include <random>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

constexpr long kMaxChildRssKiB = 600L * 1024;

// The peak resident size of the largest child this test has waited for, in KiB.
long largestChildRssKiB()
{
    rusage u{};
    getrusage(RUSAGE_CHILDREN, &u);
    return u.ru_maxrss;
}

// A zstd frame (the store's 'Z' tag first) of `bytes` of valid JSON: {"a":"xxxx..."}. Streamed with
// the size pledged, as a compressor writes it: the frame's header declares the size, the frame is
// a few KiB.
std::string bombFrame(std::size_t bytes)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setPledgedSrcSize(c, bytes);
    std::string out(1, 'Z');
    std::string chunk(1 << 20, 'x');
    std::string buffer(ZSTD_CStreamOutSize(), '\0');
    std::size_t fed = 0;
    auto feed = [&](std::string_view in, ZSTD_EndDirective mode) {
        ZSTD_inBuffer ib{in.data(), in.size(), 0};
        for (;;) {
            ZSTD_outBuffer ob{buffer.data(), buffer.size(), 0};
            const std::size_t left = ZSTD_compressStream2(c, &ob, &ib, mode);
            out.append(buffer.data(), ob.pos);
            if (mode == ZSTD_e_end ? left == 0 : ib.pos == ib.size)
                break;
        }
        fed += in.size();
    };
    feed("{\"a\":\"", ZSTD_e_continue);
    while (fed + chunk.size() + 2 < bytes)
        feed(chunk, ZSTD_e_continue);
    feed(std::string(bytes - fed - 2, 'x'), ZSTD_e_continue);
    feed("\"}", ZSTD_e_end);
    ZSTD_freeCCtx(c);
    return out;
}

std::string hex(std::string_view bytes)
{
    static const char *digits = "0123456789abcdef";
    std::string out = "\\x";
    for (unsigned char b : bytes) {
        out += digits[b >> 4];
        out += digits[b & 15];
    }
    return out;
}

std::string configMap(const std::string &name, const std::string &rv, const std::string &value)
{
    return core::toJsonText(core::Json{
        {"apiVersion", "v1"},
        {"kind", "ConfigMap"},
        {"metadata", {{"name", name}, {"namespace", "team"}, {"uid", "uid-" + name}, {"resourceVersion", rv}}},
        {"data", {{"v", value}}}});
}

} // namespace

class TestHostileRows : public QObject
{
    Q_OBJECT
    std::string m_db;
    QString m_url;
    QTemporaryDir m_dir;

    // Three versions of each object, written by the store's own writer; then rows are replaced.
    void recordSoundObjects()
    {
        auto store = core::HistoryStore::open(m_url.toStdString(), core::HistoryStore::OpenMode::ReadWrite);
        QVERIFY2(store, store ? "" : store.error().describe().c_str());
        const auto scope = core::WatchScope::of({"", "v1", "configmaps"}, "team");
        int rv = 100;
        for (const char *name : {"sound", "bomb", "huge-raw", "noise", "long-name", "delta-only", "huge-row"}) {
            core::HistoryWriteItem item;
            item.scope = scope;
            for (int i = 0; i < 3; ++i)
                item.events.push_back({i == 0 ? core::HistoryEventType::Added : core::HistoryEventType::Modified,
                                       configMap(name, std::to_string(++rv), std::to_string(i)), 1000 + rv});
            QVERIFY((*store)->write({item}));
        }
    }

    // The first store of a database lives in the schema fieldscope_c1 (docs/team-history.md).
    void sql(const std::string &statement)
    {
        testpostgres::run(m_db, "SET search_path TO fieldscope_c1; " + statement);
    }

    std::string objectId(const char *name)
    {
        return "(SELECT id FROM objects WHERE uid = 'uid-" + std::string(name) + "')";
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_url = QString::fromStdString(testpostgres::freshDatabase(QStringLiteral("hostile-rows")));
        m_db = "t_hostile_rows";
        recordSoundObjects();
        // The first row of "bomb": 250 MiB of JSON in a few KiB.
        sql("UPDATE versions SET data = '" + hex(bombFrame(std::size_t(250) << 20))
            + "'::bytea WHERE object_id = " + objectId("bomb") + " AND seq = 1");
        sql("UPDATE versions SET raw_size = 1000000000000000 WHERE object_id = " + objectId("huge-raw"));
        // No snapshot at all: every version a delta on nothing.
        sql("UPDATE versions SET snapshot = 0 WHERE object_id = " + objectId("delta-only"));
        // A 320 MiB row (its hex text on the wire is 640 MiB): never fetched, only its length read.
        sql("UPDATE versions SET data = '\\x52'::bytea || decode(repeat('78', 335544320), 'hex') WHERE object_id = "
            + objectId("huge-row") + " AND seq = 3");
        std::mt19937 random(7);
        std::string noise(4096, '\0');
        for (auto &c : noise)
            c = char(random());
        noise[0] = 'Z';
        sql("UPDATE versions SET data = '" + hex(noise) + "'::bytea WHERE object_id = " + objectId("noise")
            + " AND seq = 2");
        // A megabyte-long rich-text kind. The name is indexed, and PostgreSQL refuses an index row
        // over about 2.7 KB (after compression), so the longest name a writer can store is that.
        sql("UPDATE objects SET kind = repeat('<b>K</b>', 131072), name = repeat(E'\\033[31m<b>n</b>', 150) WHERE uid"
            " = 'uid-long-name'");
        sql("INSERT INTO gaps(id, scope, from_rv, to_rv, observed_ms, reason) SELECT 1000000, scope, 'not-a-number',"
            " '-', 5, 'a script' FROM versions LIMIT 1");
    }

    void historyOfAnObjectWithA250MiBFrameNamesItsUnreadableVersionAndReadsTheRest()
    {
        const auto h = runFieldscope({QStringLiteral("history"), QStringLiteral("configmaps/bomb"),
                                      QStringLiteral("-n"), QStringLiteral("team"), QStringLiteral("--db"), m_url,
                                      QStringLiteral("-o"), QStringLiteral("json")});
        QVERIFY2(h.exitCode == 0, h.err.constData());
        const core::Json versions = core::parseJson(h.out.toStdString()).value();
        QCOMPARE(versions.size(), std::size_t(3));
        QVERIFY2(versions[0].value("unreadable", std::string()).find("more than the limit") != std::string::npos,
                 h.out.constData());
        // The deltas after it build on it: unreadable too, each saying so.
        QVERIFY(versions[1].contains("unreadable"));
        QVERIFY(versions[2].contains("unreadable"));
        QVERIFY2(largestChildRssKiB() < kMaxChildRssKiB, QByteArray::number(qlonglong(largestChildRssKiB())));
    }

    void aRowLargerThanAnyReadableVersionIsNeverFetched()
    {
        const auto h = runFieldscope({QStringLiteral("history"), QStringLiteral("configmaps/huge-row"),
                                      QStringLiteral("-n"), QStringLiteral("team"), QStringLiteral("--db"), m_url,
                                      QStringLiteral("-o"), QStringLiteral("json")});
        QVERIFY2(h.exitCode == 0, h.err.constData());
        const core::Json versions = core::parseJson(h.out.toStdString()).value();
        QCOMPARE(versions.size(), std::size_t(3));
        QVERIFY(!versions[1].contains("unreadable"));
        QVERIFY2(versions[2].value("unreadable", std::string()).find("more than any version") != std::string::npos,
                 h.out.constData());
        QVERIFY2(largestChildRssKiB() < kMaxChildRssKiB, QByteArray::number(qlonglong(largestChildRssKiB())));
    }

    // An object whose rows someone else broke goes on being recorded (its next version a
    // snapshot) and pruned (its first kept version left a delta, listed as unreadable).
    void recordingAndRetentionGoOnPastAnUnreadableObject()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("broken-head"));
        const auto scope = core::WatchScope::of({"", "v1", "configmaps"}, "team");
        {
            auto store = core::HistoryStore::open(url, core::HistoryStore::OpenMode::ReadWrite).value();
            core::HistoryWriteItem item{scope, {}, {}, {}, {}};
            for (int i = 0; i < 3; ++i)
                item.events.push_back({core::HistoryEventType::Modified,
                                       configMap("head", std::to_string(10 + i), std::to_string(i)), 1000 + i});
            QVERIFY(store->write({item}));
        }
        testpostgres::run("t_broken_head", "UPDATE fieldscope_c1.versions SET data = '\\x5a0102'::bytea WHERE seq = 2");
        auto store = core::HistoryStore::open(url, core::HistoryStore::OpenMode::ReadWrite).value();
        core::HistoryWriteItem next{
            scope, {{core::HistoryEventType::Modified, configMap("head", "13", "3"), 1003}}, {}, {}, {}};
        auto written = store->write({next});
        QVERIFY2(written, written ? "" : written.error().describe().c_str());
        core::RetentionPolicy keepTwo;
        keepTwo.maxVersionsPerObject = 2;
        const auto pruned = store->applyRetention(keepTwo, 10'000);
        QVERIFY2(pruned, pruned ? "" : pruned.error().describe().c_str());
        const auto h = runFieldscope({QStringLiteral("history"), QStringLiteral("configmaps/head"),
                                      QStringLiteral("-n"), QStringLiteral("team"), QStringLiteral("--db"),
                                      QString::fromStdString(url), QStringLiteral("-o"), QStringLiteral("json")});
        QVERIFY2(h.exitCode == 0, h.err.constData());
        const core::Json versions = core::parseJson(h.out.toStdString()).value();
        QCOMPARE(versions.size(), std::size_t(2));
        QVERIFY(versions[0].contains("unreadable")); // seq 3, a delta on the broken seq 2
        QCOMPARE(versions[1].value("resourceVersion", std::string()), std::string("13"));
        QVERIFY(!versions[1].contains("unreadable"));
    }

    void randomBytesInOneVersionLeaveTheVersionsBeforeItReadable()
    {
        const auto h = runFieldscope({QStringLiteral("history"), QStringLiteral("configmaps/noise"),
                                      QStringLiteral("-n"), QStringLiteral("team"), QStringLiteral("--db"), m_url});
        QVERIFY2(h.exitCode == 0, h.err.constData());
        QVERIFY2(h.out.contains("unreadable: "), h.out.constData());
        QVERIFY2(h.out.contains("  110  ADDED"), h.out.constData());
    }

    void aMegabyteLongRichTextKindIsEscapedAndCutInTheText()
    {
        const QString name = QStringLiteral("\x1b[31m<b>n</b>").repeated(150);
        const auto h = runFieldscope({QStringLiteral("history"), QStringLiteral("configmaps/") + name,
                                      QStringLiteral("-n"), QStringLiteral("team"), QStringLiteral("--db"), m_url});
        QVERIFY2(h.exitCode == 0, h.err.constData());
        QVERIFY(!h.out.contains('\033')); // no terminal escape reaches the screen
        QVERIFY2(h.out.contains("bytes)"), h.out.left(2000).constData());
        QVERIFY(h.out.size() < 200000); // every name cut, not a megabyte per line
        QVERIFY(h.out.contains("not-a-number"));
        QVERIFY2(largestChildRssKiB() < kMaxChildRssKiB, QByteArray::number(qlonglong(largestChildRssKiB())));
    }

    void exportSkipsAndReportsUnreadableVersionsAndWritesEveryOtherOne()
    {
        const QString out = m_dir.filePath(QStringLiteral("team.jsonl"));
        const auto e = runFieldscope({QStringLiteral("export"), QStringLiteral("--db"), m_url, QStringLiteral("--to"),
                                      out});
        QVERIFY2(e.exitCode == 0, e.err.constData());
        // bomb's three (its snapshot and the two deltas on it), noise's last two, delta-only's three
        // and huge-row's last.
        QVERIFY2(e.err.contains("9 versions not exported: their stored rows cannot be read"), e.err.constData());
        QVERIFY2(e.err.contains("wrote 12 versions"), e.err.constData());
        QVERIFY2(largestChildRssKiB() < kMaxChildRssKiB, QByteArray::number(qlonglong(largestChildRssKiB())));
    }

    void storeCopySkipsAndReportsUnreadableVersions()
    {
        const QString file = m_dir.filePath(QStringLiteral("laptop.db"));
        const auto c = runFieldscope({QStringLiteral("store"), QStringLiteral("copy"), m_url, file,
                                      QStringLiteral("--cluster-identity"),
                                      QStringLiteral("sha256:") + QString(64, QLatin1Char('a')), QStringLiteral("-o"),
                                      QStringLiteral("json")});
        QVERIFY2(c.exitCode == 0, c.err.constData());
        const core::Json report = core::parseJson(c.out.toStdString()).value();
        QCOMPARE(report.value("unreadable", 0), 9);
        QCOMPARE(report.value("versions", 0), 12);
        QVERIFY2(largestChildRssKiB() < kMaxChildRssKiB, QByteArray::number(qlonglong(largestChildRssKiB())));
    }

    // 300,000 versions of one object (a million took history 2.4 GB before it listed the newest
    // only; 300,000 is past 600 MB that way and quick to write).
    void anObjectWithHundredsOfThousandsOfVersionsListsItsNewestWithinBounds()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("many-versions"));
        {
            auto store = core::HistoryStore::open(url, core::HistoryStore::OpenMode::ReadWrite);
            QVERIFY(store);
            core::HistoryWriteItem item;
            item.scope = core::WatchScope::of({"", "v1", "configmaps"}, "team");
            item.events.push_back({core::HistoryEventType::Added, configMap("many", "1", "0"), 1000});
            QVERIFY((*store)->write({item}));
        }
        testpostgres::run("t_many_versions",
                          "SET search_path TO fieldscope_c1; INSERT INTO versions(id, object_id, seq, rv, event,"
                          " observed_ms, scope, snapshot, raw_size, data) SELECT 1000 + g, o.id, 1 + g, (1 + g)::text,"
                          " 2, 1000 + g, v.scope, 1, 200, convert_to('R{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                          "\"metadata\":{\"name\":\"many\",\"namespace\":\"team\",\"uid\":\"uid-many\","
                          "\"resourceVersion\":\"' || (1 + g) || '\"},\"data\":{\"v\":\"' || g || '\"}}', 'UTF8')"
                          " FROM generate_series(1, 300000) g, objects o, versions v WHERE o.uid = 'uid-many' AND"
                          " v.object_id = o.id AND v.seq = 1;"
                          " UPDATE objects SET version_count = 300001, last_seq = 300001 WHERE uid = 'uid-many'");
        const auto h = runFieldscope({QStringLiteral("history"), QStringLiteral("configmaps/many"),
                                      QStringLiteral("-n"), QStringLiteral("team"), QStringLiteral("--db"),
                                      QString::fromStdString(url), QStringLiteral("-o"), QStringLiteral("json")});
        QVERIFY2(h.exitCode == 0, h.err.constData());
        QVERIFY2(h.err.contains("290001 older versions not listed"), h.err.constData());
        const core::Json versions = core::parseJson(h.out.toStdString()).value();
        QCOMPARE(versions.size(), std::size_t(core::kDefaultMaxListedVersions));
        QCOMPARE(versions.back().value("resourceVersion", std::string()), std::string("300001"));
        QVERIFY2(largestChildRssKiB() < kMaxChildRssKiB, QByteArray::number(qlonglong(largestChildRssKiB())));
        const QString out = m_dir.filePath(QStringLiteral("many.jsonl"));
        const auto e = runFieldscope({QStringLiteral("export"), QStringLiteral("--db"), QString::fromStdString(url),
                                      QStringLiteral("--to"), out},
                                     180000);
        QVERIFY2(e.exitCode == 0 && e.err.contains("wrote 300001 versions"), e.err.constData());
        QVERIFY2(largestChildRssKiB() < kMaxChildRssKiB, QByteArray::number(qlonglong(largestChildRssKiB())));
    }

    void theWindowOpensTheStoreAndSaysWhatItLeftOut()
    {
        const QString shot = m_dir.filePath(QStringLiteral("hostile-open.png"));
        const auto w = runFieldscope({QStringLiteral("--open"), m_url, QStringLiteral("--screenshot"), shot,
                                      QStringLiteral("--size"), QStringLiteral("1000x700"),
                                      QStringLiteral("--screenshot-timeout"), QStringLiteral("60")},
                                     120000);
        QVERIFY2(w.exitCode == 0, w.err.constData());
        QVERIFY(QFile::exists(shot));
        QVERIFY2(largestChildRssKiB() < kMaxChildRssKiB, QByteArray::number(qlonglong(largestChildRssKiB())));
    }
};

QTEST_GUILESS_MAIN(TestHostileRows)
#include "tst_hostile_rows.moc"
