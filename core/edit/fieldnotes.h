#pragma once
// Where in the user's YAML the server's words point. Field validation names fields in warnings
// and refusals ("unknown field \"spec.foo\"", "duplicate field \"data.a\"", ".spec.foo: field not
// declared in schema"); a 422's causes name them in `field` ("spec.replicas",
// "spec.containers[0].image", "data[a.b]": k8s.io/apimachinery/pkg/util/validation/field/path.go
// writes keys in brackets). The editor marks those lines; nothing here touches the network.
#include "core/yaml/yaml.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fieldscope::core {

// The field paths a field-validation message names, in order of appearance; none for a message
// that names no field (a policy's denial, a deprecation warning).
std::vector<std::string> fieldPathsInMessage(std::string_view message);

// "spec.containers[0].image" -> "/spec/containers/0/image"; "data[a.b]" -> "/data/a.b";
// a leading '.' is ignored. Keys are escaped as JSON Pointer requires (~0, ~1). Server-side
// apply names list items by their keys, `containers[name="web"]`, `ports[containerPort=80,
// protocol="TCP"]`, `finalizers[="a"]`: with DOCUMENT, such an item becomes its index there;
// without it, or when DOCUMENT has no such item, the pointer names no line from there on.
std::string pointerOfFieldPath(std::string_view fieldPath, const Json *document = nullptr);

struct FieldLine {
    int line = 0;       // 1-based line of the YAML text
    bool exact = false; // false: the field itself is not in the text, this is its nearest parent
};
// The line that writes FIELDPATH in the YAML whose map is LINES, else the line of its nearest
// parent that the text holds; nullopt when not even the first segment is there.
std::optional<FieldLine> lineOfFieldPath(const YamlLineMap &lines, std::string_view fieldPath,
                                         const Json *document = nullptr);

// One server message tied to a line of the user's YAML.
struct LineNote {
    int line = 0;
    std::string message;
};
// For each message (warnings, or "field: message" of causes), the line it names in the YAML text
// TEXT; messages that name no field or no line of TEXT are left out. TEXT that does not parse
// gives none (the editor shows the parse error instead).
std::vector<LineNote> lineNotes(std::string_view text, const std::vector<std::string> &messages,
                                const std::vector<std::pair<std::string, std::string>> &fieldMessages = {});

} // namespace fieldscope::core
