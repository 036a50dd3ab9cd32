// The indexed audit decoders (core/audit/auditevent_p.h) against the DOM decoders they replace on
// the hot path: for every hostile input (each member of each type, escapes, unicode, huge strings,
// repeated keys, bodies cut or changed at every byte) the public functions give exactly what the
// DOM path gives: the same events, skips, problems and errors.
#include "core/audit/auditevent_p.h"

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

// Every member decodeAuditEvent reads, each present: a refused write's Status answer.
const char *kFull =
    "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"RequestResponse\",\"auditID\":\"id-1\","
    "\"stage\":\"ResponseComplete\",\"requestURI\":\"/api/v1/namespaces/a/configmaps/x?fieldManager=m\","
    "\"verb\":\"patch\",\"user\":{\"username\":\"alice\",\"uid\":\"u-1\",\"groups\":[\"dev\",\"ops\"]},"
    "\"impersonatedUser\":{\"username\":\"bob\",\"uid\":\"u-2\",\"groups\":[\"x\"]},"
    "\"sourceIPs\":[\"10.0.0.1\",\"::1\"],\"userAgent\":\"kubectl/v1.30.0 (linux/amd64)\","
    "\"objectRef\":{\"resource\":\"configmaps\",\"namespace\":\"a\",\"name\":\"x\",\"apiGroup\":\"\","
    "\"apiVersion\":\"v1\",\"uid\":\"u-9\",\"resourceVersion\":\"7\",\"subresource\":\"status\"},"
    "\"responseStatus\":{\"metadata\":{},\"code\":409,\"reason\":\"Conflict\",\"message\":\"\"},"
    "\"responseObject\":{\"kind\":\"Status\",\"message\":\"the object has been modified\","
    "\"details\":{\"uid\":\"u-9\",\"name\":\"x\"},\"metadata\":{\"resourceVersion\":\"8\",\"uid\":\"\","
    "\"managedFields\":[{\"manager\":\"m\",\"operation\":\"Update\",\"subresource\":\"\","
    "\"time\":\"2026-11-30T10:00:00Z\",\"fieldsV1\":{\"f:data\":{}}}]}},"
    "\"requestReceivedTimestamp\":\"2026-11-30T10:00:00.000001Z\","
    "\"stageTimestamp\":\"2026-11-30T10:00:00.004000Z\",\"annotations\":{\"a\":\"b\"}}";

// Values put in place of each member in turn: every JSON type, numbers nlohmann stores in each
// of its ways, escapes and non-ASCII text.
const std::vector<std::string> kHostileValues = {"null",
                                                 "0",
                                                 "-0",
                                                 "-1",
                                                 "1.5",
                                                 "2e2",
                                                 "200",
                                                 "1000",
                                                 "9223372036854775807",
                                                 "9223372036854775808",
                                                 "-9223372036854775809",
                                                 "18446744073709551616",
                                                 "true",
                                                 "\"\"",
                                                 "\"x\"",
                                                 "\"\\u00e9\\ud83d\\ude00\\n\\\"\\\\\\/\\u0000\"",
                                                 "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"",
                                                 "[]",
                                                 "[\"a\",null]",
                                                 "[\"a\",\"b\"]",
                                                 "[{}]",
                                                 "[{\"manager\":1}]",
                                                 "{}",
                                                 "{\"uid\":\"u\",\"kind\":\"Status\"}"};

// JSON Pointers of every value in `doc`.
void pointers(const Json &doc, const std::string &at, std::vector<std::string> &out)
{
    out.push_back(at);
    if (doc.is_object())
        for (auto it = doc.begin(); it != doc.end(); ++it)
            pointers(it.value(), at + "/" + jsonPointerEscape(it.key()), out);
    else if (doc.is_array())
        for (std::size_t i = 0; i < doc.size(); ++i)
            pointers(doc[i], at + "/" + std::to_string(i), out);
}

// The public decoder equals the DOM decoder on `text`. Returns whether the indexed path decoded
// it itself (rather than leaving it to the DOM), so a test can show it was exercised.
bool sameAsDom(const std::string &text, bool inList)
{
    const auto dom = decodeAuditEventTextDom(text, "line 3", inList);
    const auto got = decodeAuditEventText(text, "line 3", inList);
    const std::string shown = text.substr(0, 300);
    if (dom.ok() != got.ok())
        qFatal("ok differs (DOM %d) for %s", int(dom.ok()), shown.c_str());
    if (dom.ok() && !(*dom == *got))
        qFatal("event differs for %s", shown.c_str());
    if (!dom.ok()
        && (dom.error().message != got.error().message || dom.error().where != got.error().where
            || dom.error().category != got.error().category))
        qFatal("error differs: %s / %s", dom.error().message.c_str(), got.error().message.c_str());
    JsonIndex index;
    return text.size() <= kMaxAuditEventBytes && index.build(text) == JsonIndex::Status::Ok
        && decodeIndexedAuditEvent(index, inList).has_value();
}

