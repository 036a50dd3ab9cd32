#include "fieldscoperun.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>

namespace fieldscope::testing {

FieldscopeRun runFieldscope(const QStringList &args, const QString &home, const FieldscopeRunOptions &options)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), home);
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), home + QStringLiteral("/.config"));
    env.insert(QStringLiteral("XDG_CACHE_HOME"), home + QStringLiteral("/.cache"));
    env.insert(QStringLiteral("XDG_DATA_HOME"),
               options.dataHome.isEmpty() ? home + QStringLiteral("/.local/share") : options.dataHome);
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.remove(QStringLiteral("KUBECONFIG"));
    p.setProcessEnvironment(env);
    QElapsedTimer t;
    t.start();
    p.start(QStringLiteral(FIELDSCOPE_BUILD_DIR "/app/fieldscope"), args);
    const bool finished = p.waitForFinished(options.timeoutMs);
    if (!finished) {
        p.kill();
        p.waitForFinished(5000);
    }
    FieldscopeRun run;
    run.crashed = !finished || p.exitStatus() != QProcess::NormalExit;
    run.code = run.crashed ? -1 : p.exitCode();
    run.out = p.readAllStandardOutput();
    run.err = p.readAllStandardError();
    run.elapsedMs = t.elapsed();
    return run;
}

QString writeTokenKubeconfig(const QString &dir, const std::string &server, const TokenKubeconfig &kubeconfig)
{
    const QString path = dir + QStringLiteral("/kubeconfig");
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    const QString ns = kubeconfig.namespace_.isEmpty()
                         ? QString()
                         : QStringLiteral("    namespace: %1\n").arg(kubeconfig.namespace_);
    const QByteArray text =
        QStringLiteral("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: %1\n"
                       "users:\n- name: u\n  user:\n    token: t\ncontexts:\n- name: %2\n  context:\n"
                       "    cluster: c\n    user: u\n%3current-context: %2\n")
            .arg(QString::fromStdString(server), kubeconfig.context, ns)
            .toUtf8();
    return f.write(text) == text.size() ? path : QString();
}

} // namespace fieldscope::testing
