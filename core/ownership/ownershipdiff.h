#pragma once
// What a write did (or, for a dry run, would do) to one manager's ownership: compare
// the object's managedFields before and after. Fields the manager gains, fields it takes from
// other managers, fields it releases (and whether each was removed or stays with a co-owner).
// Pure function of two objects; callable from any thread.
#include "core/base/json.h"
#include "core/ownership/conflictprediction.h"

#include <string>
#include <string_view>
#include <vector>

namespace fieldscope::core {

struct OwnershipMove {
    std::string path;                  // server syntax, ".data.color"
    std::vector<FieldOwnerRef> others; // taken: who owned it before; released: who keeps it
    bool present = true;               // released: still in the object afterwards
};

struct OwnershipDiff {
    std::vector<std::string> gained;     // owned afterwards, not before, and nobody else lost it
    std::vector<OwnershipMove> taken;    // owned afterwards; other managers owned it before and no longer do
    std::vector<OwnershipMove> released; // owned before, not afterwards
    bool empty() const { return gained.empty() && taken.empty() && released.empty(); }
    // One line per change, for the editor and the command line.
    std::vector<std::string> describe(std::string_view manager) const;
};

// `before` and `after`: the full objects with metadata.managedFields. Errors: Parse for
// managedFields that do not decode.
Result<OwnershipDiff> ownershipDiff(const Json &before, const Json &after, std::string_view manager);

} // namespace fieldscope::core
