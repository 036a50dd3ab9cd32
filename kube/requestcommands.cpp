#include "kube/requestcommands.h"

#include <algorithm>
#include <string_view>

namespace fieldscope::kube {
namespace {

// A here-document delimiter that does not occur in the body.
std::string delimiterFor(const std::string &body)
{
    std::string d = "FIELDSCOPE_BODY";
    while (body.find(d) != std::string::npos)
        d += "_";
    return d;
}

std::string hereDocument(const std::string &body)
{
    const std::string d = delimiterFor(body);
    return " <<'" + d + "'\n" + body + (body.empty() || body.back() != '\n' ? "\n" : "") + d + "\n";
}

std::string serverBase(const std::string &server)
{
    return !server.empty() && server.back() == '/' ? server.substr(0, server.size() - 1) : server;
}

} // namespace

std::string shellQuote(const std::string &s, bool onlyWhenNeeded)
{
    const auto bare = [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
            || std::string_view("_./=:,@%+-").find(c) != std::string_view::npos;
    };
    if (onlyWhenNeeded && !s.empty() && std::all_of(s.begin(), s.end(), bare))
        return s;
    std::string out = "'";
    for (char c : s) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

std::string curlCommand(const HttpRequest &request, const ResolvedConfig &config)
{
    std::string out;
    const AuthConfig &a = config.auth;
    const bool certificate = !a.clientCertificateFile.empty() && !a.clientKeyFile.empty();
    if (!certificate)
        out += std::string("# Set ") + kTokenVariable
             + " to a bearer token for this cluster first (it is not part of this text).\n";
    out += "curl --fail-with-body -sS";
    if (config.insecureSkipTlsVerify)
        out += " --insecure"; // the kubeconfig says so; the text says it too
    else if (!config.caFile.empty())
        out += " --cacert " + shellQuote(config.caFile);
    else if (!config.caPem.isEmpty()) // certificate-authority-data: public, so the text carries it
        out += " --cacert <(printf '%s\\n' " + shellQuote(config.caPem.trimmed().toStdString()) + ")";
    if (certificate)
        out += " --cert " + shellQuote(a.clientCertificateFile) + " --key " + shellQuote(a.clientKeyFile);
    else
        out += std::string(" -H \"Authorization: Bearer $") + kTokenVariable + "\"";
    out += " -X " + request.method;
    if (!request.contentType.empty())
        out += " -H " + shellQuote("Content-Type: " + request.contentType);
    out += " -H " + shellQuote("Accept: " + request.accept);
    out += " " + shellQuote(serverBase(config.server) + request.path);
    if (!request.body.empty())
        out += " --data-binary @-" + hereDocument(request.body);
    else
        out += "\n";
    return out;
}

std::string kubectlCommand(const KubectlWrite &w, const ResolvedConfig &config)
{
    std::string out = "kubectl";
    if (!config.contextName.empty())
        out += " --context " + shellQuote(config.contextName);
    if (!w.ns.empty())
        out += " -n " + shellQuote(w.ns);
    switch (w.verb) {
    case KubectlWrite::Verb::Apply:
        out += " apply --server-side --field-manager " + shellQuote(w.fieldManager);
        if (w.force)
            out += " --force-conflicts";
        break;
    case KubectlWrite::Verb::Replace:
        out += " replace --field-manager "
             + shellQuote(w.fieldManager); // the body's resourceVersion is the precondition
        break;
    case KubectlWrite::Verb::MergePatch:
    case KubectlWrite::Verb::JsonPatch:
        out += " patch " + shellQuote(w.resource) + " " + shellQuote(w.name) + " --field-manager "
             + shellQuote(w.fieldManager)
             + (w.verb == KubectlWrite::Verb::MergePatch ? " --type merge" : " --type json");
        break;
    }
    if (!w.subresource.empty())
        out += " --subresource " + shellQuote(w.subresource);
    if (w.dryRun)
        out += " --dry-run=server";
    if (w.verb == KubectlWrite::Verb::MergePatch || w.verb == KubectlWrite::Verb::JsonPatch) {
        // -p with the patch from a here-document: every kubectl has -p (--patch-file is 1.23+).
        const std::string d = delimiterFor(w.body);
        return out + " -p \"$(cat <<'" + d + "'\n" + w.body + "\n" + d + "\n)\"\n";
    }
    return out + " -f -" + hereDocument(w.body);
}

} // namespace fieldscope::kube
