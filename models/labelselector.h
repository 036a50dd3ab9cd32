#pragma once
// Label selectors with the server's syntax (`app=web,tier!=db,env in (prod,staging),!legacy,team`)
// and the table's quick filter, which mixes name text with selector terms. Pure value types;
// parsed on the GUI thread per keystroke, matched against labels the table already holds.
#include <QString>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fieldscope::models {

// An object's labels, sorted by key (binary search on match).
using Labels = std::vector<std::pair<std::string, std::string>>;
const std::string *findLabel(const Labels &labels, const std::string &key);

struct LabelRequirement {
    enum class Op { Equals, NotEquals, In, NotIn, Exists, NotExists };
    std::string key;
    Op op = Op::Exists;
    std::vector<std::string> values; // Equals/NotEquals: one; In/NotIn: the set
    bool matches(const Labels &labels) const;
};

struct LabelSelector {
    std::vector<LabelRequirement> requirements; // all must match; empty matches everything
    bool matches(const Labels &labels) const;
    bool isEmpty() const { return requirements.empty(); }
};

// Parses a full selector; on a syntax error returns false and says why in *error.
bool parseLabelSelector(const QString &text, LabelSelector *out, QString *error = nullptr);

// The quick filter of the object table: whitespace-separated words, each either a selector term
// (contains '=' or "!=", starts with '!', or is `key in (...)` / `key notin (...)`) or name text.
// Everything after "-l " is one full selector (so `-l team` tests for existence).
// Name words match case-insensitively anywhere in "namespace/name"; all words must match.
struct QuickFilter {
    std::vector<std::string> words; // lower-case
    LabelSelector selector;
    QString error; // a selector term that did not parse; the filter then ignores it
    bool isEmpty() const { return words.empty() && selector.isEmpty(); }
    static QuickFilter parse(const QString &text);
    bool matchesName(std::string_view namespace_, std::string_view name) const;
};

} // namespace fieldscope::models
