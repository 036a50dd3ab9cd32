#pragma once
// Three-way merge of an edit that went stale: what the user opened (base), what they
// wrote (mine) and what is there now (theirs). Changes that do not overlap merge by themselves,
// the user's on top of the current object; a field both sides changed differently is a conflict
// the user decides. Objects merge key by key; lists and scalars are values (a list changed on
// both sides is one conflict). Pure function; callable from any thread.
#include "core/base/json.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fieldscope::core {

struct MergeConflict {
    std::string pointer;                    // JSON Pointer of the field ("/data/foo")
    std::optional<Json> base, mine, theirs; // nullopt: absent on that side
};

struct ThreeWayMerge {
    Json merged;                          // theirs wherever there is a conflict
    std::vector<MergeConflict> conflicts; // in document order
    int mineApplied = 0;                  // fields where the user's change was taken
};

// A value nested deeper than kMaxJsonDepth is a Parse error.
Result<ThreeWayMerge> threeWayMerge(const Json &base, const Json &mine, const Json &theirs);

enum class MergeChoice { Theirs, Mine };
// The merge with each conflict resolved as `choices` says (by pointer; missing = theirs).
Json resolveMerge(const ThreeWayMerge &merge, const std::map<std::string, MergeChoice> &choices);

} // namespace fieldscope::core
