#pragma once
// "Copy as curl" and "Copy as kubectl": the exact request a write would send, as a
// shell command someone can read, keep and run. No secret is ever part of the text: curl reads
// the bearer token from an environment variable the text names, and certificate and key are
// referred to by file. Pure functions; the text is for bash.
#include "kube/http.h"
#include "kube/kubeconfig.h"

#include <string>

namespace fieldscope::kube {

// Single-quoted for bash: 'it'\''s'. `onlyWhenNeeded`: words of [A-Za-z0-9_./=:,@%+-] stay bare
// (what the exec-plugin consent text shows).
std::string shellQuote(const std::string &s, bool onlyWhenNeeded = false);

// The environment variable the curl text reads the token from.
inline constexpr const char *kTokenVariable = "KUBE_TOKEN";

// curl with the method, URL, headers and body of `request`, against `config`'s server and CA.
std::string curlCommand(const HttpRequest &request, const ResolvedConfig &config);

struct KubectlWrite {
    enum class Verb { Apply, Replace, MergePatch, JsonPatch } verb = Verb::Apply;
    std::string resource; // "deployments.apps"
    std::string ns;       // "" for cluster-scoped
    std::string name;
    std::string body; // the object (apply, replace) or the patch
    std::string fieldManager;
    bool force = false;
    bool dryRun = false;
    std::string subresource;
};
// kubectl doing the same write, with --context when the config names one.
std::string kubectlCommand(const KubectlWrite &write, const ResolvedConfig &config);

} // namespace fieldscope::kube