bool sameResult(const Result<AuditDecodeResult> &a, const Result<AuditDecodeResult> &b)
{
    if (a.ok() != b.ok())
        return false;
    if (!a.ok())
        return a.error().message == b.error().message && a.error().where == b.error().where;
    return a->events == b->events && a->skipped == b->skipped && a->tooLarge == b->tooLarge
        && a->problems == b->problems;
}

void listSameAsDom(const std::string &body)
{
    if (!sameResult(decodeAuditEventList(body), decodeAuditEventListDom(body)))
        qFatal("EventList result differs for %s", body.c_str());
}

std::string eventList(const std::vector<std::string> &items, const std::string &head = "\"metadata\":{},")
{
    std::string body = "{\"kind\":\"EventList\",\"apiVersion\":\"audit.k8s.io/v1\"," + head + "\"items\":[";
    for (std::size_t i = 0; i < items.size(); ++i)
        body += (i ? "," : "") + items[i];
    return body + "]}";
}

// kFull without kind and apiVersion, as the API server writes an EventList's items.
std::string listItem()
{
    Json item = parseJson(kFull).value();
    item.erase("kind");
    item.erase("apiVersion");
    return toJsonText(item);
}

} // namespace

class TestAuditEventIndex : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void recordedEventsDecodeOnTheIndexedPathAsThroughTheDom()
    {
        for (const char *file : {"rr-audit.log", "md-audit.log"})
            for (const std::string &line : lines(readData(file)))
                QVERIFY2(sameAsDom(line, false), line.substr(0, 200).c_str());
        QVERIFY(sameAsDom(kFull, false));
        QVERIFY(sameAsDom(listItem(), true));
    }

    // Each member (and each element and member below it) replaced by each hostile value: the
    // indexed path decodes only what the DOM decodes, and to the same event.
    void everyMemberOfEveryTypeDecodesAsThroughTheDom()
    {
        const Json full = parseJson(kFull).value();
        std::vector<std::string> at;
        pointers(full, "", at);
        int indexed = 0, cases = 0;
        for (const bool inList : {false, true})
            for (const std::string &pointer : at)
                for (const std::string &value : kHostileValues) {
                    Json doc = full;
                    if (inList) {
                        doc.erase("kind");
                        doc.erase("apiVersion");
                    }
                    if (pointer.empty() || (inList && !doc.contains(Json::json_pointer(pointer))))
                        continue;
                    doc[Json::json_pointer(pointer)] = parseJson(value).value();
                    indexed += sameAsDom(toJsonText(doc), inList) ? 1 : 0;
                    ++cases;
                }
        // Most replacements keep a well-formed event (the indexed path's), many do not.
        QVERIFY2(indexed > cases / 4 && indexed < cases,
                 (std::to_string(indexed) + "/" + std::to_string(cases)).c_str());
    }

    void missingMembersDecodeAsThroughTheDom()
    {
        const Json full = parseJson(kFull).value();
        std::vector<std::string> at;
        pointers(full, "", at);
        for (const std::string &pointer : at) {
            if (pointer.empty())
                continue;
            Json doc = full;
            const auto slash = pointer.rfind('/');
            Json &parent = doc[Json::json_pointer(pointer.substr(0, slash))];
            const std::string last = jsonPointerUnescape(pointer.substr(slash + 1));
            if (parent.is_object())
                parent.erase(last);
            else
                parent.erase(std::size_t(std::stoul(last)));
            sameAsDom(toJsonText(doc), false);
        }
    }

    void textTheIndexDoesNotModelDecodesAsThroughTheDom_data()
    {
        QTest::addColumn<QByteArray>("text");
        const std::string full = kFull;
        const auto withUser = [&](const std::string &user) {
            std::string t = full;
            t.replace(t.find("\"alice\""), 7, user);
            return QByteArray::fromStdString(t);
        };
        QTest::newRow("byte order mark") << QByteArray::fromStdString("\xEF\xBB\xBF" + full);
        QTest::newRow("escaped key") << QByteArray::fromStdString(std::string(kFull).replace(full.find("\"user\""), 6,
                                                                                             "\"us\\u0065r\""));
        QTest::newRow("repeated member: the last wins")
            << QByteArray::fromStdString(full.substr(0, full.size() - 1) + ",\"auditID\":\"id-2\"}");
        QTest::newRow("repeated member of the wrong type")
            << QByteArray::fromStdString(full.substr(0, full.size() - 1) + ",\"verb\":5}");
        QTest::newRow("NUL escape") << withUser("\"a\\u0000b\"");
        QTest::newRow("surrogate pair") << withUser("\"\\ud83d\\ude00\"");
        QTest::newRow("lone high surrogate") << withUser("\"\\ud800\"");
        QTest::newRow("lone low surrogate") << withUser("\"\\udc00x\"");
        QTest::newRow("unknown escape") << withUser("\"\\x41\"");
        QTest::newRow("raw tab") << withUser("\"a\tb\"");
        QTest::newRow("overlong UTF-8") << withUser("\"\xC0\x80\"");
        QTest::newRow("UTF-8 cut short") << withUser("\"\xE2\x82\"");
        QTest::newRow("surrogate in UTF-8") << withUser("\"\xED\xA0\x80\"");
        QTest::newRow("0xFF byte") << withUser("\"\xFF\"");
        QTest::newRow("huge user") << withUser("\"" + std::string(900000, 'u') + "\"");
        QTest::newRow("message cut inside a character")
            << QByteArray::fromStdString(std::string(kFull).replace(full.find("\"the object has been modified\""), 30,
                                                                    "\"x" + std::string(4000, 'y')
                                                                        + std::string(100, '\0') + "\""));
        QTest::newRow("number overflowing a double")
            << QByteArray::fromStdString(std::string(kFull).replace(full.find("409"), 3, "1e400"));
        QTest::newRow("leading zero") << QByteArray::fromStdString(std::string(kFull).replace(full.find("409"), 3,
                                                                                              "0409"));
        QTest::newRow("spaces everywhere") << QByteArray::fromStdString(" \t\r\n" + full + " \n");
        QTest::newRow("two values") << QByteArray::fromStdString(full + full);
        QTest::newRow("trailing comma") << QByteArray::fromStdString(full.substr(0, full.size() - 1) + ",}");
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("null") << QByteArray("null");
        QTest::newRow("string") << QByteArray("\"Event\"");
        QTest::newRow("array") << QByteArray("[]");
        for (const int depth : {199, 200, 201, 511, 512, 513}) {
            const int arrays = depth - 2; // the event is depth 1, annotations 2
            std::string t = full;
            t.replace(t.find("{\"a\":\"b\"}"), 9,
                      "{\"a\":" + std::string(std::size_t(arrays), '[') + std::string(std::size_t(arrays), ']') + "}");
            QTest::newRow(("nesting " + std::to_string(depth)).c_str()) << QByteArray::fromStdString(t);
        }
    }
    void textTheIndexDoesNotModelDecodesAsThroughTheDom()
    {
        QFETCH(QByteArray, text);
        const std::string t = text.toStdString();
        sameAsDom(t, false);
        sameAsDom(t, true);
        listSameAsDom(eventList({t, listItem()}));
    }

    // A non-ASCII message is cut at a character boundary the same way on both paths.
    void longMessagesAreCutAtTheSameCharacter()
    {
        for (std::size_t pad = 4090; pad < 4100; ++pad) {
            std::string t = kFull;
            const std::string message = std::string(pad, 'm') + "\xe2\x82\xac\xf0\x9f\x98\x80";
            t.replace(t.find("\"the object has been modified\""), 30, "\"" + message + "\"");
            QVERIFY(sameAsDom(t, false));
            t.replace(t.find("\"message\":\"\""), 12, "\"message\":\"" + message + "\"");
            QVERIFY(sameAsDom(t, false));
        }
    }

    // An EventList cut, or changed by one byte, anywhere: the same events, skips or refusal.
    void eventListChangedAtAnyByteDecodesAsThroughTheDom()
    {
        const std::string item =
            "{\"auditID\":\"a\",\"stage\":\"ResponseComplete\",\"user\":{\"username\":\"\\u00e9\"}}";
        const std::string body = eventList({item, "{\"auditID\":\"b\",\"stage\":\"Panic\",\"verb\":[]}", item},
                                           "\"metadata\":{\"x\":\"]}\\\"[\"},");
        listSameAsDom(body);
        QCOMPARE(decodeAuditEventList(body)->events.size(), std::size_t(2));
        const std::vector<std::string> inserts = {
            ",", "\"", "]", "}", "[", "{", " ", ":", "\\", "x", "0", "null", "\xEF\xBB\xBF", "\xFF", "\"\":1,"};
        for (std::size_t at = 0; at <= body.size(); ++at) {
            listSameAsDom(body.substr(0, at));
            if (at < body.size())
                listSameAsDom(body.substr(0, at) + body.substr(at + 1));
            for (const std::string &insert : inserts)
                listSameAsDom(body.substr(0, at) + insert + body.substr(at));
        }
    }

    // nlohmann takes a NUL byte for the end of the text: an EventList followed by a NUL and
    // anything else was read as the list alone, on the DOM path the indexed one falls back to.
    void anEventListWithANulByteIsRefusedNotCutShort()
    {
        const std::string list = eventList({listItem()});
        for (const std::string &body : {list + std::string(1, '\0') + "{\"junk\":[", list + std::string(1, '\0')}) {
            auto decoded = decodeAuditEventList(body);
            QVERIFY(!decoded.ok());
            QCOMPARE(decoded.error().category, ErrorCategory::Parse);
            listSameAsDom(body);
        }
        QVERIFY(decodeAuditEventList(list).ok());
    }

    void eventListShapesDecodeAsThroughTheDom_data()
    {
        QTest::addColumn<QByteArray>("body");
        const std::string item = listItem();
        const std::string typedHead = "{\"kind\":\"EventList\",\"apiVersion\":\"audit.k8s.io/v1\",";
        auto b = [](const std::string &s) { return QByteArray::fromStdString(s); };
        QTest::newRow("recorded events") << b(eventList(lines(readData("rr-audit.log"))));
        QTest::newRow("items first, kind last")
            << b("{\"items\":[" + item + "],\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"EventList\"}");
        QTest::newRow("repeated items") << b(typedHead + "\"items\":[" + item + "],\"items\":[]}");
        QTest::newRow("repeated kind") << b(typedHead + "\"kind\":\"List\",\"items\":[]}");
        QTest::newRow("escaped kind key") << b("{\"ki\\u006ed\":\"EventList\",\"apiVersion\":\"audit.k8s.io/v1\"}");
        QTest::newRow("escaped kind value") << b("{\"kind\":\"Event\\u004cist\",\"apiVersion\":\"audit.k8s.io/v1\"}");
        QTest::newRow("kind is null") << b("{\"kind\":null,\"apiVersion\":\"audit.k8s.io/v1\",\"items\":[]}");
        QTest::newRow("items is a string") << b(typedHead + "\"items\":\"[]\"}");
        QTest::newRow("items is nullx") << b(typedHead + "\"items\":nullx}");
        QTest::newRow("metadata with a repeated key")
            << b(typedHead + "\"metadata\":{\"a\":1,\"a\":2},\"items\":[" + item + "]}");
        QTest::newRow("item with a repeated key") << b(typedHead + "\"items\":[{\"auditID\":\"a\",\"auditID\":\"b\","
                                                       + "\"stage\":\"ResponseComplete\"}," + item + "]}");
        QTest::newRow("scalar items") << b(typedHead + "\"items\":[1,true,null,\"x\",[]," + item + "]}");
        QTest::newRow("byte order mark before a value") << b(typedHead + "\"metadata\":\xEF\xBB\xBF{},\"items\":[]}");
        QTest::newRow("byte order mark before a string")
            << b(typedHead + "\"metadata\":\xEF\xBB\xBF\"x\",\"items\":[" + item + "]}");
        QTest::newRow("byte order mark before kind")
            << b("{\"kind\":\xEF\xBB\xBF\"EventList\",\"apiVersion\":\"audit.k8s.io/v1\"}");
        QTest::newRow("byte order mark before the body") << b("\xEF\xBB\xBF" + eventList({item}));
        QTest::newRow("deep metadata") << b(typedHead + "\"metadata\":" + std::string(300, '[') + std::string(300, ']')
                                            + ",\"items\":[" + item + "]}");
        QTest::newRow("item above the event limit") << b(eventList(
            {"{\"auditID\":\"a\",\"stage\":\"x\",\"pad\":\"" + std::string(kMaxAuditEventBytes, 'p') + "\"}", item}));
        QTest::newRow("string above the event limit")
            << b(eventList({item}, "\"metadata\":\"" + std::string(kMaxAuditEventBytes + 5, 'p') + "\","));
    }
    void eventListShapesDecodeAsThroughTheDom()
    {
        QFETCH(QByteArray, body);
        listSameAsDom(body.toStdString());
    }

    void eventListItemCountAtTheLimitAndPastItDecodesAsThroughTheDom()
    {
        const std::string item = "{\"auditID\":\"a\",\"stage\":\"ResponseComplete\"}";
        std::vector<std::string> items(kMaxAuditListItems, item);
        listSameAsDom(eventList(items));
        items.emplace_back("{}");
        listSameAsDom(eventList(items));
    }
};

QTEST_GUILESS_MAIN(TestAuditEventIndex)
#include "tst_auditeventindex.moc"
