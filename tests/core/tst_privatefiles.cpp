// Files the app writes are the user's alone (core/base/privatefiles.h), also in a folder someone
// else can write to: what is planted there is never written through.
#include "core/base/privatefiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace fieldscope;

namespace {
QByteArray contentOf(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>");
}
} // namespace

class TestPrivateFiles : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void durableWriteReplacesTheFileWithMode0600()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("draft.json"));
        QVERIFY(core::writePrivateFileDurably(path.toStdString(), "first"));
        QVERIFY(core::writePrivateFileDurably(path.toStdString(), "second"));
        QCOMPARE(contentOf(path), QByteArray("second"));
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(path).constData(), &st), 0);
        QCOMPARE(int(st.st_mode & 0777), 0600);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("draft.json")});
    }

    // A FILE.tmp symlink planted in the folder used to be opened with O_TRUNC and written
    // through: the target was truncated and given our content.
    void durableWriteNeverWritesThroughAPlantedTemporary()
    {
        QTemporaryDir dir;
        const QString victim = dir.filePath(QStringLiteral("someone-elses-file"));
        QFile v(victim);
        QVERIFY(v.open(QIODevice::WriteOnly));
        v.write("keep me");
        v.close();
        const QString path = dir.filePath(QStringLiteral("kubeconfig"));
        QVERIFY(QFile::link(victim, path + QStringLiteral(".tmp")));
        QVERIFY(core::writePrivateFileDurably(path.toStdString(), "token: secret"));
        QCOMPARE(contentOf(victim), QByteArray("keep me"));
        QCOMPARE(contentOf(path), QByteArray("token: secret"));
        QVERIFY(QFileInfo(path).isFile() && !QFileInfo(path).isSymLink());
    }

    void durableWriteIntoAMissingFolderFailsAndLeavesNothing()
    {
        QTemporaryDir dir;
        const auto st = core::writePrivateFileDurably(dir.filePath(QStringLiteral("no/such/file")).toStdString(), "x");
        QVERIFY(!st);
        QVERIFY2(st.error().describe().find("no/such/file") != std::string::npos, st.error().describe().c_str());
        QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), QStringList{});
    }
};

QTEST_GUILESS_MAIN(TestPrivateFiles)
#include "tst_privatefiles.moc"
