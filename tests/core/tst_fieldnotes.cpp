// Where the server's words point in the user's YAML (core/edit/fieldnotes.h): the field paths of
// field-validation warnings and refusals as kube-apiserver 1.37 words them (create/update:
// `unknown field "..."`, `duplicate field "..."`; server-side apply: `.path: field not declared in
// schema`), 422 causes' `field` in the apimachinery path syntax, and the YAML line each names.
#include "core/edit/fieldnotes.h"

#include <QTest>

using namespace fieldscope::core;

namespace {
const char *const kConfigMap = "apiVersion: v1\n"         // 1
                               "kind: ConfigMap\n"        // 2
                               "metadata:\n"              // 3
                               "  name: a\n"              // 4
                               "  labels:\n"              // 5
                               "    app.k8s.io/x: y\n"    // 6
                               "data:\n"                  // 7
                               "  a.b: one\n"             // 8
                               "spec:\n"                  // 9
                               "  containers:\n"          // 10
                               "  - name: c\n"            // 11
                               "    image: nginx\n"       // 12
                               "    imagePulPolicy: x\n"; // 13
// Server-side apply names list items by their keys (structured-merge-diff paths).
const char *const kPod = "apiVersion: v1\n"          // 1
                         "kind: Pod\n"               // 2
                         "metadata:\n"               // 3
                         "  name: p\n"               // 4
                         "  finalizers:\n"           // 5
                         "  - a\n"                   // 6
                         "  - b/c\n"                 // 7
                         "spec:\n"                   // 8
                         "  containers:\n"           // 9
                         "  - name: sidecar\n"       // 10
                         "    image: busybox\n"      // 11
                         "  - name: web\n"           // 12
                         "    image: nginx\n"        // 13
                         "    imagePulPolcy: x\n"    // 14
                         "    ports:\n"              // 15
                         "    - containerPort: 80\n" // 16
                         "      protocol: UDP\n"     // 17
                         "    - containerPort: 80\n" // 18
                         "      protocol: TCP\n"     // 19
                         "      nam: http\n";        // 20
const char *const kSsaContainer = ".spec.containers[name=\"web\"].imagePulPolcy: field not declared in schema";
const char *const kSsaPort =
    "failed to create typed patch object: .spec.containers[name=\"web\"].ports[containerPort=80,protocol=\"TCP\"].nam: "
    "field not declared in schema";
const char *const kContainerPath = "spec.containers[name=\"web\"].imagePulPolcy";
const char *const kPortPath = "spec.containers[name=\"web\"].ports[containerPort=80,protocol=\"TCP\"].nam";
const char *const kFinalizerPath = "metadata.finalizers[=\"b/c\"]";
const char *const kGonePath = "spec.containers[name=\"gone\"].image";
} // namespace

