#pragma once
// What the subcommands that take -f share: reading every object of a file as people have them
// (core/yaml/manifest.h) and naming one object in their output.
#include "core/yaml/manifest.h"

#include <QString>

#include <string>

namespace fieldscope::app {

// Every object of FILE (- for stdin): one object, a `---` stream, JSON, or a List as kubectl
// prints it. Warnings (YAML 1.1 readings) go to stderr.
core::Result<core::ManifestObjects> readManifest(const QString &path);
// "ConfigMap demo/settings", the heading of one object's part of a multi-object output.
std::string heading(const core::Json &object);

} // namespace fieldscope::app
