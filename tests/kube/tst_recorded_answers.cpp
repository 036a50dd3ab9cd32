// Answers recorded from a real kube-apiserver 1.37 (tests/data/transcripts/record-modern.sh),
// replayed through the real transport: the Status of each refusal (not found, a server-side apply
// conflict, a stale replace, an invalid object, a Strict field-validation refusal) decodes into
// the error the editor and `fieldscope apply` decide on, the Warning headers of field validation
// and of a deprecated version arrive as the server wrote them, and the server's Table decodes.
#include "kube/apiclient.h"
#include "kube/tablefetcher.h"
#include "transcriptserver.h"

#include <QTest>

#include <optional>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

// The answer of FILE to one request through the real transport and ApiClient.
core::Result<kube::HttpResponse> replay(const QString &file)
{
    TranscriptServer server;
    server.on("/x").replyFile(file);
    kube::TransportConfig config;
    config.server = server.url();
    config.qps = 0;
    kube::ApiClient client(std::make_shared<kube::Transport>(config));
    kube::HttpRequest request;
    request.path = "/x";
    std::optional<core::Result<kube::HttpResponse>> result;
    client.send(std::move(request), nullptr, [&](core::Result<kube::HttpResponse> r) { result = std::move(r); });
    if (!QTest::qWaitFor([&] { return result.has_value(); }, 10'000))
        return core::Error::make(core::ErrorCategory::Network, "no answer");
    return std::move(*result);
}

} // namespace

class TestRecordedAnswers : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void notFoundIsNotFound()
    {
        const auto r = replay(QStringLiteral("status/not-found-404-1.37.http"));
        QVERIFY(!r);
        QCOMPARE(r.error().category, core::ErrorCategory::NotFound);
        QCOMPARE(r.error().reason, std::string("NotFound"));
        QCOMPARE(r.error().message, std::string("configmaps \"missing\" not found"));
    }

    void anApplyConflictNamesTheFieldAndItsManager()
    {
        const auto r = replay(QStringLiteral("status/apply-conflict-409-1.37.http"));
        QVERIFY(!r);
        QCOMPARE(r.error().category, core::ErrorCategory::Conflict);
        QVERIFY(r.error().isSsaConflict());
        QCOMPARE(r.error().conflicts.size(), std::size_t(1));
        QCOMPARE(r.error().conflicts[0].path, std::string(".data.k"));
        QCOMPARE(r.error().conflicts[0].manager, std::string("recorder"));
    }

    void aStaleReplaceIsAStaleWriteNotAFieldConflict()
    {
        const auto r = replay(QStringLiteral("status/stale-replace-409-1.37.http"));
        QVERIFY(!r);
        QCOMPARE(r.error().category, core::ErrorCategory::StaleWrite);
        QVERIFY(!r.error().isSsaConflict());
    }

    void anInvalidObjectCarriesTheFieldOfEachCause()
    {
        const auto r = replay(QStringLiteral("status/invalid-422-1.37.http"));
        QVERIFY(!r);
        QCOMPARE(r.error().category, core::ErrorCategory::Invalid);
        QVERIFY(!r.error().causes.empty());
        QCOMPARE(r.error().causes[0].field, std::string("metadata.labels"));
        QCOMPARE(r.error().causes[0].reason, std::string("FieldValueInvalid"));
    }

    void aStrictRefusalNamesEveryUnknownAndDuplicateField()
    {
        const auto r = replay(QStringLiteral("status/unknown-field-400-1.37.http"));
        QVERIFY(!r);
        QCOMPARE(r.error().category, core::ErrorCategory::Invalid);
        QCOMPARE(r.error().httpStatus, 400);
        QVERIFY2(r.error().message.find("strict decoding error: duplicate field \"data.a\", unknown field \"spec\"")
                     != std::string::npos,
                 r.error().message.c_str());
    }

    void fieldValidationWarningsArriveOnePerField()
    {
        const auto r = replay(QStringLiteral("transport/field-warnings-1.37.http"));
        QVERIFY(r);
        QCOMPARE(r->status, 201);
        QCOMPARE(r->warnings.size(), std::size_t(2));
        QCOMPARE(r->warnings[0], std::string("duplicate field \"data.a\""));
        QCOMPARE(r->warnings[1], std::string("unknown field \"spec\""));
    }

    void aDeprecatedVersionsAnswerCarriesItsWarningText()
    {
        const auto r = replay(QStringLiteral("transport/deprecated-warning-1.37.http"));
        QVERIFY(r);
        QCOMPARE(r->warnings.size(), std::size_t(1));
        QCOMPARE(r->warnings[0], std::string("fieldscope.dev/v1 Transcript is deprecated"));
    }

    void theServersTableDecodesWithItsColumnsAndRows()
    {
        auto r = replay(QStringLiteral("table/configmaps-table-1.37.http"));
        QVERIFY(r);
        auto table = kube::decodeTable(r->body);
        QVERIFY(table);
        QVERIFY(table->isTable);
        QStringList names;
        for (const auto &c : table->columns)
            names << QString::fromStdString(c.name);
        QCOMPARE(names, (QStringList{QStringLiteral("Name"), QStringLiteral("Data"), QStringLiteral("Age")}));
        QCOMPARE(table->rows.size(), std::size_t(3)); // a, b and kube-root-ca.crt
    }
};

QTEST_GUILESS_MAIN(TestRecordedAnswers)
#include "tst_recorded_answers.moc"
