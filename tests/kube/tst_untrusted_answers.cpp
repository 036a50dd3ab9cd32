// Every decoder of server answers fed a wrong JSON type at each field it reads: the answer is a
// Parse error naming the path (never an exception, never std::terminate), and the size limits
// on bodies hold just under and just over (README.md, Security).
#include "core/base/jsonread.h"
#include "kube/apiclient.h"
#include "kube/apierror.h"
#include "kube/discovery.h"
#include "kube/execplugin.h"
#include "kube/listdecoder.h"
#include "kube/tablefetcher.h"
#include "kube/transport.h"
#include "transcriptserver.h"

#include <QTest>

#include <optional>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

// Replaces the value at a JSON pointer in a valid document; the row then names that path.
std::string withValue(const std::string &doc, const std::string &pointer, const std::string &valueJson)
{
    core::Json j = core::Json::parse(doc);
    j[core::Json::json_pointer(pointer)] = core::Json::parse(valueJson);
    return j.dump();
}

// The documents are defined at the end of the file: moc does not read raw string literals.
extern const char *const kStatus;
extern const char *const kLegacy;
extern const char *const kAggregated;
extern const char *const kGroups;
extern const char *const kWatchError;
extern const char *const kList;
extern const char *const kAdded;
extern const char *const kTable;

void addRows(const char *doc, std::initializer_list<std::pair<const char *, const char *>> rows)
{
    for (const auto &[pointer, value] : rows)
        QTest::newRow((std::string(pointer) + " = " + value).c_str())
            << std::string(doc) << std::string(pointer) << std::string(value);
}

void columns()
{
    QTest::addColumn<std::string>("document");
    QTest::addColumn<std::string>("pointer");
    QTest::addColumn<std::string>("value");
}

// "/details/causes/0/reason" -> "details.causes[0].reason" (the reader's path syntax).
std::string dotted(const std::string &pointer)
{
    std::string out;
    std::size_t pos = 1;
    while (pos <= pointer.size()) {
        auto next = pointer.find('/', pos);
        const std::string token = pointer.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
        if (!token.empty() && std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; }))
            out += "[" + token + "]";
        else
            out += (out.empty() ? "" : ".") + token;
        if (next == std::string::npos)
            break;
        pos = next + 1;
    }
    return out;
}

// A JSON string document of exactly `bytes` bytes on the wire (TranscriptReply::json adds "\n").
std::string jsonStringOfSize(std::size_t bytes)
{
    return "\"" + std::string(bytes - 3, 'a') + "\"";
}

std::shared_ptr<kube::Transport> transportFor(const TranscriptServer &server)
{
    kube::TransportConfig config;
    config.server = server.url();
    config.qps = 0;
    return std::make_shared<kube::Transport>(config);
}

std::optional<core::Result<kube::HttpResponse>> send(kube::ApiClient &client, kube::HttpRequest request)
{
    std::optional<core::Result<kube::HttpResponse>> result;
    client.send(std::move(request), nullptr, [&result](core::Result<kube::HttpResponse> r) { result = std::move(r); });
    (void)QTest::qWaitFor([&] { return result.has_value(); }, 10'000);
    return result;
}

// A Table with `n` column definitions and one row of `n` cells ("v0", "v1", ...). Outside the
// test class: moc 6.4 skips a class body with some string literals in it.
std::string tableWithColumns(int n)
{
    std::string columns, cells;
    for (int i = 0; i < n; ++i) {
        columns += (i ? "," : "") + std::string(R"j({"name":"c)j") + std::to_string(i) + R"j(","type":"string"})j";
        cells += (i ? "," : "") + std::string(R"j("v)j") + std::to_string(i) + std::string(R"j(")j");
    }
    return R"j({"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"5"},"columnDefinitions":[)j"
         + columns + R"j(],"rows":[{"cells":[)j" + cells
         + R"j(],"object":{"metadata":{"uid":"u1","name":"a","resourceVersion":"4"}}}]})j";
}

} // namespace

