#include "core/base/visibletext.h"

#include <QStringList>

#include <array>
#include <cstdio>

namespace fieldscope::core {
namespace {

bool mustEscape(char32_t cp)
{
    return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) // C0, DEL, C1
        || cp == 0x061c                                          // Arabic letter mark
        || (cp >= 0x200b && cp <= 0x200f)                        // zero-width space/joiners, LRM, RLM
        || cp == 0x2028 || cp == 0x2029                          // line/paragraph separator
        || (cp >= 0x202a && cp <= 0x202e)                        // LRE RLE PDF LRO RLO
        || (cp >= 0x2060 && cp <= 0x2069)                        // word joiner .. isolates (LRI RLI FSI PDI)
        || cp == 0xfeff;                                         // BOM / zero-width no-break space
}

std::string hexEscape(const char *fmt, unsigned v)
{
    char buf[12];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

} // namespace

std::string visibleEscapes(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    std::size_t i = 0;
    while (i < s.size()) {
        const auto b0 = static_cast<unsigned char>(s[i]);
        std::size_t len = b0 < 0x80 ? 1 : (b0 >> 5) == 0x6 ? 2 : (b0 >> 4) == 0xe ? 3 : (b0 >> 3) == 0x1e ? 4 : 0;
        char32_t cp = len == 1 ? b0 : len == 2 ? (b0 & 0x1f) : len == 3 ? (b0 & 0x0f) : (b0 & 0x07);
        bool valid = len != 0 && i + len <= s.size();
        for (std::size_t k = 1; valid && k < len; ++k) {
            const auto b = static_cast<unsigned char>(s[i + k]);
            valid = (b & 0xc0) == 0x80;
            cp = (cp << 6) | (b & 0x3f);
        }
        // Overlong forms, surrogates and code points past U+10FFFF are invalid UTF-8 too.
        static constexpr std::array<char32_t, 5> minimum{0, 0, 0x80, 0x800, 0x10000};
        if (valid && (cp < minimum[len] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff))
            valid = false;
        if (!valid) {
            out += hexEscape("\\x%02x", b0);
            ++i;
            continue;
        }
        if (mustEscape(cp))
            out += hexEscape("\\u%04x", unsigned(cp));
        else
            out.append(s.substr(i, len));
        i += len;
    }
    return out;
}

namespace {
// Most text needs nothing (table cells are painted often): a scan of the UTF-16 units, no copy.
bool needsEscapes(const QString &text, bool keepNewlines)
{
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        if (u == u'\n' && keepNewlines)
            continue;
        if (u < 0x20 || (u >= 0x7f && u <= 0x9f) || u == 0x061c || (u >= 0x200b && u <= 0x200f)
            || (u >= 0x2028 && u <= 0x202e) || (u >= 0x2060 && u <= 0x2069) || u == 0xfeff || c.isSurrogate())
            return true;
    }
    return false;
}
} // namespace

QString visibleText(const QString &text, bool keepNewlines)
{
    if (!needsEscapes(text, keepNewlines))
        return text;
    if (!keepNewlines)
        return QString::fromStdString(visibleEscapes(text.toStdString()));
    QStringList lines = text.split(u'\n');
    for (QString &l : lines)
        l = QString::fromStdString(visibleEscapes(l.toStdString()));
    return lines.join(u'\n');
}

} // namespace fieldscope::core
