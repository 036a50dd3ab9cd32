// A clang plugin that scripts/lib/lint.py loads into clang-tidy (`--load`) to make static analysis
// affordable on two cores. It does two things before clang-tidy's checks see the translation unit:
//
// 1. It limits the AST traversal to declarations outside system headers (Qt, the C++ library,
//    nlohmann/json and the other -isystem folders). clang-tidy 14 walks every declaration of the
//    unit and runs each check's matchers on it, although a finding in a system header is never
//    shown: on a unit that includes QtWidgets that walk was ~18 of its ~22 seconds. clang-tidy 21
//    does the same by default (its release notes: "no longer attempts to analyze code from system
//    headers by default, greatly improving performance"). Templates of system headers that our
//    code instantiates are not walked either; our code's own templates and every function body of
//    ours still are.
// 2. It runs clazy (Qt's checks) in the same parse. clang-tidy strips `-Xclang -add-plugin` from
//    compile commands, so clazy's plugin, loaded with a second `--load`, is instantiated here; it
//    reads its checks from CLAZY_CHECKS and its filters from CLAZY_HEADER_FILTER/CLAZY_IGNORE_DIRS.
//    Its warnings are printed here, as clazy-standalone prints them: clang-tidy would name them
//    after whichever of its own checks has the same custom diagnostic number (the two keep separate
//    tables), and drop them when that check is off. clazy walks the whole unit, before the scope
//    is limited: it learns which Qt members are signals from Qt's own headers. One parse instead
//    of two (clazy-standalone parsed every unit again).
//
// Built by lint.py with clang++-14 against libclang-14-dev's headers, into the lint cache.
#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticIDs.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendPluginRegistry.h>
#include <clang/Frontend/MultiplexConsumer.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/raw_ostream.h>

#include <memory>
#include <string>
#include <vector>

namespace {

class UserScopeConsumer : public clang::ASTConsumer
{
public:
    void HandleTranslationUnit(clang::ASTContext &context) override
    {
        const clang::SourceManager &sources = context.getSourceManager();
        std::vector<clang::Decl *> scope;
        for (clang::Decl *decl : context.getTranslationUnitDecl()->decls()) {
            const clang::SourceLocation where = sources.getExpansionLoc(decl->getLocation());
            // Implicit declarations (builtin typedefs) have no location and are the compiler's.
            if (where.isValid() && !sources.isInSystemHeader(where))
                scope.push_back(decl);
        }
        context.setTraversalScope(scope);
    }
};

// Prints clazy's warnings (their text ends in "[-Wclazy-<check>]") and the notes that follow them
// itself; everything else goes to clang-tidy's consumer unchanged.
class ClazyPrinter : public clang::DiagnosticConsumer
{
public:
    ClazyPrinter(clang::DiagnosticConsumer *next, std::unique_ptr<clang::DiagnosticConsumer> owned)
        : m_next(next), m_owned(std::move(owned))
    {
    }

    void BeginSourceFile(const clang::LangOptions &options, const clang::Preprocessor *pp) override
    {
        m_next->BeginSourceFile(options, pp);
    }
    void EndSourceFile() override { m_next->EndSourceFile(); }
    void finish() override { m_next->finish(); }
    void clear() override
    {
        clang::DiagnosticConsumer::clear();
        m_next->clear();
    }
    bool IncludeInDiagnosticCounts() const override { return m_next->IncludeInDiagnosticCounts(); }

    void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic &info) override
    {
        llvm::SmallString<256> text;
        info.FormatDiagnostic(text);
        const bool note = level == clang::DiagnosticsEngine::Note;
        // Custom diagnostic numbers on the compiler's engine come only from plugins (clang-tidy's
        // checks report through an engine of their own); the tag covers the rest.
        if (!note)
            m_inClazy = info.getID() >= clang::diag::DIAG_UPPER_LIMIT || llvm::StringRef(text).contains("[-Wclazy-");
        if (!m_inClazy) {
            m_next->HandleDiagnostic(level, info);
            return;
        }
        clang::DiagnosticConsumer::HandleDiagnostic(level, info);
        const char *kind = note ? "note" : level >= clang::DiagnosticsEngine::Error ? "error" : "warning";
        if (info.hasSourceManager() && info.getLocation().isValid()) {
            const clang::PresumedLoc at =
                info.getSourceManager().getPresumedLoc(info.getSourceManager().getExpansionLoc(info.getLocation()));
            if (at.isValid())
                llvm::errs() << at.getFilename() << ':' << at.getLine() << ':' << at.getColumn() << ": ";
        }
        llvm::errs() << kind << ": " << text << '\n';
    }

private:
    clang::DiagnosticConsumer *m_next;
    std::unique_ptr<clang::DiagnosticConsumer> m_owned;
    bool m_inClazy = false;
};

// Owns the clazy action its consumer came from, for the consumer's whole life.
class WithOwner : public clang::MultiplexConsumer
{
public:
    WithOwner(std::vector<std::unique_ptr<clang::ASTConsumer>> consumers, std::unique_ptr<clang::PluginASTAction> clazy)
        : clang::MultiplexConsumer(std::move(consumers)), m_clazy(std::move(clazy))
    {
    }

private:
    std::unique_ptr<clang::PluginASTAction> m_clazy;
};

class LintScopeAction : public clang::PluginASTAction
{
protected:
    std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &compiler,
                                                          llvm::StringRef file) override
    {
        std::vector<std::unique_ptr<clang::ASTConsumer>> consumers;
        std::unique_ptr<clang::PluginASTAction> clazy;
        clang::DiagnosticsEngine &engine = compiler.getDiagnostics();
        // Failing loudly: lint.py treats this text as a lint that did not run. (A null consumer
        // would crash clang 14, which does not check what a plugin returns.)
        auto fail = [&engine](const char *why) {
            llvm::errs() << "error: " << why << '\n';
            engine.Report(engine.getCustomDiagID(clang::DiagnosticsEngine::Error, "%0")) << why;
            return std::make_unique<clang::ASTConsumer>();
        };
        for (const auto &entry : clang::FrontendPluginRegistry::entries()) {
            if (entry.getName() != "clazy")
                continue;
            clazy = entry.instantiate();
            if (!clazy->ParseArgs(compiler, {}))
                return fail("clazy plugin not registered: it refused its arguments");
            auto consumer = clazy->CreateASTConsumer(compiler, file);
            if (!consumer)
                return fail("clazy plugin not registered: it made no consumer");
            consumers.push_back(std::move(consumer));
            clang::DiagnosticsEngine &diagnostics = compiler.getDiagnostics();
            clang::DiagnosticConsumer *next = diagnostics.getClient();
            std::unique_ptr<clang::DiagnosticConsumer> owned = diagnostics.takeClient();
            diagnostics.setClient(new ClazyPrinter(next, std::move(owned)), /*ShouldOwnClient=*/true);
        }
        if (!clazy)
            return fail("clazy plugin not registered: load ClazyPlugin.so before this plugin");
        consumers.push_back(std::make_unique<UserScopeConsumer>());
        return std::make_unique<WithOwner>(std::move(consumers), std::move(clazy));
    }

    bool ParseArgs(const clang::CompilerInstance &, const std::vector<std::string> &) override { return true; }

    // Before clang-tidy's own consumer, so the scope is set when its matchers walk the unit.
    ActionType getActionType() override { return AddBeforeMainAction; }
};

} // namespace

static clang::FrontendPluginRegistry::Add<LintScopeAction>
    registration("fieldscope-lint-scope", "limit clang-tidy to our code; run clazy in the same parse");
