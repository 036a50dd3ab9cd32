// Discovery between runs and before it ends: the cache file (used while young, resumed when a run
// was cut short, revalidated by ETag when aggregated, ignored when it is not ours or not sane),
// and names decided as soon as no group still to answer could change them, against a real
// socket (TranscriptServer) and the real Transport.
#include "core/base/json.h"
#include "kube/discovery.h"
#include "kube/discoverycache.h"
#include "transcriptserver.h"

#include <QDateTime>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

std::string groupEntry(const std::string &g)
{
    return R"({"name":")" + g + R"(","versions":[{"groupVersion":")" + g
         + R"(/v1","version":"v1"}],"preferredVersion":{"groupVersion":")" + g + R"(/v1","version":"v1"}})";
}
std::string groupList(int groups, const std::string &prefix = "g")
{
    std::string out = R"({"kind":"APIGroupList","groups":[)";
    for (int i = 0; i < groups; ++i)
        out += std::string(i ? "," : "") + groupEntry(prefix + std::to_string(i) + ".example.com");
    return out + "]}";
}
std::string resourceList(const std::string &name, const std::string &kind)
{
    return R"({"kind":"APIResourceList","resources":[{"name":")" + name
         + R"(","singularName":"x","namespaced":true,"kind":")" + kind + R"(","verbs":["get","list","watch"]}]})";
}
const char *kCoreV1 = R"({"kind":"APIResourceList","groupVersion":"v1","resources":[
  {"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list","watch"],"shortNames":["cm"]},
  {"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["get","list","watch"],"shortNames":["po"]},
  {"name":"pods/status","singularName":"","namespaced":true,"kind":"Pod","verbs":["get"]}]})";

TranscriptReply slow(std::string body, int ms)
{
    TranscriptReply r;
    r.chunked = true;
    r.headers.emplace_back("Content-Type", "application/json");
    r.pieces.push_back({ms, std::move(body)});
    return r;
}

// A legacy server with `groups` groups g0..gN.example.com, each serving "widgets" after `groupMs`.
void serveLegacy(TranscriptServer &server, int groups, int groupMs)
{
    server.on("/version").exactPath().reply(TranscriptReply::json(200, R"({"gitVersion":"v1.20.2"})")).repeatLast();
    server.on("/api")
        .exactPath()
        .reply(TranscriptReply::json(200, R"({"kind":"APIVersions","versions":["v1"]})"))
        .repeatLast();
    server.on("/api/v1").exactPath().reply(TranscriptReply::json(200, kCoreV1)).repeatLast();
    server.on("/apis").exactPath().reply(TranscriptReply::json(200, groupList(groups))).repeatLast();
    server.on("/apis/").reply(slow(resourceList("widgets", "Widget"), groupMs)).repeatLast();
}

struct Client {
    kube::ApiClient client;
    kube::Discovery discovery;

