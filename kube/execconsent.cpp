#include "kube/execconsent.h"

#include "core/base/visibletext.h"
#include "kube/execplugin.h"
#include "kube/requestcommands.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>

namespace fieldscope::kube {

namespace {

std::string upper(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::toupper(c)); });
    return out;
}

} // namespace

bool envNameLooksSecret(std::string_view name)
{
    const std::string n = upper(name);
    for (const char *word : {"TOKEN", "SECRET", "PASSW", "KEY", "CREDENTIAL", "AUTH", "PRIVATE", "SESSION", "COOKIE"})
        if (n.find(word) != std::string::npos)
            return true;
    return false;
}

bool envNameChangesWhatRuns(std::string_view name)
{
    const std::string n = upper(name);
    // The dynamic loader, shells, interpreters and tools that read code or config from the
    // environment; HOME and XDG_CONFIG_HOME pick config files that may name programs (aws
    // credential_process, git aliases).
    static constexpr std::array exact{"PATH",
                                      "BASH_ENV",
                                      "ENV",
                                      "IFS",
                                      "SHELLOPTS",
                                      "BASHOPTS",
                                      "PS4",
                                      "PROMPT_COMMAND",
                                      "HOME",
                                      "XDG_CONFIG_HOME",
                                      "GCONV_PATH",
                                      "GLIBC_TUNABLES",
                                      "CLASSPATH",
                                      "GOFLAGS",
                                      "AWS_CONFIG_FILE",
                                      "KUBECONFIG",
                                      "OPENSSL_CONF",
                                      "OPENSSL_ENGINES",
                                      "PERLLIB",
                                      "TMPDIR",
                                      "SHELL",
                                      "EDITOR",
                                      "VISUAL",
                                      "BROWSER",
                                      "PAGER",
                                      "GIT_SSH",
                                      "GIT_SSH_COMMAND",
                                      "SSH_ASKPASS",
                                      "SUDO_ASKPASS"};
    static constexpr std::array prefixes{"LD_",     "DYLD_",    "PYTHON",     "PERL5", "NODE_",  "NPM_CONFIG_",
                                         "GIT_",    "RUBY",     "BASH_FUNC_", "JAVA_", "_JAVA_", "JDK_",
                                         "DOTNET_", "CORECLR_", "MALLOC_",    "LUA_",  "TCL",    "ZDOTDIR"};
    static constexpr std::array suffixes{"_OPTIONS", "_OPTS", "_PATH", "_LIBRARY", "_PRELOAD"};
    if (std::find(exact.begin(), exact.end(), n) != exact.end())
        return true;
    for (std::string_view p : prefixes)
        if (n.rfind(p, 0) == 0)
            return true;
    for (std::string_view s : suffixes)
        if (n.size() >= s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0)
            return true;
    return false;
}

ExecConsentDescription describeExecInvocation(const ExecInvocation &inv)
{
    ExecConsentDescription d;
    auto add = [&](std::string label, const std::string &value, std::string note = {}, bool warning = false) {
        d.lines.push_back({std::move(label), visibleEscapes(value), std::move(note), warning});
    };
    add("kubeconfig", inv.kubeconfigFile, "the file that defined the user");
    add("context", inv.contextName.empty() ? std::string("(none)") : inv.contextName);
    add("user", inv.userName);
    add("server", inv.server, "the credential the plugin returns is sent here");
    add("command", inv.command);
    if (inv.program != inv.command)
        add("runs", inv.program, "resolved in PATH (relative PATH entries are never searched)");
    std::string args;
    for (const auto &a : inv.args)
        args += (args.empty() ? "" : " ") + shellQuote(a, true);
    add("arguments", inv.args.empty() ? std::string("(none)") : args);
    for (const auto &v : inv.addedEnv) {
        const bool secret = envNameLooksSecret(v.name);
        const bool dangerous = envNameChangesWhatRuns(v.name);
        d.lines.push_back({"env " + visibleEscapes(v.name),
                           secret ? std::string("(hidden: the name looks secret)") : visibleEscapes(v.value),
                           dangerous ? "can change what runs" : std::string(), dangerous});
    }
    if (inv.addedEnv.empty())
        add("env", "(the kubeconfig adds no variables)", "the plugin gets your environment, as with kubectl");
    add("provideClusterInfo", inv.provideClusterInfo ? "yes" : "no",
        inv.provideClusterInfo
            ? "the plugin also receives the server, its CA and the cluster's exec extension in KUBERNETES_EXEC_INFO"
            : std::string());
    return d;
}

std::string ExecConsentDescription::text() const
{
    std::size_t width = 0;
    for (const auto &l : lines)
        width = std::max(width, l.label.size());
    std::string out;
    for (const auto &l : lines) {
        out += (l.warning ? "! " : "  ") + l.label + ":" + std::string(width - l.label.size() + 1, ' ') + l.value;
        if (!l.note.empty())
            out += "  (" + l.note + ")";
        out += '\n';
    }
    return out;
}

} // namespace fieldscope::kube
