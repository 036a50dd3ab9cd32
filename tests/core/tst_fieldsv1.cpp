// FieldsV1 decoding/encoding (sigs.k8s.io/structured-merge-diff/fieldpath/serialize-pe.go) and managedFields entries.
#include "core/ownership/fieldsv1.h"
#include "core/ownership/managedfields.h"

#include <QTest>

using namespace fieldscope::core;

namespace {

QString memberList(const FieldSet &set)
{
    QStringList out;
    for (const auto &p : set.members())
        out << QString::fromStdString(p.toString());
    return out.join(QLatin1Char('\n'));
}

} // namespace

class TestFieldsV1 : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void decodesEveryPrefix_data();
    void decodesEveryPrefix();

    void malformedFieldsV1GivesParseErrorWithPath_data();
    void malformedFieldsV1GivesParseErrorWithPath();

    void decodingAcceptsTheDepthLimitAndRefusesOneMore();
    void encodesInTheGoWritersOrder();
    void keyPayloadsMatchRegardlessOfFieldOrderAndNumberForm();
    void duplicateKeysInDifferentOrderAreMerged();
    void unionKeepsEveryMember();
    void insertBuildsTheSameSetAsDecoding();
    void managedFieldsEntriesKeepEveryAttribute();
    void entryIdentityIncludesApiVersionForUpdateOnly();
    void malformedEntryNamesTheEntryAndPath();
    void rfc3339Times_data();
    void rfc3339Times();
};

void TestFieldsV1::decodesEveryPrefix_data()
{
    QTest::addColumn<QString>("fieldsV1");
    QTest::addColumn<QString>("members");
    QTest::newRow("f: fields, dot owns the map itself") << R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}}})"
                                                        << ".metadata.labels\n.metadata.labels.app";
    QTest::newRow("path-only node is not a member") << R"({"f:metadata":{"f:labels":{"f:app":{}}}})"
                                                    << ".metadata.labels.app";
    QTest::newRow("map key split on the first colon only")
        << R"({"f:metadata":{"f:annotations":{"f:kubectl.kubernetes.io/last-applied-configuration":{},"f:a:b:c":{}}}})"
        << ".metadata.annotations.a:b:c\n.metadata.annotations.kubectl.kubernetes.io/last-applied-configuration";
    QTest::newRow("k: one key field")
        << R"({"f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:image":{}}}}})"
        << ".spec.containers[name=\"nginx\"]\n.spec.containers[name=\"nginx\"].image";
    QTest::newRow("k: several key fields keep their JSON types and sort")
        << R"({"f:ports":{"k:{\"protocol\":\"TCP\",\"containerPort\":80}":{}}})"
        << ".ports[containerPort=80,protocol=\"TCP\"]";
    QTest::newRow("v: set value") << R"({"f:metadata":{"f:finalizers":{".":{},"v:\"example.com/x\"":{}}}})"
                                  << ".metadata.finalizers\n.metadata.finalizers[=\"example.com/x\"]";
    QTest::newRow("v: number value") << R"({"f:s":{"v:5":{}}})"
                                     << ".s[=5]";
    QTest::newRow("i: indexes") << R"({"f:args":{"i:0":{},"i:12":{}}})"
                                << ".args[0]\n.args[12]";
    QTest::newRow("unknown prefixes are dropped") << R"({"f:a":{"z:future":{},"f:b":{}}})"
                                                  << ".a.b";
    QTest::newRow("a node with only unknown children is a leaf") << R"({"f:a":{"z:future":{}}})"
                                                                 << ".a";
    QTest::newRow("null reads as an empty node") << R"({"f:a":null})"
                                                 << ".a";
    QTest::newRow("empty FieldsV1 owns nothing") << R"({})"
                                                 << "";
}

void TestFieldsV1::decodesEveryPrefix()
{
    QFETCH(QString, fieldsV1);
    QFETCH(QString, members);
    auto set = FieldSet::fromFieldsV1Text(fieldsV1.toStdString());
    QVERIFY2(set.ok(), set.ok() ? "" : set.error().describe().c_str());
    QCOMPARE(memberList(*set), members);
}

