#include "core/json.h"

namespace fieldscope::core {

Result<Json> parseJson(std::string_view text)
{
    try {
        return Json::parse(text.begin(), text.end());
    } catch (const Json::parse_error &e) {
        return Error::make(ErrorCategory::Parse, e.what(), "byte " + std::to_string(e.byte));
    } catch (const std::exception &e) {
        return Error::make(ErrorCategory::Parse, e.what());
    }
}

std::string toJsonText(const Json &j)
{
    // Replacement instead of throwing on invalid UTF-8 from a user buffer.
    return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string jsonPointerEscape(std::string_view token)
{
    std::string out;
    out.reserve(token.size());
    for (char c : token) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
    return out;
}

std::string jsonPointerUnescape(std::string_view token)
{
    std::string out;
    out.reserve(token.size());
    for (std::size_t i = 0; i < token.size(); ++i) {
        if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
            out += token[i + 1] == '0' ? '~' : '/';
            ++i;
        } else {
            out += token[i];
        }
    }
    return out;
}

bool jsonEqual(const Json &a, const Json &b)
{
    if (a.is_number() && b.is_number()) {
        if (a.is_number_float() || b.is_number_float())
            return a.get<double>() == b.get<double>();
        if (a.is_number_unsigned() && b.is_number_unsigned())
            return a.get<std::uint64_t>() == b.get<std::uint64_t>();
        return a.get<std::int64_t>() == b.get<std::int64_t>();
    }
    if (a.type() != b.type())
        return false;
    if (a.is_object()) {
        if (a.size() != b.size())
            return false;
        for (auto it = a.begin(); it != a.end(); ++it) {
            auto o = b.find(it.key());
            if (o == b.end() || !jsonEqual(it.value(), *o))
                return false;
        }
        return true;
    }
    if (a.is_array()) {
        if (a.size() != b.size())
            return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (!jsonEqual(a[i], b[i]))
                return false;
        return true;
    }
    return a == b;
}

std::string jsonPreview(const Json &v, std::size_t maxChars)
{
    std::string s;
    if (v.is_object())
        s = "{" + std::to_string(v.size()) + (v.size() == 1 ? " key}" : " keys}");
    else if (v.is_array())
        s = "[" + std::to_string(v.size()) + (v.size() == 1 ? " item]" : " items]");
    else if (v.is_string())
        s = v.get<std::string>();
    else
        s = toJsonText(v);
    if (s.size() > maxChars) {
        std::size_t cut = maxChars;
        while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
            --cut; // do not split a UTF-8 sequence
        s = s.substr(0, cut) + "…";
    }
    for (auto &c : s)
        if (c == '\n' || c == '\r' || c == '\t')
            c = ' ';
    return s;
}

} // namespace fieldscope::core
