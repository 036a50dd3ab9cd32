// fieldscope consent list / forget: the exec-plugin decisions remembered by the window and the
// command line (one store, app/services/settingsconsentstore.h), shown and revoked without a cluster.
#include "app/cli/clisession.h"
#include "app/cli/commands.h"
#include "app/services/settingsconsentstore.h"
#include "kube/execconsent.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

namespace fieldscope::app {
namespace {

QString shown(const std::string &s)
{
    // Paths and names came from kubeconfig files: no control or bidi character reaches the terminal.
    return QString::fromStdString(kube::visibleEscapes(s.empty() ? std::string("-") : s));
}

int list(SettingsConsentStore &store, bool json)
{
    const auto records = store.decisions();
    if (json) {
        QJsonArray out;
        for (const auto &r : records)
            out.append(QJsonObject{
                {QStringLiteral("id"), QString::fromStdString(kube::consentId(r))},
                {QStringLiteral("fingerprint"), QString::fromStdString(r.fingerprint)},
                {QStringLiteral("decision"), r.allowed ? QStringLiteral("allow") : QStringLiteral("deny")},
                {QStringLiteral("kubeconfig"), QString::fromStdString(r.kubeconfigFile)},
                {QStringLiteral("context"), QString::fromStdString(r.contextName)},
                {QStringLiteral("user"), QString::fromStdString(r.userName)},
                {QStringLiteral("command"), QString::fromStdString(r.program)},
                {QStringLiteral("server"), QString::fromStdString(r.server)},
                {QStringLiteral("when"), r.when.toString(Qt::ISODate)}});
        std::fputs(QJsonDocument(out).toJson(QJsonDocument::Indented).constData(), stdout);
        return 0;
    }
    if (records.empty()) {
        std::fputs("No exec credential plugin decisions are remembered.\n", stderr);
        return 0;
    }
    std::printf("%-12s  %-8s  %-20s  %s\n", "ID", "DECISION", "WHEN", "KUBECONFIG  CONTEXT  COMMAND  SERVER");
    for (const auto &r : records)
        std::printf("%-12s  %-8s  %-20s  %s  %s  %s  %s\n", kube::consentId(r).c_str(), r.allowed ? "allow" : "deny",
                    qUtf8Printable(r.when.toString(Qt::ISODate)), qUtf8Printable(shown(r.kubeconfigFile)),
                    qUtf8Printable(shown(r.contextName)), qUtf8Printable(shown(r.program)),
                    qUtf8Printable(shown(r.server)));
    return 0;
}

} // namespace

int runConsent(const QStringList &args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "fieldscope consent list [-o json] | fieldscope consent forget (ID | --all)\n"
        "The remembered answers to \"run this exec credential plugin?\" (shared with the window's Settings).\n"
        "A forgotten decision is asked again the next time the plugin would run."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("ACTION"), QStringLiteral("list or forget."));
    p.addPositionalArgument(QStringLiteral("ID"),
                            QStringLiteral("forget: the decision's id (or a unique prefix) from `consent list`."));
    p.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                 QStringLiteral("list: text (default) or json."),
                 QStringLiteral("FORMAT"),
                 QStringLiteral("text")});
    p.addOption({QStringLiteral("all"), QStringLiteral("forget: every remembered decision.")});
    if (!p.parse(args))
        return reportError(p.errorText()) + 1;
    if (p.isSet(QStringLiteral("help"))) {
        std::fputs(qUtf8Printable(p.helpText()), stdout);
        return 0;
    }
    const QStringList pos = p.positionalArguments();
    SettingsConsentStore store;
    const QString output = p.value(QStringLiteral("output"));
    if (pos.size() == 1 && pos[0] == QLatin1String("list")) {
        if (output != QLatin1String("text") && output != QLatin1String("json"))
            return reportError(QStringLiteral("-o must be text or json")) + 1;
        return list(store, output == QLatin1String("json"));
    }
    if (!pos.isEmpty() && pos[0] == QLatin1String("forget")) {
        const bool all = p.isSet(QStringLiteral("all"));
        if (all == (pos.size() == 2) || pos.size() > 2)
            return reportError(QStringLiteral("usage: fieldscope consent forget (ID | --all)")) + 1;
        if (all) {
            const int n = store.forgetAll();
            std::fprintf(stderr, "Forgot %d decision%s.\n", n, n == 1 ? "" : "s");
            return 0;
        }
        auto fp = kube::findConsent(store.decisions(), pos[1].toStdString());
        if (!fp)
            return reportError(fp.error());
        store.forget(*fp);
        std::fprintf(stderr, "Forgot %s; the plugin will be asked about again.\n", fp->substr(0, 12).c_str());
        return 0;
    }
    return reportError(
               QStringLiteral("usage: fieldscope consent list [-o json] | fieldscope consent forget (ID | --all)"))
         + 1;
}

} // namespace fieldscope::app