    Client(const TranscriptServer &s, const QString &cacheFile) : client(transport(s)), discovery(&client)
    {
        kube::DiscoveryCacheUse use;
        use.path = cacheFile.toStdString();
        use.server = s.url();
        use.blockingIo = true;
        discovery.setCache(use);
    }
    static std::shared_ptr<kube::Transport> transport(const TranscriptServer &s)
    {
        kube::TransportConfig config;
        config.server = s.url();
        config.qps = 0;
        return std::make_shared<kube::Transport>(config);
    }
    // Runs until `word` is decided (or discovery ends); the decision, copied.
    std::optional<kube::ResourceInfo> decideWhenKnown(const std::string &word)
    {
        for (int turns = 0; turns < 2000; ++turns) {
            if (auto d = discovery.decide(word))
                return *d ? std::optional(**d) : std::nullopt;
            QSignalSpy progressed(&discovery, &kube::Discovery::progressed);
            progressed.wait(50);
        }
        return std::nullopt;
    }
    bool finish()
    {
        if (!discovery.isRunning())
            return discovery.hasSnapshot();
        QSignalSpy finished(&discovery, &kube::Discovery::finished);
        return finished.wait(30'000);
    }
};

int countExact(const TranscriptServer &s, const std::string &path)
{
    return s.count([&](const RecordedRequest &r) { return r.path == path; });
}

kube::DiscoveryProgress progressOf(std::vector<kube::DiscoverySource> sources, bool known)
{
    kube::DiscoveryProgress p;
    p.sources = std::move(sources);
    p.sourcesKnown = known;
    return p;
}
kube::DiscoverySource source(const std::string &gv, bool preferred, kube::DiscoverySource::State state,
                             const std::vector<std::string> &resources = {})
{
    kube::DiscoverySource s;
    s.groupVersion = gv;
    const auto slash = gv.find('/');
    s.group = slash == std::string::npos ? "" : gv.substr(0, slash);
    s.preferred = preferred;
    s.state = state;
    for (const auto &name : resources) {
        kube::ResourceInfo r;
        r.group = s.group;
        r.version = slash == std::string::npos ? gv : gv.substr(slash + 1);
        r.resource = name;
        r.preferred = preferred;
        s.resources.push_back(r);
    }
    return s;
}

void writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

// An ETag that, sent back as If-None-Match, would end the header line and add another.
std::string headerInjection()
{
    return std::string(1, '"') + "x" + std::string(1, '"') + std::string(1, char(13)) + std::string(1, char(10))
         + "Impersonate-User: admin";
}

// Cache files that must not be used (outside the test class: moc miscounts braces inside raw strings).
std::vector<std::pair<const char *, QByteArray>> insaneCacheFiles()
{
    std::vector<std::pair<const char *, QByteArray>> out;
    out.emplace_back("not JSON", QByteArray("{\"fieldscopeDiscoveryCache\":1,"));
    out.emplace_back("another format", QByteArray(R"({"fieldscopeDiscoveryCache":99})"));
    out.emplace_back(
        "a resource name that climbs the path",
        QByteArray(R"({"fieldscopeDiscoveryCache":1,"server":"SERVER","savedAtMs":NOW,"sourcesKnown":true,)"
                   R"("sources":[{"groupVersion":"v1","group":"","preferred":true,"state":"answered",)"
                   R"("resources":[{"group":"","version":"v1","resource":"..","verbs":["list"]}]}]})"));
    out.emplace_back(
        "a group version with a slash too many",
        QByteArray(R"({"fieldscopeDiscoveryCache":1,"server":"SERVER","savedAtMs":NOW,"sourcesKnown":true,)"
                   R"("sources":[{"groupVersion":"v1","group":"","preferred":true,"state":"answered","resources":[]},)"
                   R"({"groupVersion":"a/../b","group":"a","state":"pending"}]})"));
    out.emplace_back(
        "a resource of another group than its source",
        QByteArray(R"({"fieldscopeDiscoveryCache":1,"server":"SERVER","savedAtMs":NOW,"sourcesKnown":true,)"
                   R"("sources":[{"groupVersion":"v1","group":"","state":"answered",)"
                   R"("resources":[{"group":"evil","version":"v1","resource":"secrets"}]}]})"));
    out.emplace_back(
        "verbs of the wrong type",
        QByteArray(R"({"fieldscopeDiscoveryCache":1,"server":"SERVER","savedAtMs":NOW,"sourcesKnown":true,)"
                   R"("sources":[{"groupVersion":"v1","group":"","state":"answered",)"
                   R"("resources":[{"group":"","version":"v1","resource":"pods","verbs":"list"}]}]})"));
    out.emplace_back(
        "an unknown state",
        QByteArray(R"({"fieldscopeDiscoveryCache":1,"server":"SERVER","savedAtMs":NOW,"sourcesKnown":true,)"
                   R"("sources":[{"groupVersion":"v1","group":"","state":"maybe"}]})"));
    out.emplace_back(
        "another server's file",
        QByteArray(R"({"fieldscopeDiscoveryCache":1,"server":"http://127.0.0.1:1","savedAtMs":NOW,)"
                   R"("sourcesKnown":true,"sources":[{"groupVersion":"v1","group":"","state":"answered",)"
                   R"("resources":[{"group":"","version":"v1","resource":"gadgets","verbs":["list"]}]}]})"));
    // Sound files but for one thing each:
    const QByteArray sound = R"({"fieldscopeDiscoveryCache":1,"server":"SERVER","savedAtMs":NOW,"sourcesKnown":true,)"
                             R"("sources":[{"groupVersion":"v1","group":"","state":"answered",)"
                             R"("resources":[{"group":"","version":"v1","resource":"gadgets","verbs":["list"]}]}])";
    out.emplace_back("nested beyond any cache", sound + R"(,"x":)" + QByteArray(40, '[') + QByteArray(40, ']') + "}");
    out.emplace_back("larger than a cache can be",
                     sound + R"(,"pad":")" + QByteArray(int(kube::kMaxDiscoveryCacheBytes), 'x') + "\"}");
    out.emplace_back(
        "an ETag that would add a header",
        QByteArray(R"({"fieldscopeDiscoveryCache":1,"server":"SERVER","savedAtMs":NOW,"sourcesKnown":true,)"
                   R"("sources":[{"groupVersion":"v1","group":"","state":"answered","etag":)"
                   + QByteArray::fromStdString(core::toJsonText(core::Json(headerInjection())))
                   + R"(,"resources":[{"group":"","version":"v1","resource":"gadgets","verbs":["list"]}]}]})"));
    out.emplace_back("a time before the epoch", QByteArray(sound).replace("NOW", "-9223372036854775807") + "}");
    return out;
}

} // namespace

