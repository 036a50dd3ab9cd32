// `fieldscope store copy` with the real binary: a history that names no cluster is never merged
// into a store of whichever cluster TO happens to be.
#include "core/history/historystore.h"
#include "fieldscoperun.h"

#include <QTemporaryDir>
#include <QTest>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

// A history file stamped with `identity` ("" = unstamped, as files written before stamping).
bool makeStore(const QString &path, const std::string &identity)
{
    core::HistoryOpenOptions o;
    o.clusterIdentity = identity;
    o.clusterLabel = identity.empty() ? "" : "https://example:6443";
    return bool(core::HistoryStore::open(path.toStdString(), core::HistoryStore::OpenMode::ReadWrite, o));
}

} // namespace

class TestStoreCli : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // It used to be copied into TO, whoever's store TO was.
    void anUnstampedHistoryIsRefusedUnlessItsClusterIsNamed()
    {
        QTemporaryDir dir;
        const QString legacy = dir.filePath(QStringLiteral("legacy.db"));
        const QString other = dir.filePath(QStringLiteral("other.db"));
        QVERIFY(makeStore(legacy, ""));
        QVERIFY(makeStore(other, "sha256:" + std::string(64, 'b')));
        const FieldscopeRun refused = runFieldscope({QStringLiteral("store"), QStringLiteral("copy"), legacy, other},
                                                    dir.path());
        QCOMPARE(refused.code, 2);
        QVERIFY2(refused.err.contains("--cluster-identity"), refused.err.constData());

        // Named, but not TO's cluster: TO refuses it.
        const QString mine = QStringLiteral("sha256:") + QString(64, u'a');
        const FieldscopeRun wrong = runFieldscope({QStringLiteral("store"), QStringLiteral("copy"), legacy, other,
                                                   QStringLiteral("--cluster-identity"), mine},
                                                  dir.path());
        QCOMPARE(wrong.code, 1);

        // Named, into a new file: it becomes that cluster's.
        const QString fresh = dir.filePath(QStringLiteral("fresh.db"));
        const FieldscopeRun copied = runFieldscope({QStringLiteral("store"), QStringLiteral("copy"), legacy, fresh,
                                                    QStringLiteral("--cluster-identity"), mine, QStringLiteral("-o"),
                                                    QStringLiteral("json")},
                                                   dir.path());
        QCOMPARE(copied.code, 0);
        auto stamped = core::HistoryStore::open(fresh.toStdString(), core::HistoryStore::OpenMode::ReadOnly);
        QVERIFY(stamped);
        QCOMPARE(QString::fromStdString((*stamped)->clusterIdentity()), mine);
    }

    void aStampedHistoryGoesOnlyToItsOwnCluster()
    {
        QTemporaryDir dir;
        const QString from = dir.filePath(QStringLiteral("from.db"));
        QVERIFY(makeStore(from, "sha256:" + std::string(64, 'c')));
        const FieldscopeRun r = runFieldscope({QStringLiteral("store"), QStringLiteral("copy"), from,
                                               dir.filePath(QStringLiteral("to.db")),
                                               QStringLiteral("--cluster-identity"),
                                               QStringLiteral("sha256:") + QString(64, u'd')},
                                              dir.path());
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("is the history of cluster"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestStoreCli)
#include "tst_store_cli.moc"
