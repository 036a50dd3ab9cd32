// DraftStore (core/drafts.h): the editor's unsent text on disk survives a restart, exactly; an
// object without a draft has none; a removed draft is gone; a damaged file is an error, not a
// crash, and stays; names a kubeconfig or server chose cannot leave the drafts folder.
#include "core/drafts.h"

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>

using namespace fieldscope::core;

class TestDrafts : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    std::string dir() const { return m_dir.path().toStdString(); }

private Q_SLOTS:
    void aSavedDraftLoadsBackExactly()
    {
        DraftStore store(dir());
        const EditDraft d{"kind-dev", "0f1e-uid", "ConfigMap demo/settings", "data:\n  foo: \"1\"\n", "4711",
                          "data:\n  foo: \"2\"  # ünïcode\n", 1'784'000'000'123};
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

    void aDamagedDraftIsAnErrorAndStays()
    {
        DraftStore store(dir());
        const std::string path = store.pathFor("ctx", "broken");
        std::filesystem::create_directories(std::filesystem::path(path).parent_path());
        std::ofstream(path) << "{\"text\": \"half a fi";
        auto r = store.load("ctx", "broken");
        QVERIFY(!r.ok());
        QCOMPARE(r.error().category, ErrorCategory::Parse);
        QVERIFY(std::filesystem::exists(path));
    }

    void namesCannotLeaveTheDraftsFolder()
    {
        DraftStore store(dir());
        const std::string path = store.pathFor("../../etc", "../passwd");
        QVERIFY2(path.rfind(dir() + "/", 0) == 0 && path.find("/../") == std::string::npos, path.c_str());
        const std::string dots = store.pathFor("..", "..");
        QVERIFY2(dots.rfind(dir() + "/", 0) == 0 && dots.find("/../") == std::string::npos && dots.find("/..") == std::string::npos, dots.c_str());
        QVERIFY(store.save({"../../etc", "../passwd", "t", "", "1", "x", 1}).ok());
        QVERIFY(store.load("../../etc", "../passwd")->has_value());
    }
};

QTEST_GUILESS_MAIN(TestDrafts)
#include "tst_drafts.moc"
