#pragma once
// A large object with two managers (tests/core/tst_ownershiptree and bench/bench_ownership):
// KEYS data entries of VALUEBYTES each owned by "a" (Apply), and KEYS list items whose every
// other item (and its value) is owned by "b" (Update).
#include "core/base/json.h"

#include <string>

namespace fieldscope::testing {

inline core::Json bigConfigMapWithOwners(int keys, int valueBytes)
{
    using core::Json;
    Json obj = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "big"}}}};
    Json data = Json::object();
    Json owned = Json::object();
    const std::string value(std::size_t(valueBytes), 'x');
    for (int i = 0; i < keys; ++i) {
        const std::string k = "key-" + std::to_string(i);
        data[k] = value;
        owned["f:" + k] = Json::object();
    }
    obj["data"] = std::move(data);
    Json list = Json::array();
    for (int i = 0; i < keys; ++i)
        list.push_back({{"name", "item-" + std::to_string(i)}, {"value", i}});
    obj["spec"] = {{"containers", list}};
    Json ownedList = Json::object();
    for (int i = 0; i < keys; i += 2)
        ownedList[R"(k:{"name":"item-)" + std::to_string(i) + R"("})"] = {{".", Json::object()},
                                                                          {"f:value", Json::object()}};
    obj["metadata"]["managedFields"] = Json::array({
        {{"manager", "a"}, {"operation", "Apply"}, {"apiVersion", "v1"}, {"fieldsV1", {{"f:data", owned}}}},
        {{"manager", "b"},
         {"operation", "Update"},
         {"apiVersion", "v1"},
         {"fieldsV1", {{"f:spec", {{"f:containers", ownedList}}}}}},
    });
    return obj;
}

} // namespace fieldscope::testing