class TestDiscoveryCache : public QObject
{
    Q_OBJECT
    using State = kube::DiscoverySource::State;

private Q_SLOTS:
    void aCoreNameIsDecidedBeforeAnyOtherGroupIsListed()
    {
        const auto p = progressOf({source("v1", true, State::Answered, {"configmaps"})}, false);
        const auto d = p.decide(kube::ResourceQuery("configmaps"), true);
        QVERIFY(d.has_value());
        QVERIFY(*d);
        QCOMPARE(QString::fromStdString((*d)->resource), QStringLiteral("configmaps"));
        // A name the core group lacks may be in a group not listed yet.
        QVERIFY(!p.decide(kube::ResourceQuery("widgets"), true).has_value());
    }

    void aGroupNameWaitsOnlyForEarlierGroupsThatCouldHoldIt()
    {
        const auto p = progressOf({source("v1", true, State::Answered, {"configmaps"}),
                                   source("a.example.com/v1", true, State::Pending),
                                   source("b.example.com/v1", true, State::Answered, {"widgets"}),
                                   source("c.example.com/v1", true, State::Pending)},
                                  true);
        // a.example.com comes first and could serve widgets too: it wins a tie, so wait for it.
        QVERIFY(!p.decide(kube::ResourceQuery("widgets"), true).has_value());
        // Qualified with b's group, a and c cannot hold it.
        const auto qualified = p.decide(kube::ResourceQuery("widgets.b.example.com"), true);
        QVERIFY(qualified.has_value() && *qualified);
        // Once a answered without it, c (later, same rank) cannot change the answer.
        auto answered = p;
        answered.sources[1].state = State::Answered;
        const auto d = answered.decide(kube::ResourceQuery("widgets"), true);
        QVERIFY(d.has_value() && *d);
        QCOMPARE(QString::fromStdString((*d)->group), QStringLiteral("b.example.com"));
    }

    void aPreferredVersionStillToAnswerOutranksAnAnsweredOtherVersion()
    {
        const auto p = progressOf({source("v1", true, State::Answered),
                                   source("a.example.com/v1", true, State::Pending),
                                   source("a.example.com/v1beta1", false, State::Answered, {"widgets"})},
                                  true);
        QVERIFY(!p.decide(kube::ResourceQuery("widgets"), true).has_value());
        // Nothing more will come (the run ended): decide on what is here.
        const auto d = p.decide(kube::ResourceQuery("widgets"), false);
        QVERIFY(d.has_value() && *d);
        QCOMPARE(QString::fromStdString((*d)->version), QStringLiteral("v1beta1"));
    }

    void anUnknownNameIsDecidedAbsentOnlyWhenNothingIsPending()
    {
        auto p = progressOf({source("v1", true, State::Answered, {"configmaps"}),
                             source("a.example.com/v1", true, State::Failed)},
                            false);
        QVERIFY(!p.decide(kube::ResourceQuery("gadgets"), true).has_value());
        p.sourcesKnown = true;
        const auto d = p.decide(kube::ResourceQuery("gadgets"), true);
        QVERIFY(d.has_value());
        QVERIFY(!*d);
    }

