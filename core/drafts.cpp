#include "core/drafts.h"

#include "core/json.h"

#include <cctype>
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

DraftStore::DraftStore(std::string directory) : m_dir(std::move(directory)) {}

std::string DraftStore::pathFor(const std::string &context, const std::string &uid) const
{
    return (fs::path(m_dir) / safeName(context) / (safeName(uid) + ".json")).string();
}

Status DraftStore::save(const EditDraft &d)
{
    const fs::path path = pathFor(d.context, d.uid);
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec)
        return Error::make(ErrorCategory::Io, "cannot create " + path.parent_path().string() + ": " + ec.message());
    const Json j{{"context", d.context},  {"uid", d.uid}, {"title", d.title}, {"openedYaml", d.openedYaml},
                 {"openedResourceVersion", d.openedResourceVersion}, {"text", d.text}, {"savedAtMs", d.savedAtMs}};
    const fs::path tmp = path.string() + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << j.dump();
        out.flush();
        if (!out)
            return Error::make(ErrorCategory::Io, "cannot write " + tmp.string());
    }
    fs::rename(tmp, path, ec);
    if (ec)
        return Error::make(ErrorCategory::Io, "cannot replace " + path.string() + ": " + ec.message());
    return success();
}

Result<std::optional<EditDraft>> DraftStore::load(const std::string &context, const std::string &uid) const
{
    const std::string path = pathFor(context, uid);
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::optional<EditDraft>();
    std::stringstream buffer;
    buffer << in.rdbuf();
    auto j = parseJson(buffer.str());
    if (!j || !j->is_object())
        return Error::make(ErrorCategory::Parse, "the draft " + path + " is not readable JSON");
    EditDraft d;
    d.context = j->value("context", std::string());
    d.uid = j->value("uid", std::string());
    d.title = j->value("title", std::string());
    d.openedYaml = j->value("openedYaml", std::string());
    d.openedResourceVersion = j->value("openedResourceVersion", std::string());
    d.text = j->value("text", std::string());
    d.savedAtMs = j->value("savedAtMs", std::int64_t(0));
    return std::optional<EditDraft>(std::move(d));
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
