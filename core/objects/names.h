#pragma once
// Kubernetes' name rules, checked before a name goes into a request path or a file name.
#include <string_view>

namespace fieldscope::core {

// A DNS-1123 label (namespaces, many resource names): 1 to 63 characters of a-z, 0-9 and '-',
// beginning and ending with a letter or digit (k8s.io/apimachinery/pkg/util/validation,
// IsDNS1123Label).
bool isDnsLabel(std::string_view name);

} // namespace fieldscope::core
