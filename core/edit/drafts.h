#pragma once
// DraftStore: the editor's unsent text on disk, one file per object, so a crash (or a kill, a
// power cut) does not take a user's edits with it. A draft keeps the version the edit was based
// on too: restored on top of anything newer, a patch would undo other writers' changes.
// Blocking file I/O: call it on a worker thread.
#include "core/base/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fieldscope::core {

struct EditDraft {
    std::string context, uid; // which object: a kubeconfig context and the object's uid
    std::string title;        // "ConfigMap demo/settings", for the restore question
    std::string openedYaml;   // the version the edit was based on (editable form)
    std::string openedResourceVersion;
    std::string text; // the buffer
    std::int64_t savedAtMs = 0;
};

// A draft file's bytes (JSON) read with type checks: a wrong type at any member is a Parse error
// whose `where` names the member; never an exception. At most kMaxDraftBytes.
Result<EditDraft> parseDraft(std::string_view bytes);
std::string draftFileText(const EditDraft &draft);
inline constexpr std::size_t kMaxDraftBytes = 16u << 20; // two 1.5 MiB objects as YAML, with room

class DraftStore
{
public:
    explicit DraftStore(std::string directory);

    // Atomic and durable: written to a 0600 temporary, fsync'ed, renamed, the folder fsync'ed
    // (folders 0700); only then is the draft saved. A crash leaves the previous draft or this one.
    Status save(const EditDraft &draft);
    // nullopt when there is none. A damaged or wrongly typed file (or one of another object) is
    // never deleted: it is renamed aside (NAME.damaged-<UTC time>) and the Parse error says where.
    Result<std::optional<EditDraft>> load(const std::string &context, const std::string &uid);
    Status remove(const std::string &context, const std::string &uid);

    std::string pathFor(const std::string &context, const std::string &uid) const;

private:
    std::string m_dir;
};

} // namespace fieldscope::core
