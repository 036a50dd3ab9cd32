// Decoding audit.k8s.io/v1 events (core/audit/auditevent.h) from lines recorded from a real
// kube-apiserver 1.20.2 (tests/data/audit/README.md) and from hostile input: every member is
// type-checked, bodies are never kept, and each bound is tested at and past its limit.
#include "core/audit/auditevent.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTest>

using namespace fieldscope::core;

namespace {

std::string readData(const char *name)
{
    QFile f(QStringLiteral(FIELDSCOPE_TEST_DATA "/audit/") + QString::fromLatin1(name));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing test data %s", name);
    return f.readAll().toStdString();
}

std::vector<std::string> lines(const std::string &text)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t nl = text.find('\n', start);
        out.push_back(text.substr(start, nl - start));
        start = nl == std::string::npos ? text.size() : nl + 1;
    }
    return out;
}

const AuditEvent *find(const std::vector<AuditEvent> &events, const std::string &user, const std::string &verb,
                       int code)
{
    for (const auto &e : events)
        if (e.user.username == user && e.verb == verb && e.responseCode == code)
            return &e;
    return nullptr;
}

// Every string the decoded event holds, for the "no body is kept" checks.
std::string allText(const AuditEvent &e)
{
    std::string s = e.auditID + e.stage + e.level + e.verb + e.requestURI + e.userAgent + e.responseReason
                  + e.responseMessage + e.requestReceivedTimestamp + e.stageTimestamp + e.responseKind
                  + e.responseResourceVersion + e.responseUid;
    for (const AuditUser *u : {&e.user, &e.impersonatedUser}) {
        s += u->username + u->uid;
        for (const auto &g : u->groups)
            s += g;
    }
    for (const auto &ip : e.sourceIPs)
        s += ip;
    const AuditObjectRef &r = e.objectRef;
    s += r.resource + r.namespace_ + r.name + r.apiGroup + r.apiVersion + r.uid + r.resourceVersion + r.subresource;
    for (const auto &m : e.responseManagers)
        s += m.manager + m.operation + m.subresource + m.time;
    return s;
}

const char *kMinimal = R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"a-1","stage":"ResponseComplete",)"
                       R"("verb":"patch","user":{"username":"alice"},"annotations":{"pad":")";

// A minimal event whose text is exactly `size` bytes (padding in an annotation).
std::string eventOfSize(std::size_t size)
{
    std::string head = kMinimal;
    const std::string tail = "\"}}";
    return head + std::string(size - head.size() - tail.size(), 'x') + tail;
}

std::string eventList(const std::vector<std::string> &items)
{
    std::string body = R"({"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[)";
    for (std::size_t i = 0; i < items.size(); ++i)
        body += (i ? "," : "") + items[i];
    return body + "]}";
}

} // namespace