class TestFieldNotes : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void strictDecodingMessagesNameEveryField()
    {
        const auto paths = fieldPathsInMessage(
            "strict decoding error: unknown field \"spec.containers[0].imagePulPolicy\", unknown field \"spec.foo\", duplicate field \"data.a\"");
        QCOMPARE(paths.size(), std::size_t(3));
        QCOMPARE(QString::fromStdString(paths[0]), QStringLiteral("data.a"));
        QCOMPARE(QString::fromStdString(paths[1]), QStringLiteral("spec.containers[0].imagePulPolicy"));
        QCOMPARE(QString::fromStdString(paths[2]), QStringLiteral("spec.foo"));
    }

    void serverSideApplyMessagesNameTheFieldWithALeadingDot()
    {
        const auto paths = fieldPathsInMessage(".spec.foo: field not declared in schema");
        QCOMPARE(paths.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(paths[0]), QStringLiteral("spec.foo"));
    }

    void messagesWithoutAFieldNameNone()
    {
        QVERIFY(fieldPathsInMessage("ValidatingAdmissionPolicy 'p' with binding 'b' denied request: no").empty());
        QVERIFY(fieldPathsInMessage("apps/v1beta1 Deployment is deprecated").empty());
        QVERIFY(fieldPathsInMessage("unknown field \"\"").empty());
        QVERIFY(fieldPathsInMessage("unknown field \"unterminated").empty());
    }

    void fieldPathsBecomeJsonPointers_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("pointer");
        QTest::newRow("dotted") << "spec.replicas"
                                << "/spec/replicas";
        QTest::newRow("index") << "spec.containers[0].image"
                               << "/spec/containers/0/image";
        QTest::newRow("key with dots") << "data[a.b]"
                                       << "/data/a.b";
        QTest::newRow("key with slash") << "metadata.labels[app.k8s.io/x]"
                                        << "/metadata/labels/app.k8s.io~1x";
        QTest::newRow("tilde") << "data[a~b]"
                               << "/data/a~0b";
        QTest::newRow("leading dot") << ".spec.foo"
                                     << "/spec/foo";
        QTest::newRow("unclosed bracket") << "data[a"
                                          << "/data/a";
    }
    void fieldPathsBecomeJsonPointers()
    {
        QFETCH(QString, path);
        QFETCH(QString, pointer);
        QCOMPARE(QString::fromStdString(pointerOfFieldPath(path.toStdString())), pointer);
    }

    void aFieldIsFoundOnItsLineAndAnAbsentOneOnItsParents()
    {
        YamlLineMap lines;
        QVERIFY(yamlToJsonWithLines(kConfigMap, lines));
        auto at = lineOfFieldPath(lines, "spec.containers[0].imagePulPolicy");
        QVERIFY(at);
        QCOMPARE(at->line, 13);
        QVERIFY(at->exact);
        at = lineOfFieldPath(lines, "metadata.labels[app.k8s.io/x]");
        QVERIFY(at && at->exact);
        QCOMPARE(at->line, 6);
        at = lineOfFieldPath(lines, "data[a.b]");
        QVERIFY(at && at->exact);
        QCOMPARE(at->line, 8);
        // The server names a field the text does not hold (defaulted, or in a nested default):
        // its nearest parent, marked as not exact.
        at = lineOfFieldPath(lines, "spec.containers[0].resources.limits");
        QVERIFY(at);
        QCOMPARE(at->line, 11);
        QVERIFY(!at->exact);
        QVERIFY(!lineOfFieldPath(lines, "status.phase"));
    }

    void serverSideApplyPathsKeepTheirListItemKeys()
    {
        auto paths = fieldPathsInMessage(kSsaContainer);
        QCOMPARE(paths.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(paths[0]), QString::fromLatin1(kContainerPath));
        paths = fieldPathsInMessage(kSsaPort);
        QCOMPARE(paths.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(paths[0]), QString::fromLatin1(kPortPath));
    }

    void listItemsNamedByTheirKeysAreFoundInTheDocument()
    {
        YamlLineMap lines;
        auto parsed = yamlToJsonWithLines(kPod, lines);
        QVERIFY(parsed);
        const Json *doc = &parsed->value;
        QCOMPARE(QString::fromStdString(pointerOfFieldPath(kContainerPath, doc)),
                 QStringLiteral("/spec/containers/1/imagePulPolcy"));
        auto at = lineOfFieldPath(lines, kContainerPath, doc);
        QVERIFY(at && at->exact);
        QCOMPARE(at->line, 14);
        at = lineOfFieldPath(lines, kPortPath, doc); // two keys, the second port
        QVERIFY(at && at->exact);
        QCOMPARE(at->line, 20);
        at = lineOfFieldPath(lines, kFinalizerPath, doc); // a set's value
        QVERIFY(at && at->exact);
        QCOMPARE(at->line, 7);
        // An item the text does not have, or no document to look in: the list's own line.
        at = lineOfFieldPath(lines, kGonePath, doc);
        QVERIFY(at && !at->exact);
        QCOMPARE(at->line, 9);
        at = lineOfFieldPath(lines, kContainerPath);
        QVERIFY(at && !at->exact);
        QCOMPARE(at->line, 9);
    }

    void aServerSideApplyRefusalIsNotedOnTheLineOfTheItemsField()
    {
        const auto notes = lineNotes(kPod, {kSsaContainer, kSsaPort});
        QCOMPARE(notes.size(), std::size_t(2));
        QCOMPARE(notes[0].line, 14);
        QCOMPARE(notes[1].line, 20);
    }

    void notesTieWarningsAndCausesToLinesInOrder()
    {
        const auto notes = lineNotes(kConfigMap,
                                     {"unknown field \"spec.containers[0].imagePulPolicy\"", "no field here"},
                                     {{"metadata.labels[app.k8s.io/x]", "name part must be ..."},
                                      {"", "whole object"}});
        QCOMPARE(notes.size(), std::size_t(2));
        QCOMPARE(notes[0].line, 6);
        QCOMPARE(QString::fromStdString(notes[0].message), QStringLiteral("name part must be ..."));
        QCOMPARE(notes[1].line, 13);
        QVERIFY(lineNotes("a: [unclosed", {"unknown field \"a\""}).empty());
    }
};

QTEST_GUILESS_MAIN(TestFieldNotes)
#include "tst_fieldnotes.moc"