void TestFieldsV1::malformedFieldsV1GivesParseErrorWithPath_data()
{
    QTest::addColumn<QString>("fieldsV1");
    QTest::addColumn<QString>("where");
    QTest::addColumn<QString>("messagePart");
    QTest::newRow("bad k: JSON") << R"({"f:spec":{"f:containers":{"k:{bad":{}}}})"
                                 << ".spec.containers"
                                 << "invalid JSON";
    QTest::newRow("k: not an object") << R"({"f:spec":{"k:[1]":{}}})"
                                      << ".spec"
                                      << "k: payload";
    QTest::newRow("bad v: JSON") << R"({"f:metadata":{"f:finalizers":{"v:nope":{}}}})"
                                 << ".metadata.finalizers"
                                 << "invalid JSON";
    QTest::newRow("i: not a number") << R"({"f:args":{"i:x":{}}})"
                                     << ".args"
                                     << "decimal integer";
    QTest::newRow("key too short") << R"({"f:spec":{"x":{}}})"
                                   << ".spec"
                                   << "\"x\"";
    QTest::newRow("missing colon") << R"({"f:spec":{"fx":{}}})"
                                   << ".spec"
                                   << "missing ':'";
    QTest::newRow("node not an object") << R"({"f:spec":{"f:replicas":3}})"
                                        << ".spec.replicas"
                                        << "must be a JSON object";
    QTest::newRow("root not an object") << R"([])"
                                        << "<root>"
                                        << "must be a JSON object";
    QString deep;
    for (int i = 0; i < 600; ++i)
        deep += QStringLiteral("{\"f:a\":");
    deep += QStringLiteral("{}");
    for (int i = 0; i < 600; ++i)
        deep += QLatin1Char('}');
    QTest::newRow("absurd nesting") << deep << ""
                                    << "deeper than";
    QString deepKey = QStringLiteral("{\"f:list\":{\"k:") + QString(600, QLatin1Char('['))
                    + QString(600, QLatin1Char(']')) + QStringLiteral("\":{}}}");
    QTest::newRow("k: payload nested too deep") << deepKey << ".list"
                                                << "deeper than 512";
}

void TestFieldsV1::malformedFieldsV1GivesParseErrorWithPath()
{
    QFETCH(QString, fieldsV1);
    QFETCH(QString, where);
    QFETCH(QString, messagePart);
    auto set = FieldSet::fromFieldsV1Text(fieldsV1.toStdString());
    QVERIFY(!set.ok());
    QCOMPARE(set.error().category, ErrorCategory::Parse);
    if (!where.isEmpty())
        QCOMPARE(QString::fromStdString(set.error().where), where);
    QVERIFY2(QString::fromStdString(set.error().message).contains(messagePart), set.error().message.c_str());
}

// The FieldsV1 value itself is checked as it is walked (it need not come from parseJson): nested
// exactly kMaxJsonDepth objects deep it decodes, one more is a Parse error naming the path.
void TestFieldsV1::decodingAcceptsTheDepthLimitAndRefusesOneMore()
{
    auto chain = [](int depth) {
        Json v = Json::object(); // the innermost object is the leaf
        for (int i = 1; i < depth; ++i) {
            Json outer = Json::object();
            outer["f:a"] = std::move(v);
            v = std::move(outer);
        }
        return v;
    };
    QCOMPARE(jsonDepth(chain(kMaxJsonDepth)), std::size_t(kMaxJsonDepth));
    auto atLimit = FieldSet::fromFieldsV1(chain(kMaxJsonDepth));
    QVERIFY2(atLimit.ok(), atLimit.ok() ? "" : atLimit.error().describe().c_str());
    QCOMPARE(atLimit->memberCount(), std::size_t(1));
    QCOMPARE(atLimit->members().front().size(), std::size_t(kMaxJsonDepth - 1));
    auto past = FieldSet::fromFieldsV1(chain(kMaxJsonDepth + 1));
    QVERIFY(!past.ok());
    QCOMPARE(past.error().category, ErrorCategory::Parse);
    QVERIFY2(QString::fromStdString(past.error().message).contains(QLatin1String("deeper than 512")),
             past.error().message.c_str());
    QVERIFY(QString::fromStdString(past.error().where).startsWith(QLatin1String(".a.a.a")));
}

void TestFieldsV1::encodesInTheGoWritersOrder()
{
    auto set = FieldSet::fromFieldsV1Text(
        R"({"f:spec":{"f:ports":{"i:1":{},"v:\"a\"":{},"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:port":{}},"f:z":{},"f:a":{},".":{}}}})");
    QVERIFY(set.ok());
    QCOMPARE(
        QString::fromStdString(toJsonText(set->toFieldsV1())),
        QStringLiteral(
            R"({"f:spec":{"f:ports":{".":{},"f:a":{},"f:z":{},"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:port":{}},"v:\"a\"":{},"i:1":{}}}})"));
    auto again = FieldSet::fromFieldsV1(set->toFieldsV1());
    QVERIFY(again.ok());
    QVERIFY(*again == *set);
}