class TestUntrustedAnswers : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void statusWithAWrongTypeIsAParseErrorNamingThePath_data()
    {
        columns();
        addRows(kStatus, {{"/message", "42"},
                          {"/reason", "[]"},
                          {"/details", "\"d\""},
                          {"/details/causes", "{}"},
                          {"/details/causes/0", "\"just a string\""},
                          {"/details/causes/0/reason", "1"},
                          {"/details/causes/0/message", "true"},
                          {"/details/causes/0/field", "{}"},
                          {"/details/retryAfterSeconds", "\"soon\""}});
    }
    void statusWithAWrongTypeIsAParseErrorNamingThePath()
    {
        QFETCH(std::string, document);
        QFETCH(std::string, pointer);
        QFETCH(std::string, value);
        kube::HttpResponse r;
        r.status = 409;
        r.body = withValue(document, pointer, value);
        const core::Error e = kube::errorFromResponse(r, "PATCH /api/v1/namespaces/x/configmaps/a");
        QCOMPARE(e.category, core::ErrorCategory::Parse);
        QCOMPARE(e.httpStatus, 409);
        QCOMPARE(e.where, dotted(pointer));
        QVERIFY2(e.message.find("PATCH /api/v1/namespaces/x/configmaps/a") != std::string::npos, e.message.c_str());
    }

    void wellTypedStatusStillGivesItsCategoryAndCauses()
    {
        kube::HttpResponse r;
        r.status = 409;
        r.body = kStatus;
        const core::Error e = kube::errorFromResponse(r, "PATCH /x");
        QCOMPARE(e.category, core::ErrorCategory::Conflict);
        QCOMPARE(e.message, std::string("nope"));
        QCOMPARE(int(e.causes.size()), 1);
        QCOMPARE(e.retryAfterSeconds, 1);
    }

    void legacyDiscoveryWithAWrongTypeIsAParseError_data()
    {
        columns();
        addRows(kLegacy, {{"/resources", "{}"},
                          {"/resources/0", "\"configmaps\""},
                          {"/resources/0/name", "7"},
                          {"/resources/0/singularName", "[]"},
                          {"/resources/0/namespaced", "\"true\""},
                          {"/resources/0/kind", "false"},
                          {"/resources/0/verbs", "\"get\""},
                          {"/resources/0/verbs/1", "3"},
                          {"/resources/0/shortNames", "{}"},
                          {"/resources/0/categories/0", "null"}});
    }
    void legacyDiscoveryWithAWrongTypeIsAParseError()
    {
        QFETCH(std::string, document);
        QFETCH(std::string, pointer);
        QFETCH(std::string, value);
        kube::DiscoverySnapshot snap;
        const auto st = kube::parseLegacyResourceList(withValue(document, pointer, value), "v1", true, snap);
        QVERIFY(!st.ok());
        QCOMPARE(st.error().category, core::ErrorCategory::Parse);
        QCOMPARE(st.error().where, dotted(pointer));
        QVERIFY2(st.error().message.find("GET /api/v1") != std::string::npos, st.error().message.c_str());
        QVERIFY(snap.resources.empty()); // nothing half-read reaches the snapshot
    }

    void legacyDiscoveryWithStringNamespacedIsAParseError()
    {
        // The reported failure: "namespaced": "true" aborted `fieldscope list` with exit 134.
        kube::DiscoverySnapshot snap;
        const auto st = kube::parseLegacyResourceList(withValue(kLegacy, "/resources/0/namespaced", "\"true\""), "v1",
                                                      true, snap);
        QVERIFY(!st.ok());
        QCOMPARE(st.error().where, std::string("resources[0].namespaced"));
        QVERIFY2(st.error().message.find("is a string, expected a boolean") != std::string::npos,
                 st.error().message.c_str());
        QVERIFY(kube::parseLegacyResourceList(kLegacy, "v1", true, snap).ok());
        QCOMPARE(int(snap.resources.size()), 1);
        QVERIFY(snap.resources[0].namespaced);
    }

    void aggregatedDiscoveryWithAWrongTypeIsAParseError_data()
    {
        columns();
        addRows(kAggregated, {{"/items", "{}"},
                              {"/items/0", "1"},
                              {"/items/0/metadata", "[]"},
                              {"/items/0/metadata/name", "1"},
                              {"/items/0/versions", "\"v1\""},
                              {"/items/0/versions/0", "\"v1\""},
                              {"/items/0/versions/0/version", "1"},
                              {"/items/0/versions/0/freshness", "{}"},
                              {"/items/0/versions/0/resources", "{}"},
                              {"/items/0/versions/0/resources/0", "[]"},
                              {"/items/0/versions/0/resources/0/resource", "1"},
                              {"/items/0/versions/0/resources/0/singularResource", "1"},
                              {"/items/0/versions/0/resources/0/scope", "true"},
                              {"/items/0/versions/0/resources/0/responseKind", "\"Deployment\""},
                              {"/items/0/versions/0/resources/0/responseKind/kind", "1"},
                              {"/items/0/versions/0/resources/0/verbs", "1"},
                              {"/items/0/versions/0/resources/0/shortNames/0", "{}"},
                              {"/items/0/versions/0/resources/0/categories", "true"},
                              {"/items/0/versions/0/resources/0/subresources", "{}"},
                              {"/items/0/versions/0/resources/0/subresources/0", "\"scale\""},
                              {"/items/0/versions/0/resources/0/subresources/0/subresource", "2"}});
    }
    void aggregatedDiscoveryWithAWrongTypeIsAParseError()
    {
        QFETCH(std::string, document);
        QFETCH(std::string, pointer);
        QFETCH(std::string, value);
        kube::DiscoverySnapshot snap;
        const auto st = kube::parseAggregatedDiscovery(withValue(document, pointer, value), false, snap);
        QVERIFY(!st.ok());
        QCOMPARE(st.error().category, core::ErrorCategory::Parse);
        QCOMPARE(st.error().where, dotted(pointer));
        QVERIFY(snap.resources.empty());
    }

    void groupListWithAWrongTypeIsAParseError_data()
    {
        columns();
        addRows(kGroups, {{"/groups", "{}"},
                          {"/groups/0", "\"apps\""},
                          {"/groups/0/versions", "1"},
                          {"/groups/0/versions/0", "\"apps/v1\""},
                          {"/groups/0/versions/0/groupVersion", "1"},
                          {"/groups/0/preferredVersion", "\"apps/v1\""},
                          {"/groups/0/preferredVersion/groupVersion", "[]"}});
    }
    void groupListWithAWrongTypeIsAParseError()
    {
        QFETCH(std::string, document);
        QFETCH(std::string, pointer);
        QFETCH(std::string, value);
        std::vector<std::pair<std::string, bool>> gvs;
        const auto st = kube::parseApiGroupList(withValue(document, pointer, value), gvs);
        QVERIFY(!st.ok());
        QCOMPARE(st.error().where, dotted(pointer));
        QVERIFY(gvs.empty());
    }

    void watchErrorEventWithAWrongTypeIsAParseError_data()
    {
        columns();
        addRows(kWatchError, {{"/object/code", "\"410\""},
                              {"/object/code", "1e99"},
                              {"/object/reason", "1"},
                              {"/object/message", "[]"},
                              {"/object/details", "1"},
                              {"/object/details/causes", "\"c\""},
                              {"/object/details/causes/0", "\"c\""},
                              {"/object/details/causes/0/reason", "1"},
                              {"/object/details/causes/0/message", "{}"},
                              {"/object/details/causes/0/field", "false"}});
    }
    void watchErrorEventWithAWrongTypeIsAParseError()
    {
        QFETCH(std::string, document);
        QFETCH(std::string, pointer);
        QFETCH(std::string, value);
        auto d = kube::decodeWatchLine(withValue(document, pointer, value));
        QVERIFY(!d.ok());
        QCOMPARE(d.error().category, core::ErrorCategory::Parse);
        QCOMPARE(d.error().where, dotted(pointer));
    }

    void watchEventWithAWrongTypeInMetadataIsAParseError_data()
    {
        columns();
        addRows(kAdded, {{"/type", "1"},
                         {"/object", "\"o\""},
                         {"/object/metadata", "[]"},
                         {"/object/metadata/name", "1"},
                         {"/object/metadata/namespace", "{}"},
                         {"/object/metadata/uid", "true"},
                         {"/object/metadata/resourceVersion", "5"},
                         {"/object/metadata/creationTimestamp", "[]"}});
    }
    void watchEventWithAWrongTypeInMetadataIsAParseError()
    {
        QFETCH(std::string, document);
        QFETCH(std::string, pointer);
        QFETCH(std::string, value);
        auto d = kube::decodeWatchLine(withValue(document, pointer, value));
        QVERIFY(!d.ok());
        QCOMPARE(d.error().category, core::ErrorCategory::Parse);
    }

    void listPageWithAWrongTypeIsAParseErrorNamingThePath_data()
    {
        columns();
        addRows(kList, {{"/metadata", "[]"},
                        {"/metadata/resourceVersion", "10"},
                        {"/metadata/continue", "{}"},
                        {"/items/0", "\"a\""},
                        {"/items/0/metadata", "1"},
                        {"/items/0/metadata/name", "1"},
                        {"/items/0/metadata/namespace", "[]"},
                        {"/items/0/metadata/uid", "{}"},
                        {"/items/0/metadata/resourceVersion", "9"},
                        {"/items/0/metadata/creationTimestamp", "true"}});
    }
    void listPageWithAWrongTypeIsAParseErrorNamingThePath()
    {
        QFETCH(std::string, document);
        QFETCH(std::string, pointer);
        QFETCH(std::string, value);
        std::string body = withValue(document, pointer, value);
        auto page = kube::decodeListPage(body, "ConfigMap", "v1");
        QVERIFY(!page.ok());
        QCOMPARE(page.error().category, core::ErrorCategory::Parse);
        if (pointer.rfind("/items/0/metadata/", 0) == 0 || pointer.rfind("/metadata/", 0) == 0)
            QCOMPARE(page.error().where, dotted(pointer));
    }

    void tableWithAWrongTypeAtAnIdentityFieldIsAParseError_data()
    {
        columns();
        addRows(kTable, {{"/metadata", "1"},
                         {"/metadata/resourceVersion", "10"},
                         {"/metadata/continue", "[]"},
                         {"/columnDefinitions", "{}"},
                         {"/columnDefinitions/0", "\"Name\""},
                         {"/rows", "{}"},
                         {"/rows/0", "1"},
                         {"/rows/0/cells", "{}"},
                         {"/rows/0/object", "1"},
                         {"/rows/0/object/metadata/uid", "1"},
                         {"/rows/0/object/metadata/name", "{}"},
                         {"/rows/0/object/metadata/namespace", "[]"},
                         {"/rows/0/object/metadata/resourceVersion", "9"}});
    }
    void tableWithAWrongTypeAtAnIdentityFieldIsAParseError()
    {
        QFETCH(std::string, document);
        QFETCH(std::string, pointer);
        QFETCH(std::string, value);
        std::string body = withValue(document, pointer, value);
        auto t = kube::decodeTable(body);
        QVERIFY(!t.ok());
        QCOMPARE(t.error().category, core::ErrorCategory::Parse);
        QCOMPARE(t.error().where, pointer.substr(1, pointer.find('/', 1) - 1)); // the top-level field
    }

    void wellTypedTableStillDecodes()
    {
        std::string body = kTable;
        auto t = kube::decodeTable(body);
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().describe().c_str());
        QVERIFY(t->isTable);
        QCOMPARE(t->rows.at(0).uid, std::string("u1"));
    }

    // 10,000 column definitions and as many cells per row: the first kMaxTableColumns are kept.
    void tableColumnsPastTheBoundAreDroppedWithTheirCells()
    {
        std::string body = tableWithColumns(10000);
        auto t = kube::decodeTable(body);
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().describe().c_str());
        QCOMPARE(t->columns.size(), kube::kMaxTableColumns);
        QCOMPARE(t->droppedColumns, std::size_t(10000) - kube::kMaxTableColumns);
        QCOMPARE(std::size_t(t->rows.at(0).cells.size()), kube::kMaxTableColumns);
        QCOMPARE(t->columns.back().name, "c" + std::to_string(kube::kMaxTableColumns - 1));
        QCOMPARE(t->rows.at(0).cells.back().toString(), QStringLiteral("v%1").arg(kube::kMaxTableColumns - 1));
    }

    void execCredentialWithAWrongTypeIsAnErrorNamingTheField_data()
    {
        columns();
        const char *cred =
            R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"t0k3n-canary","expirationTimestamp":"2030-01-01T00:00:00Z"}})";
        addRows(cred, {{"/kind", "1"},
                       {"/apiVersion", "[]"},
                       {"/status", "\"t0k3n-canary\""},
                       {"/status/token", "42"},
                       {"/status/clientCertificateData", "{}"},
                       {"/status/clientKeyData", "true"},
                       {"/status/expirationTimestamp", "1"}});
    }
    void execCredentialWithAWrongTypeIsAnErrorNamingTheField()
    {
        QFETCH(std::string, document);
        QFETCH(std::string, pointer);
        QFETCH(std::string, value);
        auto c = kube::parseExecCredential(withValue(document, pointer, value), "client.authentication.k8s.io/v1",
                                           "aws");
        QVERIFY(!c.ok());
        const std::string path = dotted(pointer);
        QVERIFY2(c.error().message.find(path + " is ") != std::string::npos, c.error().message.c_str());
        QVERIFY2(c.error().message.find("t0k3n-canary") == std::string::npos,
                 c.error().message.c_str()); // never the token
    }

    void wellTypedListPageAndWatchErrorStillDecode()
    {
        std::string body = kList;
        auto page = kube::decodeListPage(body, "ConfigMap", "v1");
        QVERIFY2(page.ok(), page.ok() ? "" : page.error().describe().c_str());
        QCOMPARE(page->items.at(0).uid, std::string("u1"));
        auto d = kube::decodeWatchLine(kWatchError);
        QVERIFY(d.ok());
        QCOMPARE(d->error.httpStatus, 410);
        QCOMPARE(d->error.category, core::ErrorCategory::Gone);
    }

    void safeDumpReplacesInvalidUtf8InsteadOfThrowing()
    {
        core::Json j = {{"message", std::string("bad \xff\xfe bytes")}};
        bool threw = false;
        try {
            (void)j.dump();
        } catch (const core::Json::type_error &) {
            threw = true;
        }
        QVERIFY(threw); // what -o json did before
        QCOMPARE(core::safeDump(j), std::string("{\"message\":\"bad \xEF\xBF\xBD\xEF\xBF\xBD bytes\"}"));
    }

    void bodyExactlyAtTheLimitIsRead()
    {
        TranscriptServer server;
        server.on("/api/v1/configmaps").reply(TranscriptReply::json(200, jsonStringOfSize(1000)));
        kube::ApiClient client(transportFor(server));
        kube::HttpRequest req;
        req.path = "/api/v1/configmaps";
        req.maxBodyBytes = 1000;
        auto r = send(client, req);
        QVERIFY(r.has_value());
        QVERIFY2(r->ok(), r->ok() ? "" : r->error().describe().c_str());
        QCOMPARE((*r)->body.size(), std::size_t(1000));
    }

    void bodyJustOverTheLimitIsAClearError()
    {
        TranscriptServer server;
        server.on("/api/v1/configmaps").reply(TranscriptReply::json(200, jsonStringOfSize(1001)));
        kube::ApiClient client(transportFor(server));
        kube::HttpRequest req;
        req.path = "/api/v1/configmaps";
        req.maxBodyBytes = 1000;
        auto r = send(client, req);
        QVERIFY(r.has_value());
        QVERIFY(!r->ok());
        QCOMPARE(r->error().category, core::ErrorCategory::Parse);
        QVERIFY2(r->error().message.find("larger than") != std::string::npos, r->error().message.c_str());
        QVERIFY2(r->error().message.find("1000 bytes") != std::string::npos, r->error().message.c_str());
    }

    void defaultLimitsAreTheDocumentedOnes()
    {
        QCOMPARE(kube::kMaxResponseBodyBytes, std::size_t(256) << 20);
        QCOMPARE(kube::kMaxWatchFrameBytes, std::size_t(64) << 20);
        QCOMPARE(kube::HttpRequest{}.maxBodyBytes, kube::kMaxResponseBodyBytes);
    }
};