    void legacyRunIsCachedAndTheNextRunAsksTheServerNothing()
    {
        TranscriptServer server;
        serveLegacy(server, 3, 0);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("cache/c.json"));
        {
            Client first(server, file);
            first.discovery.refresh();
            QVERIFY(first.finish());
            QVERIFY(!first.discovery.fromCache());
            QCOMPARE(int(first.discovery.snapshot().resources.size()), 2 + 3);
        }
        const int before = int(server.requests().size());
        Client second(server, file);
        second.discovery.refresh();
        QVERIFY(second.finish());
        QVERIFY(second.discovery.fromCache());
        QCOMPARE(int(server.requests().size()), before);
        const auto &snap = second.discovery.snapshot();
        QCOMPARE(int(snap.resources.size()), 5);
        QCOMPARE(QString::fromStdString(snap.serverVersion), QStringLiteral("v1.20.2"));
        QVERIFY(snap.resolve("po"));
        QCOMPARE(QString::fromStdString(snap.resolve("po")->subresources.at(0)), QStringLiteral("status"));
        QVERIFY(snap.resolve("widgets.g2.example.com"));
        // Written for the user alone.
        struct stat st {};
        QCOMPARE(::stat(file.toLocal8Bit().constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0600u);
        QCOMPARE(::stat(dir.filePath(QStringLiteral("cache")).toLocal8Bit().constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0700u);
    }

    void aRunCutShortIsResumedAskingOnlyTheGroupsItHadNotHeard()
    {
        TranscriptServer server;
        constexpr int kGroups = 100;
        serveLegacy(server, kGroups, 150);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("c.json"));
        std::size_t heard = 0;
        {
            Client first(server, file);
            first.discovery.refresh();
            const auto cm = first.decideWhenKnown("configmaps");
            QVERIFY(cm);
            QVERIFY(first.discovery.isRunning()); // decided while 100 groups were still to answer
            auto answered = [&] {
                heard = 0;
                for (const auto &s : first.discovery.progress().sources)
                    heard += s.state == State::Answered ? 1 : 0;
                return heard >= 2; // the core group and at least one other
            };
            QTRY_VERIFY_WITH_TIMEOUT(answered(), 10'000);
            first.discovery.saveProgress(); // what the command line does before it exits
        }
        QVERIFY(heard >= 2 && heard < kGroups);
        const int listsBefore = countExact(server, "/apis");
        const int coreBefore = countExact(server, "/api/v1");
        Client second(server, file);
        second.discovery.refresh();
        // Decided from the file at once: no event loop turn, no request.
        const auto cm = second.discovery.decide("cm");
        QVERIFY(cm.has_value() && *cm);
        QVERIFY(second.discovery.fromCache());
        QVERIFY(second.finish());
        QCOMPARE(countExact(server, "/apis"), listsBefore);
        QCOMPARE(countExact(server, "/api/v1"), coreBefore);
        QCOMPARE(int(second.discovery.snapshot().resources.size()), 2 + kGroups);
        // Each group was asked once in all, the second run only the ones the first had not heard
        // (plus at most the 8 the first had in flight when it stopped, whose answers it lost).
        const int groupRequests = int(server.requests("/apis/").size());
        QVERIFY2(groupRequests <= kGroups + kube::kMaxConcurrentDiscoveryRequests,
                 qPrintable(QString::number(groupRequests)));
    }

    void aRunThatEndedBeforeTheGroupListAnsweredIsResumedFromTheCoreGroup()
    {
        TranscriptServer server;
        server.on("/apis").exactPath().reply(slow(groupList(3), 2'000)); // the first run's, cut off
        serveLegacy(server, 3, 0);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("c.json"));
        {
            Client first(server, file);
            first.discovery.refresh();
            QVERIFY(first.decideWhenKnown("configmaps"));
            QVERIFY(!first.discovery.progress().sourcesKnown);
            first.discovery.saveProgress();
        }
        Client second(server, file);
        second.discovery.refresh();
        const auto cm = second.discovery.decide("cm"); // from the file, before any answer
        QVERIFY(cm.has_value() && *cm);
        QVERIFY(second.finish());
        QCOMPARE(countExact(server, "/api/v1"), 1);
        QCOMPARE(int(second.discovery.snapshot().resources.size()), 2 + 3);
    }

    void aCacheOlderThanItsAgeIsAskedAgain()
    {
        TranscriptServer server;
        serveLegacy(server, 1, 0);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("c.json"));
        {
            Client first(server, file);
            first.discovery.refresh();
            QVERIFY(first.finish());
        }
        auto cached = kube::loadDiscoveryCache(file.toStdString());
        QVERIFY(cached.ok());
        cached->savedAtMs = QDateTime::currentMSecsSinceEpoch() - 7LL * 3600 * 1000;
        QVERIFY(kube::saveDiscoveryCache(file.toStdString(), *cached).ok());
        const int before = countExact(server, "/api/v1");
        Client second(server, file);
        second.discovery.refresh();
        QVERIFY(second.finish());
        QVERIFY(!second.discovery.fromCache());
        QCOMPARE(countExact(server, "/api/v1"), before + 1);
    }

    void aggregatedCacheIsRevalidatedWithItsEtagByTheNextProcess()
    {
        TranscriptServer server;
        server.on("/version").exactPath().replyFile(QStringLiteral("discovery/version-1.37.http")).repeatLast();
        auto noEtag = [](const RecordedRequest &r) { return !r.header("If-None-Match"); };
        server.on("/api").exactPath().where(noEtag).replyFile(QStringLiteral("discovery/aggregated-1.37-api.http"));
        server.on("/apis").exactPath().where(noEtag).replyFile(QStringLiteral("discovery/aggregated-1.37-apis.http"));
        server.on("/api").exactPath().replyFile(QStringLiteral("discovery/aggregated-1.37-api-304.http"));
        server.on("/apis").exactPath().replyFile(QStringLiteral("discovery/aggregated-1.37-apis-304.http"));
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("c.json"));
        std::size_t first = 0;
        {
            Client c(server, file);
            c.discovery.refresh();
            QVERIFY(c.finish());
            first = c.discovery.snapshot().resources.size();
        }
        Client c(server, file); // a new process: only the file remembers the ETags
        c.discovery.refresh();
        QVERIFY(c.finish());
        QCOMPARE(c.discovery.snapshot().resources.size(), first);
        QVERIFY(c.discovery.snapshot().aggregated);
        const auto asked = server.requests("/api");
        QCOMPARE(int(asked.size()), 4);
        QVERIFY(asked[2].header("If-None-Match").has_value());
        QVERIFY(asked[3].header("If-None-Match").has_value());
        QCOMPARE(c.discovery.documentRequests(), 2);
        QCOMPARE(c.discovery.notModifiedAnswers(), 2); // both documents were current
        QVERIFY(server.unmatched().empty());
    }

    void aCacheFileThatIsNotSaneIsIgnoredAndRewritten_data()
    {
        QTest::addColumn<QByteArray>("content");
        for (const auto &[name, content] : insaneCacheFiles())
            QTest::newRow(name) << content;
    }
    void aCacheFileThatIsNotSaneIsIgnoredAndRewritten()
    {
        QFETCH(QByteArray, content);
        TranscriptServer server;
        serveLegacy(server, 1, 0);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("c.json"));
        content.replace("SERVER", QByteArray::fromStdString(server.url()));
        content.replace("NOW", QByteArray::number(QDateTime::currentMSecsSinceEpoch()));
        writeFile(file, content);
        Client c(server, file);
        c.discovery.refresh();
        QVERIFY(c.finish());
        QVERIFY(!c.discovery.fromCache());
        QCOMPARE(countExact(server, "/api/v1"), 1);
        QVERIFY(c.discovery.snapshot().resolve("configmaps"));
        QVERIFY(!c.discovery.snapshot().resolve("gadgets"));
        QVERIFY(kube::loadDiscoveryCache(file.toStdString()).ok()); // replaced by what the server said
    }
};

QTEST_GUILESS_MAIN(TestDiscoveryCache)
#include "tst_discoverycache.moc"