class TestAuditEvent : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void realLogLinesDecodeWithoutSkips_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("level");
        QTest::newRow("RequestResponse policy") << "rr-audit.log"
                                                << "RequestResponse";
        QTest::newRow("Metadata policy") << "md-audit.log"
                                         << "Metadata";
    }
    void realLogLinesDecodeWithoutSkips()
    {
        QFETCH(QString, file);
        QFETCH(QString, level);
        const AuditDecodeResult r = decodeAuditLines(readData(file.toLatin1().constData()));
        QCOMPARE(r.skipped, 0);
        QCOMPARE(r.events.size(), std::size_t(15));
        const AuditEvent *create = find(r.events, "alice", "create", 201);
        QVERIFY(create);
        QCOMPARE(create->level, level.toStdString());
        QCOMPARE(create->stage, std::string("ResponseComplete"));
        QVERIFY(create->isFinal());
        QCOMPARE(create->requestURI, std::string("/api/v1/namespaces/team/configmaps?fieldManager=kubectl-create"));
        QCOMPARE(create->fieldManager(), std::string("kubectl-create"));
        QCOMPARE(create->user.uid, std::string("uid-alice"));
        QCOMPARE(create->user.groups, (std::vector<std::string>{"dev", "system:authenticated"}));
        QCOMPARE(create->sourceIPs, std::vector<std::string>{"127.0.0.1"});
        QCOMPARE(create->userAgent.rfind("kubectl/v1.20.2 ", 0), std::size_t(0));
        QCOMPARE(create->objectRef.resource, std::string("configmaps"));
        QCOMPARE(create->objectRef.namespace_, std::string("team"));
        QCOMPARE(create->objectRef.name, std::string("app"));
        QCOMPARE(create->objectRef.apiVersion, std::string("v1"));
        QVERIFY(create->requestReceivedMicros > 1700000000ll * 1000000);
        QVERIFY(create->stageMicros >= create->requestReceivedMicros);
        if (level == QLatin1String("RequestResponse")) {
            QCOMPARE(create->responseResourceVersion, std::string("227"));
            QVERIFY(!create->responseUid.empty());
            QCOMPARE(create->responseManagers.size(), std::size_t(1));
            QCOMPARE(create->responseManagers[0].manager, std::string("kubectl-create"));
            QCOMPARE(create->responseManagers[0].operation, std::string("Update"));
        } else {
            QVERIFY(!create->hasResponseObject);
            QVERIFY(create->responseResourceVersion.empty());
        }
    }

    void impersonationKeepsBothUsers()
    {
        const AuditDecodeResult r = decodeAuditLines(readData("md-audit.log"));
        const AuditEvent *patch = find(r.events, "fieldscope-admin", "patch", 200);
        QVERIFY(patch);
        QVERIFY(patch->hasImpersonatedUser);
        QCOMPARE(patch->impersonatedUser.username, std::string("system:serviceaccount:team:deployer"));
        QCOMPARE(patch->user.groups, (std::vector<std::string>{"system:masters", "system:authenticated"}));
    }

    void refusedWriteKeepsTheStatusMessageOnlyWhenTheEventCarriesIt()
    {
        const AuditDecodeResult rr = decodeAuditLines(readData("rr-audit.log"));
        const AuditEvent *stale = find(rr.events, "alice", "update", 409);
        QVERIFY(stale);
        QCOMPARE(stale->responseReason, std::string("Conflict"));
        QVERIFY(stale->responseMessage.find("the object has been modified") != std::string::npos);
        const AuditEvent *apply = find(rr.events, "bob", "patch", 409);
        QVERIFY(apply);
        QVERIFY(apply->responseMessage.find("conflict with \"kubectl-create\"") != std::string::npos);
        const AuditDecodeResult md = decodeAuditLines(readData("md-audit.log"));
        const AuditEvent *mdStale = find(md.events, "alice", "update", 409);
        QVERIFY(mdStale);
        QCOMPARE(mdStale->responseReason, std::string("Conflict"));
        QVERIFY(mdStale->responseMessage.empty());
    }

    void deleteTakesTheUidFromTheStatusAnswer()
    {
        const AuditDecodeResult rr = decodeAuditLines(readData("rr-audit.log"));
        const AuditEvent *del = find(rr.events, "bob", "delete", 200);
        QVERIFY(del);
        QCOMPARE(del->responseKind, std::string("Status"));
        QVERIFY(!del->responseUid.empty());
        QVERIFY(del->responseResourceVersion.empty());
        QCOMPARE(del->fieldManager(), std::string()); // a delete has no field manager
    }

    void bodiesAreNeverKept()
    {
        const std::string canary = "canary-s3cret-value";
        const std::string line =
            "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"RequestResponse\",\"auditID\":\"x\",\"stage\":\"ResponseComplete\","
            "\"verb\":\"create\",\"requestURI\":\"/api/v1/namespaces/a/secrets\",\"user\":{\"username\":\"u\"},"
            "\"objectRef\":{\"resource\":\"secrets\",\"namespace\":\"a\",\"name\":\"s\",\"apiVersion\":\"v1\"},\"responseStatus\":{\"code\":201},"
            "\"requestObject\":{\"kind\":\"Secret\",\"metadata\":{\"name\":\"s\"},\"stringData\":{\"p\":\""
            + canary
            + "\"}},"
              "\"responseObject\":{\"kind\":\"Secret\",\"metadata\":{\"name\":\"s\",\"resourceVersion\":\"9\",\"uid\":\"u1\","
              "\"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":\""
            + canary
            + "\"}},"
              "\"data\":{\"p\":\""
            + canary + "\"}}}";
        const auto e = decodeAuditEventText(line, "line 1");
        QVERIFY(e.ok());
        QCOMPARE(e->responseResourceVersion, std::string("9"));
        QCOMPARE(e->responseUid, std::string("u1"));
        QVERIFY(allText(*e).find(canary) == std::string::npos);
        // The real samples: nothing of requestObject (the stale replace's body) is kept either.
        for (const auto &ev : decodeAuditLines(readData("rr-audit.log")).events)
            QVERIFY(allText(ev).find("creationTimestamp") == std::string::npos);
    }

    void fieldManagerFollowsTheApiServer_data()
    {
        QTest::addColumn<QString>("verb");
        QTest::addColumn<QString>("uri");
        QTest::addColumn<QByteArray>("userAgent");
        QTest::addColumn<QByteArray>("manager");
        const QByteArray kubectl = "kubectl/v1.20.2 (linux/amd64) kubernetes/faecb19";
        QTest::newRow("query") << "patch"
                               << "/api/v1/x?fieldManager=kubectl-label" << kubectl << QByteArray("kubectl-label");
        QTest::newRow("query among others")
            << "patch"
            << "/a?force=false&fieldManager=kubectl&dryRun=" << kubectl << QByteArray("kubectl");
        QTest::newRow("percent and plus") << "update"
                                          << "/a?fieldManager=my%2Ftool+x" << kubectl << QByteArray("my/tool x");
        QTest::newRow("empty query value: user agent")
            << "update"
            << "/a?fieldManager=" << QByteArray("team-tool/0.3 (linux)") << QByteArray("team-tool");
        QTest::newRow("user agent prefix") << "update"
                                           << "/api/v1/namespaces/team/configmaps/app"
                                           << QByteArray("team-tool/0.3 (linux/amd64)") << QByteArray("team-tool");
        QTest::newRow("no slash") << "create"
                                  << "/a" << QByteArray("curl") << QByteArray("curl");
        QTest::newRow("control characters dropped") << "create"
                                                    << "/a" << QByteArray("te\tam\x7f-x/1") << QByteArray("team-x");
        QTest::newRow("invalid UTF-8 is U+FFFD") << "create"
                                                 << "/a"
                                                 << QByteArray("a\xff"
                                                               "b/1")
                                                 << QByteArray("a\xef\xbf\xbd"
                                                               "b");
        QTest::newRow("cut at 128 bytes") << "create"
                                          << "/a" << QByteArray(200, 'm') << QByteArray(128, 'm');
        QTest::newRow("multibyte not split at 128")
            << "create"
            << "/a" << (QByteArray(127, 'm') + "\xc3\xa9") << QByteArray(127, 'm');
        QTest::newRow("delete has none") << "delete"
                                         << "/a?fieldManager=x" << kubectl << QByteArray();
    }
    void fieldManagerFollowsTheApiServer()
    {
        QFETCH(QString, verb);
        QFETCH(QString, uri);
        QFETCH(QByteArray, userAgent);
        QFETCH(QByteArray, manager);
        AuditEvent e;
        e.verb = verb.toStdString();
        e.requestURI = uri.toStdString();
        e.userAgent = userAgent.toStdString();
        QCOMPARE(QByteArray::fromStdString(e.fieldManager()), manager);
    }

    void dryRunIsRecognised()
    {
        AuditEvent e;
        e.requestURI = "/api/v1/namespaces/a/configmaps?dryRun=All&fieldManager=x";
        QVERIFY(e.isDryRun());
        e.requestURI = "/api/v1/namespaces/a/configmaps?fieldManager=x";
        QVERIFY(!e.isDryRun());
    }

    void rfc3339Times_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("micros");
        QTest::newRow("micros Z") << "2026-11-25T13:54:07.175327Z" << qint64(1795614847175327);
        QTest::newRow("whole seconds") << "2026-11-25T13:54:07Z" << qint64(1795614847000000);
        QTest::newRow("nanos cut") << "2026-11-25T13:54:07.123456789Z" << qint64(1795614847123456);
        QTest::newRow("offset") << "2026-11-25T15:54:07+02:00" << qint64(1795614847000000);
        QTest::newRow("epoch") << "1970-01-01T00:00:00Z" << qint64(0);
        QTest::newRow("no zone") << "2026-11-25T13:54:07" << qint64(-1);
        QTest::newRow("junk") << "yesterday" << qint64(-1);
        QTest::newRow("month 13") << "2026-13-25T13:54:07Z" << qint64(-1);
        QTest::newRow("trailing") << "2026-11-25T13:54:07Zx" << qint64(-1);
        QTest::newRow("empty fraction") << "2026-11-25T13:54:07.Z" << qint64(-1);
    }
    void rfc3339Times()
    {
        QFETCH(QString, text);
        QFETCH(qint64, micros);
        const auto v = parseRfc3339Micros(text.toStdString());
        QCOMPARE(v.has_value(), micros >= 0);
        if (v)
            QCOMPARE(qint64(*v), micros);
    }

    void eventAtTheSizeLimitIsDecodedAndOneByteMoreIsRefused()
    {
        const std::string at = eventOfSize(kMaxAuditEventBytes);
        QCOMPARE(at.size(), kMaxAuditEventBytes);
        QVERIFY(decodeAuditEventText(at, "x").ok());
        const std::string past = eventOfSize(kMaxAuditEventBytes + 1);
        const auto refused = decodeAuditEventText(past, "line 9");
        QVERIFY(!refused.ok());
        QVERIFY(refused.error().message.find("more than the limit") != std::string::npos);
        const AuditDecodeResult lines = decodeAuditLines(at + "\n" + past + "\n");
        QCOMPARE(lines.events.size(), std::size_t(1));
        QCOMPARE(lines.skipped, 1);
        QCOMPARE(lines.tooLarge, 1);
    }

    void nestingAtTheDepthLimitIsDecodedAndDeeperIsSkipped()
    {
        // The event object is depth 1 and "annotations" depth 2; n more arrays inside it.
        auto nested = [](int total) {
            const int arrays = total - 2;
            return std::string(kMinimal).substr(0, std::string(kMinimal).find("\"pad\""))
                 + "\"pad\":" + std::string(std::size_t(arrays), '[') + std::string(std::size_t(arrays), ']') + "}}";
        };
        QVERIFY(decodeAuditEventText(nested(kMaxAuditEventDepth), "x").ok());
        QVERIFY(!decodeAuditEventText(nested(kMaxAuditEventDepth + 1), "x").ok());
        const AuditDecodeResult list =
            decodeAuditEventList(eventList({nested(kMaxAuditEventDepth + 1), nested(3)})).value();
        QCOMPARE(list.events.size(), std::size_t(1));
        QCOMPARE(list.skipped, 1);
        // Far deeper than the limit: refused before a DOM exists, no stack overflow.
        const std::string deep(200000, '[');
        QVERIFY(!decodeAuditEventText(deep, "x").ok());
        QVERIFY(!decodeAuditEventList(deep).ok());
    }

    void wrongTypesAndJunkAreSkippedWithTheirPath_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("problem");
        const std::string head =
            R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"a","stage":"ResponseComplete",)";
        QTest::newRow("user is a string") << QString::fromStdString(head + R"("user":"alice"})") << "user is a string";
        QTest::newRow("group is a number")
            << QString::fromStdString(head + R"("user":{"groups":["dev",1]}})") << "user.groups[1] is a number";
        QTest::newRow("code is a string") << QString::fromStdString(head + R"("responseStatus":{"code":"409"}})")
                                          << "responseStatus.code is a string";
        QTest::newRow("objectRef is an array")
            << QString::fromStdString(head + R"("objectRef":[]})") << "objectRef is an array";
        QTest::newRow("sourceIPs is an object")
            << QString::fromStdString(head + R"("sourceIPs":{}})") << "sourceIPs is an object";
        QTest::newRow("response rv is a number")
            << QString::fromStdString(head + R"("responseObject":{"metadata":{"resourceVersion":5}}})")
            << "responseObject.metadata.resourceVersion is a number";
        QTest::newRow("managedFields entry is a string")
            << QString::fromStdString(head + R"("responseObject":{"metadata":{"managedFields":["x"]}}})")
            << "responseObject.metadata.managedFields[0] is a string";
        QTest::newRow("not JSON") << QStringLiteral("{kind: Event") << "audit event line 1";
        QTest::newRow("array") << QStringLiteral("[1,2]") << "(root) is an array";
        QTest::newRow("other kind") << QStringLiteral(R"({"kind":"Pod","apiVersion":"v1"})")
                                    << "not an audit.k8s.io/v1 Event";
        QTest::newRow("v1beta1")
            << QStringLiteral(R"({"kind":"Event","apiVersion":"audit.k8s.io/v1beta1","auditID":"a","stage":"x"})")
            << "not an audit.k8s.io/v1 Event";
        QTest::newRow("no auditID")
            << QStringLiteral(R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete"})")
            << "no auditID or stage";
    }
    void wrongTypesAndJunkAreSkippedWithTheirPath()
    {
        QFETCH(QString, line);
        QFETCH(QString, problem);
        const std::string good = lines(readData("rr-audit.log")).front();
        const AuditDecodeResult r = decodeAuditLines(line.toStdString() + "\r\n\n   \n" + good + "\n");
        QCOMPARE(r.events.size(), std::size_t(1));
        QCOMPARE(r.skipped, 1);
        QCOMPARE(r.problems.size(), std::size_t(1));
        QVERIFY2(r.problems[0].find(problem.toStdString()) != std::string::npos, r.problems[0].c_str());
    }

    void problemsAreCountedButOnlyTheFirstDescribed()
    {
        std::string text;
        for (int i = 0; i < 1000; ++i)
            text += "junk\n";
        const AuditDecodeResult r = decodeAuditLines(text);
        QCOMPARE(r.skipped, 1000);
        QCOMPARE(r.problems.size(), kMaxAuditProblems);
    }

    void eventListOfRealEventsMatchesTheLines()
    {
        const std::string log = readData("rr-audit.log");
        const AuditDecodeResult fromLines = decodeAuditLines(log);
        auto list = decodeAuditEventList(eventList(lines(log)));
        QVERIFY(list.ok());
        QCOMPARE(list->skipped, 0);
        QVERIFY(list->events == fromLines.events);
    }

    void eventListShapes_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("events"); // -1: the body is refused
        QTest::addColumn<int>("skipped");
        const std::string item =
            "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"auditID\":\"a\",\"stage\":\"ResponseComplete\"}";
        const std::string head = "{\"kind\":\"EventList\",\"apiVersion\":\"audit.k8s.io/v1\",";
        auto b = [](const std::string &s) { return QByteArray::fromStdString(s); };
        QTest::newRow("empty items") << b(head + "\"items\":[]}") << 0 << 0;
        QTest::newRow("null items") << b(head + "\"items\":null}") << 0 << 0;
        QTest::newRow("no items") << b("{\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"EventList\"}") << 0 << 0;
        QTest::newRow("junk items skipped") << b(head + "\"items\":[1,\"x\",null,{},[]," + item + "]}") << 1 << 5;
        QTest::newRow("spaces everywhere")
            << b(" {\n \"items\" : [ " + item + " , " + item
                 + " ] ,\"kind\":\"EventList\" , \"apiVersion\" : \"audit.k8s.io/v1\" } ")
            << 2 << 0;
        QTest::newRow("repeated items key: the last") << b(head + "\"items\":[" + item + "],\"items\":[]}") << 0 << 0;
        QTest::newRow("strings with brackets")
            << b(head + "\"metadata\":{\"x\":\"]}\\\"[\"},\"items\":[" + item + "]}") << 1 << 0;
        QTest::newRow("escaped key") << b(head + "\"it\\u0065ms\":[" + item + "]}") << 1 << 0;
        QTest::newRow("items is an object") << b(head + "\"items\":{}}") << -1 << 0;
        QTest::newRow("not an EventList") << b("{\"kind\":\"List\",\"apiVersion\":\"v1\",\"items\":[]}") << -1 << 0;
        QTest::newRow("kind is a number")
            << b("{\"kind\":1,\"apiVersion\":\"audit.k8s.io/v1\",\"items\":[]}") << -1 << 0;
        QTest::newRow("not JSON") << b("<html>") << -1 << 0;
        QTest::newRow("truncated") << b(head + "\"items\":[" + item) << -1 << 0;
        QTest::newRow("array root") << b("[]") << -1 << 0;
        QTest::newRow("empty") << b("") << -1 << 0;
    }
    void eventListShapes()
    {
        QFETCH(QByteArray, body);
        QFETCH(int, events);
        QFETCH(int, skipped);
        const auto r = decodeAuditEventList(body.toStdString());
        QCOMPARE(r.ok(), events >= 0);
        if (!r.ok())
            return;
        QCOMPARE(int(r->events.size()), events);
        QCOMPARE(int(r->skipped), skipped);
    }

    void eventListAtTheSizeLimitIsDecodedAndOneByteMoreIsRefused()
    {
        const std::string body = eventList({eventOfSize(1000)});
        std::string at = body + std::string(kMaxAuditListBytes - body.size(), ' ');
        auto ok = decodeAuditEventList(at);
        QVERIFY(ok.ok());
        QCOMPARE(ok->events.size(), std::size_t(1));
        at += ' ';
        const auto refused = decodeAuditEventList(at);
        QVERIFY(!refused.ok());
        QVERIFY(refused.error().message.find("more than the limit") != std::string::npos);
    }

    void eventListItemAboveTheEventLimitIsSkipped()
    {
        const auto r = decodeAuditEventList(eventList({eventOfSize(kMaxAuditEventBytes + 1), eventOfSize(500)}));
        QVERIFY(r.ok());
        QCOMPARE(r->events.size(), std::size_t(1));
        QCOMPARE(r->tooLarge, 1);
    }

    void eventListItemCountAtTheLimitIsDecodedAndOneMoreIsRefused()
    {
        const std::string item = eventOfSize(200);
        auto body = [&](std::size_t n) {
            std::string b = R"({"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":[)";
            for (std::size_t i = 0; i < n; ++i)
                b += (i ? "," : "") + item;
            return b + "]}";
        };
        const auto at = decodeAuditEventList(body(kMaxAuditListItems));
        QVERIFY(at.ok());
        QCOMPARE(at->events.size(), kMaxAuditListItems);
        const auto past = decodeAuditEventList(body(kMaxAuditListItems + 1));
        QVERIFY(!past.ok());
        QVERIFY(past.error().message.find("items") != std::string::npos);
    }

    void eventListOfAMillionItemsIsRefusedQuickly()
    {
        std::string b = R"({"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":[)";
        for (int i = 0; i < 1000000; ++i)
            b += i ? ",{}" : "{}";
        b += "]}";
        QElapsedTimer t;
        t.start();
        const auto r = decodeAuditEventList(b);
        QVERIFY(!r.ok());
        QVERIFY(r.error().message.find("more than 10000 items") != std::string::npos);
        QVERIFY2(t.elapsed() < 5000, std::to_string(t.elapsed()).c_str());
    }

    void lineDecoderFedInChunksMatchesTheWholeText()
    {
        const std::string log = readData("md-audit.log") + "junk\n" + readData("rr-audit.log");
        const AuditDecodeResult whole = decodeAuditLines(log);
        for (std::size_t chunk : {std::size_t(1), std::size_t(7), std::size_t(4096)}) {
            AuditLineDecoder decoder;
            AuditDecodeResult out;
            for (std::size_t i = 0; i < log.size(); i += chunk)
                decoder.feed(std::string_view(log).substr(i, chunk), out);
            decoder.finish(out);
            QVERIFY(out.events == whole.events);
            QCOMPARE(out.skipped, 1);
            QVERIFY(out.problems[0].find("line 16") != std::string::npos);
        }
    }

    void lineDecoderDropsAnOverlongLineAndKeepsGoing()
    {
        const std::string good = lines(readData("rr-audit.log")).front();
        AuditLineDecoder decoder;
        AuditDecodeResult out;
        const std::string big(std::size_t{64} * 1024, 'x');
        for (int i = 0; i < 20; ++i) // 1.25 MiB without a newline
            decoder.feed(big, out);
        decoder.feed("\n" + good.substr(0, 10), out);
        decoder.feed(good.substr(10), out); // last line without a newline
        QCOMPARE(out.events.size(), std::size_t(0));
        decoder.finish(out);
        QCOMPARE(out.events.size(), std::size_t(1));
        QCOMPARE(out.tooLarge, 1);
        QCOMPARE(out.skipped, 1);
        QCOMPARE(decoder.lineNumber(), 3);
    }

    void lineDecoderKeepsALineAtTheLimit()
    {
        AuditLineDecoder decoder;
        AuditDecodeResult out;
        decoder.feed(eventOfSize(kMaxAuditEventBytes) + "\r\n", out);
        QCOMPARE(out.events.size(), std::size_t(1));
        decoder.feed(eventOfSize(kMaxAuditEventBytes + 1) + "\n", out);
        QCOMPARE(out.events.size(), std::size_t(1));
        QCOMPARE(out.tooLarge, 1);
    }
};

QTEST_GUILESS_MAIN(TestAuditEvent)
#include "tst_auditevent.moc"
