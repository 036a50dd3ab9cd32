#pragma once
// Small typed reads shared by kube's simdjson (On-Demand) decoders: the LIST/WATCH decoder
// (listdecoder.cpp) and the Table decoder (tablefetcher.cpp). Private to fieldscope_kube, which
// links simdjson privately: include it from .cpp files only.
#include <simdjson.h>

#include <string>
#include <string_view>

namespace fieldscope::kube::detail {

// A string or null (null leaves `target` untouched: Kubernetes omits or nulls empty strings);
// anything else is INCORRECT_TYPE.
inline simdjson::error_code readString(simdjson::simdjson_result<simdjson::ondemand::value> value, std::string &target)
{
    simdjson::ondemand::value v;
    if (auto err = value.get(v))
        return err;
    bool isNull = false;
    if (!v.is_null().get(isNull) && isNull)
        return simdjson::SUCCESS;
    std::string_view s;
    if (auto err = v.get_string().get(s))
        return err;
    target = s;
    return simdjson::SUCCESS;
}

} // namespace fieldscope::kube::detail
