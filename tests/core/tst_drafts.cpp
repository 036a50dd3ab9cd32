// DraftStore (core/edit/drafts.h): the editor's unsent text on disk survives a restart, exactly; an
// object without a draft has none; a removed draft is gone; a damaged file is an error, not a
// crash, and stays; names a kubeconfig or server chose cannot leave the drafts folder.
#include "core/edit/drafts.h"

#include <QTemporaryDir>
#include <QTest>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

using namespace fieldscope::core;

class TestDrafts : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    std::string dir() const { return m_dir.path().toStdString(); }
    // The file a damaged draft at `path` was moved to ("" if none).
    static std::string asideOf(const std::string &path)
    {
        const std::filesystem::path p(path);
        for (const auto &e : std::filesystem::directory_iterator(p.parent_path()))
            if (e.path().filename().string().rfind(p.filename().string() + ".damaged-", 0) == 0)
                return e.path().string();
        return {};
    }

private Q_SLOTS:
    void aSavedDraftLoadsBackExactly()
    {
        DraftStore store(dir());
        const EditDraft d{"kind-dev",
                          "0f1e-uid",
                          "ConfigMap demo/settings",
                          "data:\n  foo: \"1\"\n",
                          "4711",
                          "data:\n  foo: \"2\"  # ünïcode\n",
                          1'784'000'000'123};
        QVERIFY(store.save(d).ok());
        auto loaded = store.load("kind-dev", "0f1e-uid");
        QVERIFY(loaded.ok());
        QVERIFY(loaded->has_value());
        const EditDraft &l = **loaded;
        QCOMPARE(l.title, d.title);
        QCOMPARE(l.openedYaml, d.openedYaml);
        QCOMPARE(l.openedResourceVersion, d.openedResourceVersion);
        QCOMPARE(l.text, d.text);
        QCOMPARE(l.savedAtMs, d.savedAtMs);
        // A second save replaces the first.
        EditDraft newer = d;
        newer.text = "data:\n  foo: \"3\"\n";
        QVERIFY(store.save(newer).ok());
        QCOMPARE((*store.load("kind-dev", "0f1e-uid"))->text, newer.text);
    }

    void anObjectWithoutADraftHasNone()
    {
        DraftStore store(dir());
        auto none = store.load("kind-dev", "never-edited");
        QVERIFY(none.ok());
        QVERIFY(!none->has_value());
    }

    void aRemovedDraftIsGone()
    {
        DraftStore store(dir());
        QVERIFY(store.save({"ctx", "u1", "t", "a: 1\n", "1", "a: 2\n", 1}).ok());
        QVERIFY(store.remove("ctx", "u1").ok());
        QVERIFY(!store.load("ctx", "u1")->has_value());
        QVERIFY(store.remove("ctx", "u1").ok()); // removing nothing is fine
    }

    // A damaged draft is kept (moved aside, named in the error), not deleted
    // and not in the way of the next save.
    void aDamagedDraftIsMovedAsideAndReported()
    {
        DraftStore store(dir());
        const std::string path = store.pathFor("ctx", "broken");
        std::filesystem::create_directories(std::filesystem::path(path).parent_path());
        std::ofstream(path) << "{\"text\": \"half a fi";
        auto r = store.load("ctx", "broken");
        QVERIFY(!r.ok());
        QCOMPARE(r.error().category, ErrorCategory::Parse);
        QVERIFY(!std::filesystem::exists(path));
        const std::string aside = asideOf(path);
        QVERIFY2(!aside.empty(), r.error().message.c_str());
        QVERIFY2(r.error().message.find(aside) != std::string::npos, r.error().message.c_str());
        std::ifstream in(aside);
        std::string kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        QCOMPARE(kept, std::string("{\"text\": \"half a fi"));
        QVERIFY(store.save({"ctx", "broken", "t", "a: 1\n", "1", "a: 2\n", 1}).ok());
        QCOMPARE((*store.load("ctx", "broken"))->text, std::string("a: 2\n"));
    }

    void aWronglyTypedDraftIsMovedAsideNamingTheMember_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("where");
        QTest::newRow("text is a number") << QByteArray(R"({"uid":"w","text":42})") << QStringLiteral("text");
        QTest::newRow("uid is an object") << QByteArray(R"({"uid":{"a":1},"text":"x"})") << QStringLiteral("uid");
        QTest::newRow("savedAtMs is a string")
            << QByteArray(R"({"uid":"w","text":"x","savedAtMs":"1"})") << QStringLiteral("savedAtMs");
        QTest::newRow("an array") << QByteArray(R"([1,2])") << QStringLiteral("$");
    }
    void aWronglyTypedDraftIsMovedAsideNamingTheMember()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, where);
        auto parsed = parseDraft(bytes.toStdString());
        QVERIFY(!parsed.ok());
        QCOMPARE(parsed.error().category, ErrorCategory::Parse);
        QCOMPARE(QString::fromStdString(parsed.error().where), where);
        DraftStore store(dir());
        const std::string path = store.pathFor("typed", "w");
        std::filesystem::create_directories(std::filesystem::path(path).parent_path());
        std::ofstream(path) << bytes.toStdString();
        auto r = store.load("typed", "w");
        QVERIFY(!r.ok());
        QVERIFY(!std::filesystem::exists(path));
        QVERIFY(!asideOf(path).empty());
        std::filesystem::remove(asideOf(path));
    }

    // Drafts are 0600 in 0700 folders whatever the umask.
    void draftsArePrivateWhateverTheUmask_data()
    {
        QTest::addColumn<int>("mask");
        QTest::newRow("022") << 022;
        QTest::newRow("000") << 0;
    }
    void draftsArePrivateWhateverTheUmask()
    {
        QFETCH(int, mask);
        QTemporaryDir root;
        const std::string drafts = root.path().toStdString() + "/data/drafts";
        const mode_t old = ::umask(mode_t(mask));
        DraftStore store(drafts);
        const bool saved = store.save({"ctx", "u", "t", "a: 1\n", "1", "a: 2\n", 1}).ok();
        ::umask(old);
        QVERIFY(saved);
        namespace fs = std::filesystem;
        const auto modeOf = [](const std::string &p) { return int(fs::status(p).permissions() & fs::perms::all); };
        QCOMPARE(modeOf(store.pathFor("ctx", "u")), 0600);
        QCOMPARE(modeOf(fs::path(store.pathFor("ctx", "u")).parent_path().string()), 0700);
        QCOMPARE(modeOf(drafts), 0700);
        QCOMPARE(modeOf(root.path().toStdString() + "/data"), 0700); // created by the app: private too
        // No temporary is left next to it.
        int files = 0;
        for ([[maybe_unused]] const auto &e : fs::directory_iterator(fs::path(store.pathFor("ctx", "u")).parent_path()))
            ++files;
        QCOMPARE(files, 1);
    }

    // A draft that cannot be written is an error (the editor shows it), not a silent loss.
    void aDraftThatCannotBeSavedIsAnError()
    {
        QTemporaryDir root;
        const std::string drafts = root.path().toStdString() + "/drafts";
        DraftStore store(drafts);
        QVERIFY(store.save({"ctx", "u", "t", "", "1", "a", 1}).ok());
        // The new text cannot be written: a file size limit stops the write (for root too; a
        // planted FILE.tmp no longer does, the temporary's name is a fresh one).
        const auto previousHandler = std::signal(SIGXFSZ, SIG_IGN);
        rlimit before{};
        QCOMPARE(::getrlimit(RLIMIT_FSIZE, &before), 0);
        rlimit tiny = before;
        tiny.rlim_cur = 4;
        QCOMPARE(::setrlimit(RLIMIT_FSIZE, &tiny), 0);
        auto st = store.save({"ctx", "u", "t", "", "1", "b", 2});
        QCOMPARE(::setrlimit(RLIMIT_FSIZE, &before), 0);
        std::signal(SIGXFSZ, previousHandler);
        QVERIFY(!st.ok());
        QCOMPARE(st.error().category, ErrorCategory::Io);
        QCOMPARE((*store.load("ctx", "u"))->text, std::string("a")); // the previous draft is intact
    }

    void namesCannotLeaveTheDraftsFolder()
    {
        DraftStore store(dir());
        const std::string path = store.pathFor("../../etc", "../passwd");
        QVERIFY2(path.rfind(dir() + "/", 0) == 0 && path.find("/../") == std::string::npos, path.c_str());
        const std::string dots = store.pathFor("..", "..");
        QVERIFY2(dots.rfind(dir() + "/", 0) == 0 && dots.find("/../") == std::string::npos
                     && dots.find("/..") == std::string::npos,
                 dots.c_str());
        QVERIFY(store.save({"../../etc", "../passwd", "t", "", "1", "x", 1}).ok());
        QVERIFY(store.load("../../etc", "../passwd")->has_value());
    }
};

QTEST_GUILESS_MAIN(TestDrafts)
#include "tst_drafts.moc"
