#include "core/edit/drafts.h"

#include "core/base/json.h"
#include "core/base/privatefiles.h"

#include <cctype>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fieldscope::core {

namespace {

namespace fs = std::filesystem;

// File names from names a kubeconfig or a server chose: anything but [A-Za-z0-9._-] becomes '_'.
std::string safeName(const std::string &s)
{
    std::string out = s.empty() ? std::string("default") : s;
    for (char &c : out)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
            c = '_';
    if (out == "." || out == "..")
        out = "_";
    return out;
}

} // namespace

namespace {

Result<std::string> stringMember(const Json &j, const char *key)
{
    const auto it = j.find(key);
    if (it == j.end())
        return std::string();
    if (!it->is_string())
        return Error::make(ErrorCategory::Parse, std::string("the draft's ") + key + " is not a string", key);
    return it->get<std::string>();
}

std::string utcStamp()
{
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
    return buf;
}

} // namespace

Result<EditDraft> parseDraft(std::string_view bytes)
{
    if (bytes.size() > kMaxDraftBytes)
        return Error::make(ErrorCategory::Parse,
                           "the draft is larger than " + std::to_string(kMaxDraftBytes) + " bytes");
    auto j = parseJson(bytes);
    if (!j)
        return j.error();
    if (!j->is_object())
        return Error::make(ErrorCategory::Parse, "the draft is not a JSON object", "$");
    EditDraft d;
    struct Member {
        const char *key;
        std::string *into;
    };
    for (const Member &m : {Member{"context", &d.context}, Member{"uid", &d.uid}, Member{"title", &d.title},
                            Member{"openedYaml", &d.openedYaml},
                            Member{"openedResourceVersion", &d.openedResourceVersion}, Member{"text", &d.text}}) {
        auto v = stringMember(*j, m.key);
        if (!v)
            return v.error();
        *m.into = std::move(*v);
    }
    if (const auto at = j->find("savedAtMs"); at != j->end()) {
        if (!at->is_number_integer())
            return Error::make(ErrorCategory::Parse, "the draft's savedAtMs is not an integer", "savedAtMs");
        d.savedAtMs = at->get<std::int64_t>();
    }
    return d;
}

std::string draftFileText(const EditDraft &d)
{
    const Json j{{"context", d.context},
                 {"uid", d.uid},
                 {"title", d.title},
                 {"openedYaml", d.openedYaml},
                 {"openedResourceVersion", d.openedResourceVersion},
                 {"text", d.text},
                 {"savedAtMs", d.savedAtMs}};
    return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

DraftStore::DraftStore(std::string directory) : m_dir(std::move(directory)) {}

std::string DraftStore::pathFor(const std::string &context, const std::string &uid) const
{
    return (fs::path(m_dir) / safeName(context) / (safeName(uid) + ".json")).string();
}

Status DraftStore::save(const EditDraft &d)
{
    const fs::path path = pathFor(d.context, d.uid);
    // The drafts folder and its per-context folders are the app's own: private, even if an
    // earlier version made them 0755.
    if (auto st = makePrivateDirectory(m_dir, true); !st)
        return st;
    if (auto st = makePrivateDirectory(path.parent_path().string(), true); !st)
        return st;
    return writePrivateFileDurably(path.string(), draftFileText(d));
}

Result<std::optional<EditDraft>> DraftStore::load(const std::string &context, const std::string &uid)
{
    const std::string path = pathFor(context, uid);
    std::error_code ec;
    if (!fs::exists(path, ec))
        return std::optional<EditDraft>();
    std::string problem;
    if (fs::is_regular_file(path, ec) && fs::file_size(path, ec) <= kMaxDraftBytes) {
        std::ifstream in(path, std::ios::binary);
        std::stringstream buffer;
        buffer << in.rdbuf();
        if (!in.bad()) {
            auto d = parseDraft(buffer.str());
            if (d && d->uid == uid)
                return std::optional<EditDraft>(std::move(*d));
            problem = d ? std::string("it is the draft of another object") : d.error().message;
        } else {
            problem = "it cannot be read";
        }
    } else {
        problem = "it is not a regular file of at most " + std::to_string(kMaxDraftBytes) + " bytes";
    }
    // Kept for a person to read, out of the way of the next save.
    const std::string aside = path + ".damaged-" + utcStamp();
    fs::rename(path, aside, ec);
    if (ec)
        return Error::make(ErrorCategory::Parse, "the kept draft " + path + " is damaged (" + problem
                                                     + ") and could not be moved aside: " + ec.message());
    return Error::make(ErrorCategory::Parse,
                       "the kept draft was damaged (" + problem + "); it was moved aside to " + aside);
}

Status DraftStore::remove(const std::string &context, const std::string &uid)
{
    std::error_code ec;
    fs::remove(pathFor(context, uid), ec);
    if (ec)
        return Error::make(ErrorCategory::Io, "cannot remove the draft: " + ec.message());
    return success();
}

} // namespace fieldscope::core
