#pragma once
// What the user is shown before an exec credential plugin runs (it is arbitrary code; README.md, Security):
// one description shared by the window's question and the command line, so both show the same
// facts. GUI-free, thread-agnostic and pure.
//
// Everything in an ExecInvocation came from a kubeconfig someone else may have written, so every
// string goes through visibleEscapes(): control characters and bidirectional overrides cannot hide
// or reorder what is shown ("evil\u202e" would otherwise display an argument backwards).
#include "core/base/visibletext.h"

#include <string>
#include <string_view>
#include <vector>

namespace fieldscope::kube {

struct ExecInvocation;

// One fact of the question, e.g. {"server", "https://api.prod:6443", "the credential is sent here"}.
struct ExecConsentLine {
    std::string label;    // "kubeconfig", "context", "user", "server", "command", "runs", "arguments", "env NAME",
                          // "provideClusterInfo"
    std::string value;    // already escaped; a masked value reads "(hidden: the name looks secret)"
    std::string note;     // why it matters, "" when nothing to add
    bool warning = false; // can change what runs (LD_PRELOAD, PATH, BASH_ENV, ...): shown highlighted
};

struct ExecConsentDescription {
    std::vector<ExecConsentLine> lines;
    // "label: value  (note)" lines, warnings marked with "!", for a terminal.
    std::string text() const;
};

ExecConsentDescription describeExecInvocation(const ExecInvocation &invocation);

// core::visibleEscapes (core/base/visibletext.h), where the window's plain-text helpers find it too.
using core::visibleEscapes;

// Heuristics for env names, upper-cased before matching (client-go has none: it passes everything).
// Secret: contains TOKEN, SECRET, PASSW, KEY, CREDENTIAL, AUTH, PRIVATE, SESSION, COOKIE.
bool envNameLooksSecret(std::string_view name);
// Can make an innocent program run something else: LD_*, DYLD_*, PATH, BASH_ENV, ENV, *_OPTIONS,
// *_OPTS, PYTHON*, PERL5*, NODE_*, GIT_*, RUBY*, HOME, BASH_FUNC_*, ...
bool envNameChangesWhatRuns(std::string_view name);

} // namespace fieldscope::kube
