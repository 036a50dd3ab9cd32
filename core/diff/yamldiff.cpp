#include "core/diff/yamldiff.h"

#include "core/yaml/yaml.h"

#include <algorithm>
#include <unordered_map>

namespace fieldscope::core {
namespace {

// Beyond this many differing lines, or this much search work, the middle is shown as one removed
// + one added block: such a diff is unreadable line by line anyway, and the bounds keep a hostile
// pair of versions (two unrelated 100,000-line objects) within a fraction of a second and a few
// tens of MB. Myers' trace keeps only the diagonals each step can reach: O(D^2) memory, not O(D*N).
constexpr int kMaxEditDistance = 3000;
constexpr std::int64_t kMaxSearchSteps = 30'000'000;

std::vector<std::string_view> splitLines(std::string_view text)
{
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto nl = text.find('\n', start);
        if (nl == std::string_view::npos) {
            lines.push_back(text.substr(start));
            break;
        }
        lines.push_back(text.substr(start, nl - start));
        start = nl + 1;
    }
    return lines;
}

enum class Op { Same, Del, Ins };

// Myers' O(ND) diff of a[0..n) and b[0..m) (line ids); appends the edit script to `ops`.
void myersMiddle(const int *a, int n, const int *b, int m, std::vector<Op> &ops)
{
    const int max = n + m;
    const int offset = max + 1;
    std::vector<int> v(std::size_t(2 * max + 3), 0);
    // v[offset + k]: the index is never negative and far below INT_MAX (n + m lines).
    auto vAt = [&v, offset](int k) -> int & {
        const int i = offset + k;
        return v[std::size_t(i)];
    };
    std::vector<std::vector<int>> trace; // trace[d][k + d] = v[k] before step d, k in [-d, d]
    int dFound = -1;
    std::int64_t steps = 0;
    for (int d = 0; d <= max && d <= kMaxEditDistance && steps <= kMaxSearchSteps; ++d) {
        trace.emplace_back(v.begin() + (offset - d), v.begin() + (offset + d + 1));
        for (int k = -d; k <= d; k += 2) {
            int x = (k == -d || (k != d && vAt(k - 1) < vAt(k + 1))) ? vAt(k + 1) : vAt(k - 1) + 1;
            int y = x - k;
            const int x0 = x;
            while (x < n && y < m && a[x] == b[y])
                ++x, ++y;
            steps += 1 + (x - x0);
            vAt(k) = x;
            if (x >= n && y >= m) {
                dFound = d;
                break;
            }
        }
        if (dFound >= 0)
            break;
    }
    if (dFound < 0) { // too different: everything old out, everything new in
        ops.insert(ops.end(), std::size_t(n), Op::Del);
        ops.insert(ops.end(), std::size_t(m), Op::Ins);
        return;
    }
    std::vector<Op> rev;
    int x = n, y = m;
    for (int d = dFound; d > 0; --d) {
        const auto &pv = trace[std::size_t(d)];
        auto at = [&](int k) {
            const int i = k + d;
            return pv[std::size_t(i)];
        };
        const int k = x - y;
        const bool down = k == -d || (k != d && at(k - 1) < at(k + 1));
        const int prevK = down ? k + 1 : k - 1;
        const int prevX = at(prevK), prevY = prevX - prevK;
        while (x > prevX && y > prevY) {
            rev.push_back(Op::Same);
            --x, --y;
        }
        rev.push_back(down ? Op::Ins : Op::Del);
        x = prevX, y = prevY;
    }
    while (x > 0 && y > 0) {
        rev.push_back(Op::Same);
        --x, --y;
    }
    ops.insert(ops.end(), rev.rbegin(), rev.rend());
}

// The edit script from a to b: the common head and tail cost nothing, Myers runs on the middle.
std::vector<Op> myers(const std::vector<int> &a, const std::vector<int> &b)
{
    std::size_t pre = 0;
    while (pre < a.size() && pre < b.size() && a[pre] == b[pre])
        ++pre;
    std::size_t suf = 0;
    while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf])
        ++suf;
    std::vector<Op> ops(pre, Op::Same);
    myersMiddle(a.data() + pre, int(a.size() - pre - suf), b.data() + pre, int(b.size() - pre - suf), ops);
    ops.insert(ops.end(), suf, Op::Same);
    return ops;
}