QTEST_GUILESS_MAIN(TestUntrustedAnswers)
#include "tst_untrusted_answers.moc"

namespace {

const char *const kStatus =
    R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"nope","reason":"Conflict",
  "details":{"name":"x","causes":[{"reason":"FieldManagerConflict","message":"conflict with \"a\"","field":".spec"}],
  "retryAfterSeconds":1},"code":409})";

const char *const kLegacy = R"({"kind":"APIResourceList","groupVersion":"v1","resources":[
  {"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list"],
   "shortNames":["cm"],"categories":["all"]}]})";

const char *const kAggregated = R"({"kind":"APIGroupDiscoveryList","items":[{"metadata":{"name":"apps"},"versions":[
  {"version":"v1","freshness":"Current","resources":[{"resource":"deployments","singularResource":"deployment",
   "scope":"Namespaced","responseKind":{"kind":"Deployment"},"verbs":["get"],"shortNames":["deploy"],
   "categories":["all"],"subresources":[{"subresource":"scale"}]}]}]}]})";

const char *const kGroups = R"({"kind":"APIGroupList","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1"}],
  "preferredVersion":{"groupVersion":"apps/v1"}}]})";

const char *const kWatchError = R"({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure",
  "message":"too old","reason":"Expired","code":410,"details":{"causes":[{"reason":"x","message":"y","field":"z"}]}}})";

const char *const kList =
    R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"10","continue":""},
  "items":[{"metadata":{"name":"a","namespace":"x","uid":"u1","resourceVersion":"9","creationTimestamp":"2024-01-01T00:00:00Z"}}]})";

const char *const kAdded =
    R"({"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"a","namespace":"x","uid":"u",
  "resourceVersion":"5","creationTimestamp":"2024-01-01T00:00:00Z"}}})";
const char *const kTable =
    R"({"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"10","continue":""},
  "columnDefinitions":[{"name":"Name","type":"string","format":"name","description":"d","priority":0}],
  "rows":[{"cells":["a"],"object":{"kind":"PartialObjectMetadata","metadata":{"name":"a","namespace":"x","uid":"u1","resourceVersion":"9"}}}]})";
} // namespace
