// core::Json: the indexed, order-keeping object type, the depth limit every parser and walker
// shares, and JSON text that never throws on invalid UTF-8.
#include "core/base/json.h"
#include "core/base/jsonread.h"

#include <QTest>

#include <map>
#include <random>

using namespace fieldscope::core;

namespace {

std::string nested(int depth, const std::string &innermost = "1")
{
    return std::string(std::size_t(depth), '[') + innermost + std::string(std::size_t(depth), ']');
}

// A value `depth` arrays deep, built without recursion (nlohmann's own copy is recursive).
Json nestedValue(int depth)
{
    Json v = 1;
    for (int i = 0; i < depth; ++i) {
        Json outer = Json::array();
        outer.push_back(std::move(v));
        v = std::move(outer);
    }
    return v;
}

std::vector<std::string> keysOf(const Json &o)
{
    std::vector<std::string> out;
    for (auto it = o.begin(); it != o.end(); ++it)
        out.push_back(it.key());
    return out;
}

} // namespace

class TestJson : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Single reads of server answers: a wrong type is "not there", never an exception.
    void stringAtAndBooleanAtNeverThrowOnWrongTypes()
    {
        const Json doc = *parseJson(
            R"({"metadata":{"resourceVersion":"12","name":7},"status":{"allowed":"yes","ok":true},"list":[1]})");
        QCOMPARE(*stringAt(doc, "/metadata/resourceVersion"), std::string("12"));
        QVERIFY(!stringAt(doc, "/metadata/name")); // a number
        QVERIFY(!stringAt(doc, "/metadata/missing"));
        QVERIFY(!stringAt(doc, "/list/0/x"));        // through a number
        QVERIFY(!stringAt(doc, "no-leading-slash")); // malformed pointer
        QVERIFY(!booleanAt(doc, "/status/allowed")); // a string
        QCOMPARE(*booleanAt(doc, "/status/ok"), true);
        QVERIFY(!stringAt(Json("text"), "/a"));
    }

    void objectsKeepTheInputKeyOrder()
    {
        std::string text = "{";
        for (int i = 0; i < 1000; ++i)
            text += (i ? ",\"" : "\"") + std::to_string((i * 7919) % 1000) + "\":" + std::to_string(i);
        text += "}";
        auto j = parseJson(text);
        QVERIFY(j.ok());
        const auto keys = keysOf(*j);
        QCOMPARE(keys.size(), std::size_t(1000));
        for (int i = 0; i < 1000; ++i) {
            QCOMPARE(keys[std::size_t(i)], std::to_string((i * 7919) % 1000));
            QCOMPARE((*j)[std::to_string((i * 7919) % 1000)].get<int>(), i);
        }
        QCOMPARE(toJsonText(*j), text);
    }

    void duplicateKeysKeepTheFirstPositionAndTheLastValue()
    {
        // As nlohmann::ordered_json did: the server's own decoder takes the last value too.
        std::string text = "{";
        for (int i = 0; i < 40; ++i)
            text += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
        text += "\"k3\":\"again\"}";
        auto j = parseJson(text);
        QVERIFY(j.ok());
        QCOMPARE(j->size(), std::size_t(40));
        QCOMPARE(keysOf(*j)[3], std::string("k3"));
        QCOMPARE((*j)["k3"].get<std::string>(), std::string("again"));
    }

    // Every operation basic_json performs on its objects, checked against a simple model through
    // the index's thresholds (growth, erase from the middle, shrinking below the index size).
    void indexedObjectsBehaveLikeAnOrderedMap()
    {
        std::mt19937 rng(15);
        Json obj = Json::object();
        std::vector<std::pair<std::string, int>> model;
        auto modelFind = [&](const std::string &k) {
            return std::find_if(model.begin(), model.end(), [&](const auto &p) { return p.first == k; });
        };
        for (int step = 0; step < 20000; ++step) {
            const std::string key = "key-" + std::to_string(rng() % 300);
            switch (rng() % 6) {
            case 0:
            case 1:
            case 2: { // insert or assign
                obj[key] = step;
                auto it = modelFind(key);
                if (it == model.end())
                    model.emplace_back(key, step);
                else
                    it->second = step;
                break;
            }
            case 3: { // erase by key
                const auto n = obj.erase(key);
                auto it = modelFind(key);
                QCOMPARE(n, std::size_t(it != model.end() ? 1 : 0));
                if (it != model.end())
                    model.erase(it);
                break;
            }
            case 4: { // erase by iterator
                if (model.empty())
                    break;
                const std::size_t at = rng() % model.size();
                obj.erase(std::next(obj.begin(), std::ptrdiff_t(at)));
                model.erase(model.begin() + std::ptrdiff_t(at));
                break;
            }
            default: { // lookups, with std::string and string_view keys
                const bool present = modelFind(key) != model.end();
                QCOMPARE(obj.contains(key), present);
                QCOMPARE(obj.contains(std::string_view(key)), present);
                QCOMPARE(obj.count(key), std::size_t(present ? 1 : 0));
                if (present)
                    QCOMPARE(obj.at(key).get<int>(), modelFind(key)->second);
            }
            }
            if (step % 97 == 0) {
                QCOMPARE(obj.size(), model.size());
                std::size_t i = 0;
                for (auto it = obj.begin(); it != obj.end(); ++it, ++i) {
                    QCOMPARE(it.key(), model[i].first);
                    QCOMPARE(it.value().get<int>(), model[i].second);
                    QVERIFY(obj.find(model[i].first) == it); // the index points at the right slot
                }
                if (step % 3 == 0) { // copies carry a working index
                    Json copy = obj;
                    for (const auto &[k, v] : model)
                        QCOMPARE(copy.at(k).get<int>(), v);
                    obj = std::move(copy);
                }
            }
        }
        // Range erase, range insert and update keep the order rules of ordered_json.
        Json other = Json::object();
        for (int i = 0; i < 50; ++i)
            other["o" + std::to_string(i)] = i;
        obj.update(other);
        QCOMPARE(obj.at("o49").get<int>(), 49);
        other.erase(std::next(other.begin(), 5), std::next(other.begin(), 45));
        QVERIFY(keysOf(other)
                == (std::vector<std::string>{"o0", "o1", "o2", "o3", "o4", "o45", "o46", "o47", "o48", "o49"}));
        QVERIFY(other.contains("o47") && !other.contains("o10"));
    }

    void objectComparisonIsOrderSensitiveAsBefore()
    {
        // basic_json's == keeps ordered_json's meaning; jsonEqual is the order-blind comparison.
        const Json a = parseJson(R"({"x":1,"y":2})").value(), b = parseJson(R"({"y":2,"x":1})").value();
        QVERIFY(a != b);
        QVERIFY(jsonEqual(a, b));
        QVERIFY(a == parseJson(R"({"x":1,"y":2})").value());
    }

    void parseJsonAcceptsTheDepthLimitAndRefusesOneMore()
    {
        QVERIFY(parseJson(nested(kMaxJsonDepth)).ok());
        auto r = parseJson(nested(kMaxJsonDepth + 1));
        QVERIFY(!r.ok());
        QCOMPARE(r.error().category, ErrorCategory::Parse);
        QVERIFY2(QString::fromStdString(r.error().message).contains(QLatin1String("deeper than 512")),
                 r.error().message.c_str());
        QCOMPARE(r.error().where, std::string("byte 513"));
        // Brackets inside strings are text, not nesting.
        QVERIFY(parseJson("[\"" + std::string(5000, '[') + "\"]").ok());
        // Objects count like arrays.
        std::string objects;
        for (int i = 0; i < kMaxJsonDepth + 1; ++i)
            objects += "{\"a\":";
        objects += "1" + std::string(std::size_t(kMaxJsonDepth + 1), '}');
        QVERIFY(!parseJson(objects).ok());
    }

    void invalidUtf8IsAParseErrorWithItsByteOffset()
    {
        auto r = parseJson("{\"a\":\"ok\",\"b\":\"\xff\"}");
        QVERIFY(!r.ok());
        QCOMPARE(r.error().category, ErrorCategory::Parse);
        QVERIFY2(QString::fromStdString(r.error().where).startsWith(QLatin1String("byte ")), r.error().where.c_str());
    }

    // nlohmann reads a NUL byte as the end of the text: `{"a":1}` then NUL then anything was read
    // as {"a":1}, the rest dropped without a word (found by fuzz/fuzz_json_index). JSON never
    // holds a raw NUL (in a string it must be escaped), so the text is refused where it is.
    void aNulByteIsAParseErrorNotTheEndOfTheText()
    {
        for (const std::string &text :
             {std::string("{\"a\":1}\0{\"b\":2}", 15), std::string("0\0\0\0\0", 5), std::string("[\"x\"]\0", 6)}) {
            auto r = parseJson(text);
            QVERIFY2(!r.ok(), text.c_str());
            QCOMPARE(r.error().category, ErrorCategory::Parse);
            QCOMPARE(QString::fromStdString(r.error().where), QStringLiteral("byte %1").arg(text.find('\0') + 1));
        }
        QVERIFY(parseJson("[\"\\u0000\"]").ok()); // an escaped NUL is a string's content
    }

    void jsonTextNeverThrowsOnInvalidUtf8()
    {
        Json j = Json::object();
        j["bad"] = std::string("a\xff\xfe"
                               "b");
        j["list"] = Json::array({std::string("\xc3")});
        std::string compact, pretty;
        try {
            compact = toJsonText(j);
            pretty = toJsonText(j, 2);
        } catch (const std::exception &e) {
            QFAIL(e.what());
        }
        QVERIFY(compact.find("\xef\xbf\xbd") != std::string::npos); // U+FFFD
        QVERIFY(pretty.find("\n  \"bad\"") != std::string::npos);
        QVERIFY(parseJson(pretty).ok()); // what we print is valid JSON again
    }

    void checkJsonDepthNamesWhereTheLimitWasPassed()
    {
        QVERIFY(checkJsonDepth(nestedValue(kMaxJsonDepth), "x").ok());
        auto r = checkJsonDepth(nestedValue(kMaxJsonDepth + 1), "the object");
        QVERIFY(!r.ok());
        QCOMPARE(r.error().category, ErrorCategory::Parse);
        QVERIFY(QString::fromStdString(r.error().message)
                    .startsWith(QLatin1String("the object is nested deeper than 512")));
        QVERIFY(QString::fromStdString(r.error().where).startsWith(QLatin1String("/0/0/0/")));
        Json o = Json::object();
        o["a/b"] = nestedValue(3);
        auto shallow = checkJsonDepth(o, "o", 3);
        QVERIFY(!shallow.ok());
        QCOMPARE(shallow.error().where, std::string("/a~1b/0/0"));
        QCOMPARE(jsonDepth(o), std::size_t(4));
        QCOMPARE(jsonDepth(Json(5)), std::size_t(0));
        QCOMPARE(jsonDepth(Json::array()), std::size_t(1));
    }

    void jsonEqualHasNoDepthLimit()
    {
        // Iterative: far deeper than any parser lets in, and still exact.
        const Json a = nestedValue(100'000), b = nestedValue(100'000);
        QVERIFY(jsonEqual(a, b));
        Json c = nestedValue(100'000);
        Json *leaf = &c;
        while (leaf->is_array())
            leaf = &(*leaf)[0];
        *leaf = 2;
        QVERIFY(!jsonEqual(a, c));
    }

    void jsonEqualKeepsKubernetesNumberSemantics()
    {
        QVERIFY(jsonEqual(parseJson(R"({"a":[80,{"b":1}]})").value(), parseJson(R"({"a":[80.0,{"b":1.0}]})").value()));
        QVERIFY(!jsonEqual(parseJson(R"({"a":[80]})").value(), parseJson(R"({"a":["80"]})").value()));
        QVERIFY(!jsonEqual(parseJson(R"({"a":1})").value(), parseJson(R"({"a":1,"b":2})").value()));
        QVERIFY(!jsonEqual(parseJson(R"({"a":1})").value(), parseJson(R"({"b":1})").value()));
        QVERIFY(jsonEqual(Json(), Json()));
    }
};

QTEST_GUILESS_MAIN(TestJson)
#include "tst_json.moc"
