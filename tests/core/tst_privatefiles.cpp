// Files the app writes are the user's alone (core/base/privatefiles.h), also in a folder someone
// else can write to: what is planted there is never written through.
#include "core/base/privatefiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace fieldscope;

namespace {
QByteArray contentOf(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>");
}

// Whether another process sees a lock on `path` (F_GETLK answers for locks other processes hold,
// so the question is asked from a child).
bool lockedForOthers(const QString &path)
{
    const QByteArray name = QFile::encodeName(path);
    const pid_t child = ::fork();
    if (child == 0) {
        const int fd = ::open(name.constData(), O_RDWR);
        struct flock probe {};
        probe.l_type = F_WRLCK;
        probe.l_whence = SEEK_SET;
        const bool locked = fd >= 0 && ::fcntl(fd, F_GETLK, &probe) == 0 && probe.l_type != F_UNLCK;
        ::_exit(locked ? 1 : 0);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 1;
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

    // POSIX drops every lock a process holds on a file when it closes any descriptor of it.
    // SQLite's locks on a history file (and its -shm) belong to the process, so opening the store a
    // second time used to let another process take the file for unused and rebuild the -shm under
    // a reader that had it mapped (a crash in sqlite3WalFindFrame).
    void restrictingAnExistingFileKeepsTheLocksThisProcessHolds()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("history.db-shm"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadWrite));
        f.write(QByteArray(4096, '\0'));
        f.flush();
        QVERIFY(f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup));
        struct flock shared {};
        shared.l_type = F_RDLCK;
        shared.l_whence = SEEK_SET;
        shared.l_start = 128;
        shared.l_len = 1;
        QCOMPARE(::fcntl(f.handle(), F_SETLK, &shared), 0);
        QVERIFY(lockedForOthers(path));
        QVERIFY(core::ensurePrivateFile(path.toStdString()));
        QVERIFY2(lockedForOthers(path), "ensurePrivateFile dropped this process's lock");
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(path).constData(), &st), 0);
        QCOMPARE(int(st.st_mode & 0777), 0600);
    }

    void aMissingFileIsCreated0600AndAFolderIsRefused()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("new.db"));
        QVERIFY(core::ensurePrivateFile(path.toStdString()));
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(path).constData(), &st), 0);
        QVERIFY(S_ISREG(st.st_mode));
        QCOMPARE(int(st.st_mode & 0777), 0600);
        QVERIFY(!core::ensurePrivateFile(dir.path().toStdString()));
    }

    // Group and other bits go; an owner's read-only file stays read-only; a link to nothing is
    // refused, with the reason, and nothing is created at its target.
    void anExistingFileLosesOnlyGroupAndOtherBitsAndALinkToNothingIsRefused()
    {
        QTemporaryDir dir;
        const QString readOnly = dir.filePath(QStringLiteral("archived.db"));
        QFile f(readOnly);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        QCOMPARE(::chmod(QFile::encodeName(readOnly).constData(), 0444), 0);
        QVERIFY(core::ensurePrivateFile(readOnly.toStdString()));
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(readOnly).constData(), &st), 0);
        QCOMPARE(int(st.st_mode & 0777), 0400);

        const QString target = dir.filePath(QStringLiteral("nowhere/history.db"));
        const QString link = dir.filePath(QStringLiteral("history.db"));
        QVERIFY(QFile::link(target, link));
        const auto refused = core::ensurePrivateFile(link.toStdString());
        QVERIFY(!refused);
        QVERIFY2(refused.error().describe().find("does not exist") != std::string::npos,
                 refused.error().describe().c_str());
        QVERIFY(!QFileInfo::exists(target));
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
