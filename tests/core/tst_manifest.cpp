// core::manifestObjects: the objects of a file as people have them.
#include "core/yaml/manifest.h"

#include <QTest>

using namespace fieldscope::core;

class TestManifest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void oneObjectIsSingle()
    {
        auto r = manifestObjects("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n");
        QVERIFY(r.ok());
        QVERIFY(r->single);
        QCOMPARE(r->objects.size(), std::size_t(1));
    }

    void aStreamSkipsEmptyDocumentsAndKeepsOrder()
    {
        auto r = manifestObjects("---\nkind: A\nmetadata: {name: a}\n---\n---\nkind: B\nmetadata: {name: b}\n...\n");
        QVERIFY(r.ok());
        QVERIFY(!r->single);
        QCOMPARE(r->objects.size(), std::size_t(2));
        QCOMPARE(r->objects[1]["kind"].get<std::string>(), std::string("B"));
    }

    void listsAreFlattenedAndTypedListItemsGetTheirKind()
    {
        auto r =
            manifestObjects(R"({"apiVersion":"apps/v1","kind":"DeploymentList","items":[{"metadata":{"name":"a"}},)"
                            R"({"kind":"Deployment","apiVersion":"apps/v1beta2","metadata":{"name":"b"}}]})");
        QVERIFY(r.ok());
        QVERIFY(!r->single); // a list is never "one object", even with one item
        QCOMPARE(r->objects.size(), std::size_t(2));
        QCOMPARE(r->objects[0]["kind"].get<std::string>(), std::string("Deployment"));
        QCOMPARE(r->objects[0]["apiVersion"].get<std::string>(), std::string("apps/v1"));
        QCOMPARE(r->objects[1]["apiVersion"].get<std::string>(), std::string("apps/v1beta2")); // its own wins
        auto nested =
            manifestObjects("kind: List\nitems:\n- kind: List\n  items:\n  - {kind: A, metadata: {name: x}}\n");
        QVERIFY(nested.ok());
        QCOMPARE(nested->objects.size(), std::size_t(1));
    }

    void whatIsNotAnObjectIsAnErrorNamingIt_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("where");
        QTest::addColumn<QString>("message");
        QTest::newRow("second document a scalar")
            << QStringLiteral("kind: A\n---\n42\n") << QStringLiteral("document 2") << QStringLiteral("a mapping");
        QTest::newRow("list item a string")
            << QStringLiteral("kind: List\nitems: [x]\n") << QStringLiteral("items[0]") << QStringLiteral("a mapping");
        QTest::newRow("items not a list") << QStringLiteral("kind: PodList\nitems: {a: 1}\n") << QStringLiteral("items")
                                          << QStringLiteral("must be a list");
        QTest::newRow("empty file") << QString() << QString() << QStringLiteral("empty");
        QTest::newRow("empty list") << QStringLiteral("kind: List\nitems: []\n") << QString()
                                    << QStringLiteral("no items");
    }
    void whatIsNotAnObjectIsAnErrorNamingIt()
    {
        QFETCH(QString, text);
        QFETCH(QString, where);
        QFETCH(QString, message);
        auto r = manifestObjects(text.toStdString());
        QVERIFY(!r.ok());
        QCOMPARE(r.error().category, ErrorCategory::Parse);
        QVERIFY2(QString::fromStdString(r.error().where).contains(where), r.error().where.c_str());
        QVERIFY2(QString::fromStdString(r.error().message).contains(message), r.error().message.c_str());
    }

    void identityNamesKindNamespaceAndName()
    {
        const Json id = manifestIdentity(
            parseJson(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","namespace":"n"}})").value());
        QCOMPARE(id["namespace"].get<std::string>(), std::string("n"));
        QCOMPARE(id["name"].get<std::string>(), std::string("s"));
        QVERIFY(!manifestIdentity(parseJson(R"({"kind":"Namespace","metadata":{"name":"x"}})").value())
                     .contains("namespace"));
    }
};

QTEST_GUILESS_MAIN(TestManifest)
#include "tst_manifest.moc"
