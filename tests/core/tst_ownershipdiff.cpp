// core::ownershipDiff: what a write did to one manager's fields, from managedFields
// before and after (a dry-run answer gives "after" without storing anything).
#include "core/ownership/ownershipdiff.h"

#include <QTest>

using namespace fieldscope::core;

namespace {

Json entry(const char *manager, const char *operation, Json fields)
{
    return {{"manager", manager},       {"operation", operation},        {"apiVersion", "v1"},
            {"fieldsType", "FieldsV1"}, {"fieldsV1", std::move(fields)}, {"time", "2026-11-24T10:00:00Z"}};
}

Json cm(Json data, Json managedFields)
{
    return {{"apiVersion", "v1"},
            {"kind", "ConfigMap"},
            {"metadata", {{"name", "c"}, {"managedFields", std::move(managedFields)}}},
            {"data", std::move(data)}};
}

Json fields(std::initializer_list<const char *> keys)
{
    Json data = Json::object();
    for (const char *k : keys)
        data[std::string("f:") + k] = Json::object();
    return {{"f:data", data}};
}

} // namespace

class TestOwnershipDiff : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void gainedTakenAndReleasedFieldsAreToldApart()
    {
        const Json before = cm({{"color", "blue"}, {"size", "s"}, {"old", "x"}, {"shared", "y"}},
                               Json::array({entry("alice", "Apply", fields({"color", "shared"})),
                                            entry("bob", "Apply", fields({"size", "old", "shared"}))}));
        // bob applies {color: red, new: z, shared: y} with force: takes color from alice, gains new,
        // drops size and old (removed: nobody else owned them) and keeps co-owning shared.
        const Json after = cm({{"color", "red"}, {"new", "z"}, {"shared", "y"}},
                              Json::array({entry("alice", "Apply", fields({"shared"})),
                                           entry("bob", "Apply", fields({"color", "new", "shared"}))}));
        auto d = ownershipDiff(before, after, "bob");
        QVERIFY(d.ok());
        QCOMPARE(d->gained, std::vector<std::string>{".data.new"});
        QCOMPARE(d->taken.size(), std::size_t(1));
        QCOMPARE(d->taken[0].path, std::string(".data.color"));
        QCOMPARE(d->taken[0].others.at(0).manager, std::string("alice"));
        QCOMPARE(d->released.size(), std::size_t(2));
        for (const OwnershipMove &r : d->released)
            QVERIFY(!r.present);
        const auto lines = d->describe("bob");
        QVERIFY(std::find(lines.begin(), lines.end(), "bob takes .data.color from alice (Apply)") != lines.end());
        QVERIFY(std::find(lines.begin(), lines.end(), "bob releases .data.old: nobody else owns it, so it is removed")
                != lines.end());
    }

    void aReleasedFieldAnotherManagerOwnsStays()
    {
        const Json before = cm({{"shared", "y"}}, Json::array({entry("alice", "Apply", fields({"shared"})),
                                                               entry("bob", "Apply", fields({"shared"}))}));
        const Json after = cm({{"shared", "y"}}, Json::array({entry("alice", "Apply", fields({"shared"}))}));
        auto d = ownershipDiff(before, after, "bob");
        QVERIFY(d.ok());
        QCOMPARE(d->released.size(), std::size_t(1));
        QVERIFY(d->released[0].present);
        QCOMPARE(d->released[0].others.at(0).manager, std::string("alice"));
        QCOMPARE(d->describe("bob").at(0), std::string("bob releases .data.shared: it stays, owned by alice (Apply)"));
        QVERIFY(ownershipDiff(before, before, "bob")->empty());
    }

    void undecodableManagedFieldsAreAnError()
    {
        const Json bad = cm(
            {{"a", "1"}}, Json::array({Json{{"manager", "x"}, {"operation", "Apply"}, {"fieldsV1", "not an object"}}}));
        QVERIFY(!ownershipDiff(bad, bad, "x").ok());
    }
};

QTEST_GUILESS_MAIN(TestOwnershipDiff)
#include "tst_ownershipdiff.moc"