bool isContinuation(char c)
{
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// The changed middle of two lines: common prefix and suffix trimmed, on code-point boundaries.
void intraLine(YamlDiffRow &row)
{
    const std::string &l = row.left, &r = row.right;
    std::size_t pre = 0;
    while (pre < l.size() && pre < r.size() && l[pre] == r[pre])
        ++pre;
    while (pre > 0 && ((pre < l.size() && isContinuation(l[pre])) || (pre < r.size() && isContinuation(r[pre]))))
        --pre;
    std::size_t suf = 0;
    while (suf < l.size() - pre && suf < r.size() - pre && l[l.size() - 1 - suf] == r[r.size() - 1 - suf])
        ++suf;
    while (suf > 0
           && ((suf < l.size() && isContinuation(l[l.size() - suf]))
               || (suf < r.size() && isContinuation(r[r.size() - suf]))))
        --suf;
    if (l.size() > pre + suf)
        row.leftRanges.push_back({int(pre), int(l.size() - pre - suf)});
    if (r.size() > pre + suf)
        row.rightRanges.push_back({int(pre), int(r.size() - pre - suf)});
}

// Turns a run of deletions and insertions into Changed rows (paired in order) plus the rest.
void emitHunk(std::vector<YamlDiffRow> &rows, YamlDiff &diff, const std::vector<std::string_view> &a,
              const std::vector<std::string_view> &b, int &ia, int &ib, int dels, int ins)
{
    const int paired = std::min(dels, ins);
    for (int i = 0; i < paired; ++i) {
        YamlDiffRow row{YamlDiffRow::Kind::Changed, ia + 1, ib + 1, std::string(a[std::size_t(ia)]),
                        std::string(b[std::size_t(ib)])};
        intraLine(row);
        rows.push_back(std::move(row));
        ++ia, ++ib, ++diff.changedLines;
    }
    for (int i = paired; i < dels; ++i, ++ia, ++diff.removedLines)
        rows.push_back({YamlDiffRow::Kind::Removed, ia + 1, 0, std::string(a[std::size_t(ia)]), {}});
    for (int i = paired; i < ins; ++i, ++ib, ++diff.addedLines)
        rows.push_back({YamlDiffRow::Kind::Added, 0, ib + 1, {}, std::string(b[std::size_t(ib)])});
}

// Replaces long runs of Same rows by one Folded row, keeping `context` lines next to changes.
std::vector<YamlDiffRow> fold(std::vector<YamlDiffRow> rows, int context)
{
    std::vector<YamlDiffRow> out;
    std::size_t i = 0;
    while (i < rows.size()) {
        if (rows[i].kind != YamlDiffRow::Kind::Same) {
            out.push_back(std::move(rows[i++]));
            continue;
        }
        std::size_t j = i;
        while (j < rows.size() && rows[j].kind == YamlDiffRow::Kind::Same)
            ++j;
        const std::size_t keepHead = i == 0 ? 0 : std::size_t(context);
        const std::size_t keepTail = j == rows.size() ? 0 : std::size_t(context);
        const std::size_t len = j - i;
        if (len <= keepHead + keepTail + 1) {
            for (; i < j; ++i)
                out.push_back(std::move(rows[i]));
            continue;
        }
        for (std::size_t k = 0; k < keepHead; ++k)
            out.push_back(std::move(rows[i + k]));
        YamlDiffRow folded;
        folded.kind = YamlDiffRow::Kind::Folded;
        folded.foldedLines = int(len - keepHead - keepTail);
        out.push_back(std::move(folded));
        for (std::size_t k = j - keepTail; k < j; ++k)
            out.push_back(std::move(rows[k]));
        i = j;
    }
    return out;
}

} // namespace

const char *yamlDiffRowKindName(YamlDiffRow::Kind kind)
{
    switch (kind) {
    case YamlDiffRow::Kind::Same: return "same";
    case YamlDiffRow::Kind::Added: return "added";
    case YamlDiffRow::Kind::Removed: return "removed";
    case YamlDiffRow::Kind::Changed: return "changed";
    case YamlDiffRow::Kind::Folded: return "folded";
    }
    return "same";
}

YamlDiff diffYamlText(std::string_view oldText, std::string_view newText, int contextLines)
{
    const auto a = splitLines(oldText), b = splitLines(newText);
    std::unordered_map<std::string_view, int> ids;
    auto idsOf = [&](const std::vector<std::string_view> &lines) {
        std::vector<int> out;
        out.reserve(lines.size());
        for (auto l : lines)
            out.push_back(ids.emplace(l, int(ids.size())).first->second);
        return out;
    };
    const auto ida = idsOf(a), idb = idsOf(b);
    const auto ops = myers(ida, idb);
    YamlDiff diff;
    int ia = 0, ib = 0;
    for (std::size_t i = 0; i < ops.size();) {
        if (ops[i] == Op::Same) {
            diff.rows.push_back({YamlDiffRow::Kind::Same, ia + 1, ib + 1, std::string(a[std::size_t(ia)]),
                                 std::string(b[std::size_t(ib)])});
            ++ia, ++ib, ++i;
            continue;
        }
        int dels = 0, ins = 0;
        for (; i < ops.size() && ops[i] != Op::Same; ++i)
            (ops[i] == Op::Del ? dels : ins)++;
        emitHunk(diff.rows, diff, a, b, ia, ib, dels, ins);
    }
    if (contextLines >= 0)
        diff.rows = fold(std::move(diff.rows), contextLines);
    return diff;
}

YamlDiff diffYaml(const Json &oldObject, const Json &newObject, const YamlDiffOptions &options)
{
    const std::string left = oldObject.is_null() ? std::string()
                                                 : jsonToYaml(applyNoiseFilters(oldObject, options.filters));
    const std::string right = newObject.is_null() ? std::string()
                                                  : jsonToYaml(applyNoiseFilters(newObject, options.filters));
    return diffYamlText(left, right, options.contextLines);
}

} // namespace fieldscope::core
