#pragma once
// Three-way merge of an edit that went stale: what the user opened (base), what they
// wrote (mine) and what is there now (theirs). Changes that do not overlap merge by themselves,
// the user's on top of the current object; a field both sides changed differently is a conflict
// the user decides. Objects merge key by key; lists merge as the server merges them
// (core/objects/listsemantics.h): a keyed list item by item, matched by its key fields (an item
// added, removed or changed on either side; a field both changed inside one item is one conflict
// there; an item one side removed and the other changed is a conflict on the item), a set member
// by member (additions joined, removals applied), an atomic list as one value. A merged keyed
// list is in theirs' order, then mine's new items. Pure function; callable from any thread.
#include "core/base/json.h"
#include "core/objects/listsemantics.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fieldscope::core {

struct MergeConflict {
    // JSON Pointer into `merged` ("/data/foo", "/spec/containers/1/image"). For an item of a keyed
    // list that only mine has (theirs removed it), the index it takes when mine is chosen.
    std::string pointer;
    // The same field in the server's path syntax (core/objects/fieldpath.h), for people:
    // .spec.containers[name="app"].image; "" for the object itself.
    std::string path;
    std::optional<Json> base, mine, theirs; // nullopt: absent on that side
};

struct ThreeWayMerge {
    Json merged;                          // theirs wherever there is a conflict
    std::vector<MergeConflict> conflicts; // in document order
    int mineApplied = 0;                  // fields (and list items) where the user's change was taken
};

struct MergeOptions {
    // How each list merges: the built-in table when null; a resolver with hints (the object's
    // managedFields, the server's OpenAPI schema) knows the lists of custom resources.
    const ListSemanticsResolver *semantics = nullptr;
    std::string kind; // the object's kind where a field name means different lists; "" = theirs' `kind`
};

// A value nested deeper than kMaxJsonDepth is a Parse error. A keyed list whose items lack a key
// or repeat one (the server would refuse it) merges as one value.
Result<ThreeWayMerge> threeWayMerge(const Json &base, const Json &mine, const Json &theirs,
                                    const MergeOptions &options = {});

enum class MergeChoice { Theirs, Mine };
// The merge with each conflict resolved as `choices` says (by pointer; missing = theirs). Mine on
// a list item inserts or removes it; the pointers of the other conflicts stay valid.
Json resolveMerge(const ThreeWayMerge &merge, const std::map<std::string, MergeChoice> &choices);

// The merge as `fieldscope merge -o json` prints it (docs/cli.md): {"merged": the object with
// mine at each conflict, "conflicts": [{"path", "base", "mine", "theirs"}]}, each side null
// where it has no value there. (Pointers are left out: they index the merge before the choices.)
Json mergeReport(const ThreeWayMerge &merge);

} // namespace fieldscope::core