void TestFieldsV1::keyPayloadsMatchRegardlessOfFieldOrderAndNumberForm()
{
    auto set = FieldSet::fromFieldsV1Text(R"({"f:ports":{"k:{\"protocol\":\"TCP\",\"port\":80.0}":{}}})");
    QVERIFY(set.ok());
    FieldPath p({PathElement::makeField("ports"), PathElement::makeKey(Json{{"port", 80}, {"protocol", "TCP"}})});
    QVERIFY(set->contains(p));
    FieldPath q({PathElement::makeField("ports"), PathElement::makeKey(Json{{"port", 81}, {"protocol", "TCP"}})});
    QVERIFY(!set->contains(q));
    // A string "80" is a different key from the number 80 (k: keys keep their JSON types).
    FieldPath s({PathElement::makeField("ports"), PathElement::makeKey(Json{{"port", "80"}, {"protocol", "TCP"}})});
    QVERIFY(!set->contains(s));
}

void TestFieldsV1::duplicateKeysInDifferentOrderAreMerged()
{
    auto set =
        FieldSet::fromFieldsV1Text(R"({"f:p":{"k:{\"a\":1,\"b\":2}":{"f:x":{}},"k:{\"b\":2,\"a\":1}":{"f:y":{}}}})");
    QVERIFY(set.ok());
    QCOMPARE(memberList(*set), QStringLiteral(".p[a=1,b=2].x\n.p[a=1,b=2].y"));
}

void TestFieldsV1::unionKeepsEveryMember()
{
    auto a = FieldSet::fromFieldsV1Text(R"({"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:replicas":{}}})");
    auto b = FieldSet::fromFieldsV1Text(R"({"f:metadata":{"f:labels":{".":{},"f:tier":{}}}})");
    QVERIFY(a.ok() && b.ok());
    FieldSet u = *a;
    u.merge(*b);
    QCOMPARE(memberList(u),
             QStringLiteral(".metadata.labels\n.metadata.labels.app\n.metadata.labels.tier\n.spec.replicas"));
    QCOMPARE(u.memberCount(), std::size_t(4));
}

void TestFieldsV1::insertBuildsTheSameSetAsDecoding()
{
    FieldSet built;
    built.insert(FieldPath({PathElement::makeField("spec"), PathElement::makeField("replicas")}));
    built.insert(FieldPath({PathElement::makeField("metadata"), PathElement::makeField("finalizers"),
                            PathElement::makeValue("x")}));
    auto decoded =
        FieldSet::fromFieldsV1Text(R"({"f:spec":{"f:replicas":{}},"f:metadata":{"f:finalizers":{"v:\"x\"":{}}}})");
    QVERIFY(decoded.ok());
    QVERIFY(built == *decoded);
}

