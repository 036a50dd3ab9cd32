#pragma once
// DraftStore: the editor's unsent text on disk, one file per object, so a crash (or a kill, a
// power cut) does not take a user's edits with it. A draft keeps the version the edit was based
// on too: restored on top of anything newer, a patch would undo other writers' changes.
// Blocking file I/O: call it on a worker thread.
#include "core/result.h"

#include <cstdint>
#include <optional>
#include <string>

namespace fieldscope::core {

struct EditDraft {
    std::string context, uid;       // which object: a kubeconfig context and the object's uid
    std::string title;              // "ConfigMap demo/settings", for the restore question
    std::string openedYaml;         // the version the edit was based on (editable form)
    std::string openedResourceVersion;
    std::string text;               // the buffer
    std::int64_t savedAtMs = 0;
};

class DraftStore
{
public:
    explicit DraftStore(std::string directory);

    // Atomic: a crash during save leaves the previous draft, never half a file.
    Status save(const EditDraft &draft);
    // nullopt when there is none; an unreadable file is an error (and stays for a person to read).
    Result<std::optional<EditDraft>> load(const std::string &context, const std::string &uid) const;
    Status remove(const std::string &context, const std::string &uid);

    std::string pathFor(const std::string &context, const std::string &uid) const;

private:
    std::string m_dir;
};

} // namespace fieldscope::core
