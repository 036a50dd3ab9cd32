#pragma once
// Structural diff of two versions of one object: added / removed / changed fields with paths in
// the server's syntax (core/objects/fieldpath.h). Lists are matched the way the server merges them
// (core/objects/listsemantics.h): map lists by key, sets by value, atomic lists compared whole.
// Pure functions on value types: run them on a worker thread for big objects.
#include "core/objects/fieldpath.h"
#include "core/objects/listsemantics.h"

#include <vector>

namespace fieldscope::core {

// Noise filters (each a toggle in the UI). A hidden path is left out with everything below it.
struct DiffOptions {
    bool hideManagedFields = true;   // .metadata.managedFields changes with every write
    bool hideResourceVersion = true; // .metadata.resourceVersion changes with every write
    bool hideGeneration = false;     // .metadata.generation follows every spec change
    bool hideStatus = false;         // .status: controller chatter
    // List semantics beyond the built-in table (e.g. hints from managedFields); null = built-in.
    const ListSemanticsResolver *semantics = nullptr;
};

struct FieldChange {
    enum class Kind { Added, Removed, Changed };
    Kind kind = Kind::Changed;
    FieldPath path;
    Json oldValue; // null for Added
    Json newValue; // null for Removed
};

const char *fieldChangeKindName(FieldChange::Kind kind); // "added", "removed", "changed"

// Changes from oldObject to newObject, parents before children, in the new object's order with
// removals first. A subtree that appears or disappears whole is one Added/Removed entry. Below
// kMaxJsonDepth path elements a differing subtree is one Changed entry (compared whole, without
// recursion), so no input can exhaust the stack.
std::vector<FieldChange> diffObjects(const Json &oldObject, const Json &newObject, const DiffOptions &options = {});

// Whether the noise filters hide this path.
bool isHiddenByFilters(const FieldPath &path, const DiffOptions &options);

// Removes what the filters hide (for the YAML diff, which works on text).
Json applyNoiseFilters(Json object, const DiffOptions &options);

} // namespace fieldscope::core