void TestFieldsV1::managedFieldsEntriesKeepEveryAttribute()
{
    auto obj = parseJson(R"({"metadata":{"managedFields":[
        {"manager":"kubectl","operation":"Apply","apiVersion":"apps/v1","time":"2026-07-20T09:14:03Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}},
        {"manager":"kube-controller-manager","operation":"Update","apiVersion":"apps/v1","subresource":"scale","time":"2026-07-20T09:20:11Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}},
        {"manager":"old","operation":"Update","apiVersion":"v1","fields":{"f:data":{}}}]}})");
    QVERIFY(obj.ok());
    auto entries = parseManagedFields(*obj);
    QVERIFY2(entries.ok(), entries.ok() ? "" : entries.error().describe().c_str());
    QCOMPARE(entries->size(), std::size_t(3));
    const auto &a = (*entries)[0];
    QCOMPARE(a.operation, ManagedOperation::Apply);
    QCOMPARE(QString::fromStdString(a.label()), QStringLiteral("kubectl(Apply)"));
    QCOMPARE(a.timeSeconds.value_or(0), std::int64_t(1784538843));
    const auto &s = (*entries)[1];
    QCOMPARE(QString::fromStdString(s.label()), QStringLiteral("kube-controller-manager(Update/scale)"));
    QCOMPARE(QString::fromStdString(s.conflictDescription()),
             QStringLiteral("\"kube-controller-manager\" with subresource \"scale\" using apps/v1"));
    QCOMPARE(QString::fromStdString(a.conflictDescription()), QStringLiteral("\"kubectl\""));
    QCOMPARE(memberList((*entries)[2].fields), QStringLiteral(".data")); // pre-1.17 "fields" key
    QVERIFY(!(*entries)[2].timeSeconds);
}

void TestFieldsV1::entryIdentityIncludesApiVersionForUpdateOnly()
{
    ManagedFieldsEntry a{"m", ManagedOperation::Update, "v1", "", "", std::nullopt, {}};
    ManagedFieldsEntry b = a;
    b.apiVersion = "v2";
    QVERIFY(!a.sameIdentity(b));
    a.operation = b.operation = ManagedOperation::Apply;
    QVERIFY(a.sameIdentity(b));
}

void TestFieldsV1::malformedEntryNamesTheEntryAndPath()
{
    auto obj = parseJson(R"({"metadata":{"managedFields":[
        {"manager":"a","operation":"Apply","fieldsV1":{}},
        {"manager":"b","operation":"Update","fieldsV1":{"f:spec":{"f:x":"oops"}}}]}})");
    QVERIFY(obj.ok());
    auto entries = parseManagedFields(*obj);
    QVERIFY(!entries.ok());
    QCOMPARE(entries.error().category, ErrorCategory::Parse);
    QCOMPARE(QString::fromStdString(entries.error().where),
             QStringLiteral("metadata.managedFields[1].fieldsV1 at .spec.x"));

    auto badOp = parseJson(R"({"metadata":{"managedFields":[{"manager":"a","operation":"Patch"}]}})");
    QVERIFY(badOp.ok());
    QVERIFY(!parseManagedFields(*badOp).ok());
}

void TestFieldsV1::rfc3339Times_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("seconds");
    QTest::newRow("utc") << "1970-01-01T00:00:00Z" << qint64(0);
    QTest::newRow("fraction") << "1970-01-01T00:01:00.123456Z" << qint64(60);
    QTest::newRow("offset") << "1970-01-01T01:00:00+01:00" << qint64(0);
    QTest::newRow("garbage") << "yesterday" << qint64(-1);
    QTest::newRow("bad month") << "2026-13-01T00:00:00Z" << qint64(-1);
}

void TestFieldsV1::rfc3339Times()
{
    QFETCH(QString, text);
    QFETCH(qint64, seconds);
    auto t = parseRfc3339(text.toStdString());
    QCOMPARE(t ? qint64(*t) : qint64(-1), seconds);
}

QTEST_GUILESS_MAIN(TestFieldsV1)
#include "tst_fieldsv1.moc"
