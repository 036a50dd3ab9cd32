#include "kube/execplugin.h"

#include "core/base/jsonread.h"
#include "kube/authlog.h"
#include "kube/requestcommands.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QList>
#include <QMutex>
#include <QPointer>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTimer>

#include <utility>

namespace fieldscope::kube {

using core::Error;
using core::ErrorCategory;
using core::Json;
using core::Result;

namespace {

// Abandoned (killed) plugin processes not yet reaped: deleted when the application object is
// destroyed, so none outlives it (LeakSanitizer saw them in short test runs).
struct Abandoned {
    QMutex mutex;
    QList<QPointer<QProcess>> processes;
};
Abandoned &abandoned()
{
    static Abandoned a; // built on first use, not at load time (clazy non-pod-global-static)
    return a;
}

void deleteAbandoned()
{
    QMutexLocker lock(&abandoned().mutex);
    for (const QPointer<QProcess> &p : std::exchange(abandoned().processes, {}))
        delete p.data();
}

void keepUntilExit(QProcess *p)
{
    QMutexLocker lock(&abandoned().mutex);
    static const bool registered = [] {
        qAddPostRoutine(deleteAbandoned);
        return true;
    }();
    (void)registered;
    abandoned().processes.removeAll(nullptr);
    abandoned().processes.append(p);
}

constexpr qsizetype kMaxDiagnostics = qsizetype{8} * 1024;

Error authError(std::string message, std::string reason = {}, std::string where = {})
{
    Error e = Error::make(ErrorCategory::Auth, std::move(message), std::move(where));
    e.reason = std::move(reason);
    return e;
}

// client-go strips ANSI escapes from installHint so that a kubeconfig cannot drive the terminal;
// for us it keeps dialogs readable.
std::string stripControl(const std::string &s)
{
    QString q = QString::fromStdString(s);
    static const QRegularExpression ansi(QStringLiteral("\x1b\\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]"));
    q.remove(ansi);
    QString out;
    for (QChar c : std::as_const(q))
        if (c == QLatin1Char('\n') || c == QLatin1Char('\t')
            || (!c.isNonCharacter() && c.category() != QChar::Other_Control))
            out += c;
    return out.toStdString();
}

std::string notFoundMessage(const std::string &command, const std::string &installHint)
{
    // Wording after client-go's exec.go, so search engines lead users to the same answers.
    std::string m =
        "exec plugin: executable " + command
        + " not found\n\nIt looks like you are trying to use a client-go credential plugin that is not installed.";
    if (!installHint.empty())
        m += "\n\n" + stripControl(installHint);
    else
        m += "\n\nTo learn more about this feature, consult the documentation available at:\n"
             "https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins";
    return m;
}

std::string tail(const QByteArray &bytes)
{
    QByteArray t = bytes.size() > kMaxDiagnostics ? bytes.right(kMaxDiagnostics) : bytes;
    return QString::fromUtf8(t).trimmed().toStdString();
}

ExecOutcome finishRun(const ExecInvocation &inv, QProcess &p, bool timedOut, std::chrono::milliseconds timeout)
{
    ExecOutcome out{Error(), tail(p.readAllStandardError())};
    const QByteArray stdoutBytes = p.readAllStandardOutput();
    const std::string cmd = inv.program;
    if (p.error() == QProcess::FailedToStart) {
        // Vanished or lost its execute bit between prepareExec() and now.
        out.credential = authError(notFoundMessage(inv.command, {}) + " (" + p.errorString().toStdString() + ")",
                                   "ExecPluginNotFound", inv.kubeconfigFile);
    } else if (timedOut) {
        out.credential = authError("exec plugin " + cmd + " did not finish within "
                                       + std::to_string(timeout.count() / 1000) + " s and was stopped",
                                   "ExecPluginTimeout", inv.kubeconfigFile);
    } else if (p.exitStatus() == QProcess::CrashExit) {
        out.credential = authError("exec plugin " + cmd + " crashed"
                                       + (out.diagnostics.empty() ? std::string() : ": " + out.diagnostics),
                                   "ExecPluginFailed", inv.kubeconfigFile);
    } else if (p.exitCode() != 0) {
        // The plugin's own stderr is the useful part ("login required", "profile not found").
        out.credential = authError("exec plugin " + cmd + " failed with exit code " + std::to_string(p.exitCode())
                                       + (out.diagnostics.empty() ? std::string() : ": " + out.diagnostics),
                                   "ExecPluginFailed", inv.kubeconfigFile);
    } else {
        out.credential = parseExecCredential(std::string_view(stdoutBytes.constData(), std::size_t(stdoutBytes.size())),
                                             inv.apiVersion, cmd);
        if (!out.credential.ok())
            out.credential.error().where = inv.kubeconfigFile;
    }
    if (out.credential.ok())
        qCInfo(lcKubeAuth).noquote() << "exec plugin" << QString::fromStdString(cmd) << "returned a credential"
                                     << (out.credential->expiry ? QStringLiteral("valid until ")
                                                                      + out.credential->expiry->toString(Qt::ISODate)
                                                                : QStringLiteral("without expiry"));
    else
        qCWarning(lcKubeAuth).noquote() << "exec plugin" << QString::fromStdString(cmd)
                                        << "failed:" << QString::fromStdString(out.credential.error().reason);
    return out;
}

void configure(QProcess &p, const ExecInvocation &inv)
{
    p.setProgram(QString::fromStdString(inv.program));
    QStringList args;
    for (const auto &a : inv.args)
        args << QString::fromStdString(a);
    p.setArguments(args);
    p.setProcessEnvironment(inv.environment);
    // interactive is always false for us: the plugin gets no stdin (interactiveMode Never/IfAvailable
    // without a terminal).
    p.setStandardInputFile(QProcess::nullDevice());
}

} // namespace

std::string ExecInvocation::fingerprint() const
{
    // Length-prefixed fields: no choice of strings can make two different invocations hash alike.
    QCryptographicHash h(QCryptographicHash::Sha256);
    auto field = [&h](std::string_view v) {
        const quint64 n = v.size();
        h.addData(QByteArrayView(reinterpret_cast<const char *>(&n), sizeof n));
        h.addData(QByteArrayView(v.data(), qsizetype(v.size())));
    };
    field("fieldscope-exec-consent-v2");
    for (const std::string *s : {&kubeconfigFile, &contextName, &userName, &server, &command, &program})
        field(*s);
    field(std::to_string(args.size()));
    for (const auto &a : args)
        field(a);
    field(std::to_string(addedEnv.size()));
    for (const auto &v : addedEnv) {
        field(v.name);
        field(v.value);
    }
    field(provideClusterInfo ? "provideClusterInfo" : "-");
    field(provideClusterInfo ? clusterConfig : std::string());
    return h.result().toHex().toStdString();
}

Json execClusterInfo(const ResolvedConfig &config)
{
    Json c = Json::object();
    c["server"] = config.server;
    if (!config.tlsServerName.empty())
        c["tls-server-name"] = config.tlsServerName;
    if (config.insecureSkipTlsVerify)
        c["insecure-skip-tls-verify"] = true;
    if (!config.caPem.isEmpty())
        c["certificate-authority-data"] = config.caPem.toBase64().toStdString();
    if (!config.proxyUrl.empty())
        c["proxy-url"] = config.proxyUrl;
    if (config.disableCompression)
        c["disable-compression"] = true;
    if (!config.execClusterConfig.is_null())
        c["config"] = config.execClusterConfig;
    return c;
}

Result<ExecInvocation> prepareExec(const ExecConfig &exec, const Json &clusterInfo,
                                   const QProcessEnvironment &baseEnvironment, const std::string &kubeconfigFile,
                                   const std::string &userName)
{
    if (exec.interactiveMode == ExecInteractiveMode::Always)
        return authError(
            "the exec plugin " + exec.command + " of user \"" + userName
                + "\" requires a terminal (interactiveMode: Always), which Fieldscope cannot provide; "
                  "use interactiveMode IfAvailable or Never, or log in with the plugin in a terminal first",
            "ExecPluginInteractive", kubeconfigFile);
    if (exec.apiVersion != kExecApiV1 && exec.apiVersion != kExecApiV1beta1)
        return authError("exec plugin " + exec.command + ": invalid apiVersion \"" + exec.apiVersion + "\"",
                         "ExecPluginConfig", kubeconfigFile);

    ExecInvocation inv;
    inv.command = exec.command;
    inv.args = exec.args;
    inv.apiVersion = exec.apiVersion;
    inv.kubeconfigFile = kubeconfigFile;
    inv.userName = userName;

    const QString command = QString::fromStdString(exec.command);
    QString program;
    if (command.contains(QLatin1Char('/'))) {
        const QFileInfo fi(command);
        if (fi.isFile() && fi.isExecutable())
            program = fi.absoluteFilePath();
    } else {
        // Only absolute PATH entries: "." or "bin" would run whatever sits in the working
        // directory under the plugin's name (Go's exec.LookPath returns ErrDot for those).
        QStringList absolute, relative;
        for (const QString &dir : baseEnvironment.value(QStringLiteral("PATH")).split(QDir::listSeparator()))
            (dir.startsWith(QLatin1Char('/')) ? absolute : relative) << dir;
        program = QStandardPaths::findExecutable(command, absolute);
        if (program.isEmpty()) {
            for (const QString &dir : std::as_const(relative)) {
                if (!QStandardPaths::findExecutable(command, {dir.isEmpty() ? QStringLiteral(".") : dir}).isEmpty())
                    return authError(
                        "exec plugin: executable " + exec.command + " was found only in the relative PATH entry \""
                            + (dir.isEmpty() ? std::string(".") : dir.toStdString())
                            + "\", which is never searched (it would run a program from the working directory); "
                              "give the command as an absolute path or put its folder in PATH",
                        "ExecPluginNotFound", kubeconfigFile);
            }
        }
    }
    if (program.isEmpty())
        return authError(notFoundMessage(exec.command, exec.installHint), "ExecPluginNotFound", kubeconfigFile);
    inv.program = program.toStdString();

    inv.environment = baseEnvironment;
    for (const auto &v : exec.env) {
        inv.environment.insert(QString::fromStdString(v.name), QString::fromStdString(v.value));
        inv.addedEnvNames.push_back(v.name);
        inv.addedEnv.push_back(v);
    }
    inv.provideClusterInfo = exec.provideClusterInfo;
    Json input = {{"kind", "ExecCredential"}, {"apiVersion", exec.apiVersion}, {"spec", {{"interactive", false}}}};
    if (exec.provideClusterInfo && !clusterInfo.is_null())
        input["spec"]["cluster"] = clusterInfo;
    inv.environment.insert(QStringLiteral("KUBERNETES_EXEC_INFO"), QString::fromStdString(core::toJsonText(input)));
    inv.addedEnvNames.emplace_back("KUBERNETES_EXEC_INFO");
    return inv;
}

Result<ExecInvocation> prepareExec(const ResolvedConfig &config, const QProcessEnvironment &baseEnvironment)
{
    const AuthConfig &a = config.auth;
    auto inv = prepareExec(a.exec, execClusterInfo(config), baseEnvironment, a.sourceFile, a.userName);
    if (!inv)
        return inv;
    inv->contextName = config.contextName;
    inv->server = config.server;
    if (a.exec.provideClusterInfo && !config.execClusterConfig.is_null())
        inv->clusterConfig = core::toJsonText(config.execClusterConfig);
    return inv;
}

Result<ExecCredential> parseExecCredential(std::string_view stdoutText, const std::string &expectedApiVersion,
                                           const std::string &command)
{
    const std::string who = "exec plugin " + command;
    // parseJson's message quotes the text it choked on, which may be a token: report the offset only.
    auto parsed = core::parseJson(stdoutText);
    if (!parsed)
        return authError(who + " wrote output that is not JSON (" + parsed.error().where
                             + "); expected an ExecCredential",
                         "ExecPluginOutput");
    const Json &j = *parsed;
    if (!j.is_object())
        return authError(who + " wrote JSON that is not an ExecCredential object", "ExecPluginOutput");
    // A field of the wrong type is named (never its value: it may be a token) and fails the run,
    // rather than reading as absent and blaming a missing token.
    std::string wrongType, wrongPath;
    auto field = [&](const Json &obj, const char *key, const char *path) -> std::string {
        auto it = obj.find(key);
        if (it == obj.end() || it->is_null())
            return {};
        if (!it->is_string()) {
            if (wrongType.empty()) {
                wrongType = std::string(path) + " is " + core::jsonTypeName(*it) + ", expected a string";
                wrongPath = path;
            }
            return {};
        }
        return it->get<std::string>();
    };
    auto wrong = [&] {
        return authError(who + " wrote an ExecCredential where " + wrongType, "ExecPluginOutput", wrongPath);
    };
    const std::string kind = field(j, "kind", "kind");
    if (!wrongType.empty())
        return wrong();
    if (kind != "ExecCredential")
        return authError(who + " returned kind \"" + kind + "\"; expected ExecCredential", "ExecPluginOutput");
    const std::string apiVersion = field(j, "apiVersion", "apiVersion");
    if (!wrongType.empty())
        return wrong();
    if (apiVersion != expectedApiVersion)
        return authError(who + " is configured to use API version " + expectedApiVersion + ", plugin returned version "
                             + (apiVersion.empty() ? std::string("(none)") : apiVersion),
                         "ExecPluginOutput");
    auto status = j.find("status");
    if (status != j.end() && !status->is_null() && !status->is_object())
        return authError(who + " wrote an ExecCredential where status is " + core::jsonTypeName(*status)
                             + ", expected an object",
                         "ExecPluginOutput");
    if (status == j.end() || !status->is_object())
        return authError(who + " didn't return a status field", "ExecPluginOutput");
    ExecCredential cred;
    cred.token = field(*status, "token", "status.token");
    cred.clientCertificatePem = QByteArray::fromStdString(field(*status, "clientCertificateData",
                                                                "status.clientCertificateData"));
    cred.clientKeyPem = QByteArray::fromStdString(field(*status, "clientKeyData", "status.clientKeyData"));
    const std::string expiry = field(*status, "expirationTimestamp", "status.expirationTimestamp");
    if (!wrongType.empty())
        return wrong();
    if (cred.token.empty() && cred.clientCertificatePem.isEmpty() && cred.clientKeyPem.isEmpty())
        return authError(who + " didn't return a token or cert/key pair", "ExecPluginOutput");
    if (cred.clientCertificatePem.isEmpty() != cred.clientKeyPem.isEmpty())
        return authError(who + " returned only certificate or key, not both", "ExecPluginOutput");
    if (!expiry.empty()) {
        // RFC 3339 (metav1.Time); Qt's ISO reader accepts "Z", offsets and fractional seconds.
        QDateTime t = QDateTime::fromString(QString::fromStdString(expiry), Qt::ISODateWithMs);
        if (!t.isValid())
            return authError(who + " returned an invalid expirationTimestamp \"" + expiry + "\"", "ExecPluginOutput");
        cred.expiry = t.toUTC();
    }
    return cred;
}

ExecOutcome runExecPlugin(const ExecInvocation &invocation, std::chrono::milliseconds timeout,
                          const std::atomic<bool> *cancel)
{
    QProcess p;
    configure(p, invocation);
    qCInfo(lcKubeAuth).noquote() << "running exec plugin" << QString::fromStdString(invocation.program) << "for user"
                                 << QString::fromStdString(invocation.userName);
    QElapsedTimer clock;
    clock.start();
    p.start();
    bool timedOut = false;
    bool cancelled = false;
    if (p.waitForStarted(int(timeout.count()))) {
        // Short waits so that closing the connection (cancel) stops a plugin waiting for a browser
        // login at once instead of after the full timeout.
        while (p.state() != QProcess::NotRunning && !p.waitForFinished(100)) {
            if (p.state() == QProcess::NotRunning)
                break;
            cancelled = cancel && cancel->load();
            timedOut = !cancelled && clock.elapsed() >= timeout.count();
            if (cancelled || timedOut) {
                p.kill();
                p.waitForFinished(2000);
                break;
            }
        }
    }
    if (cancelled)
        return {Error::make(ErrorCategory::Cancelled,
                            "the exec plugin " + invocation.program + " was stopped: the connection was closed"),
                {}};
    return finishRun(invocation, p, timedOut, timeout);
}

ExecPluginProcess::ExecPluginProcess(QObject *parent) : QObject(parent) {}

ExecPluginProcess::~ExecPluginProcess()
{
    abandonProcess();
}

void ExecPluginProcess::abandonProcess()
{
    if (!m_process)
        return;
    QProcess *p = std::exchange(m_process, nullptr);
    p->disconnect(this);
    if (p->state() == QProcess::NotRunning) {
        delete p;
        return;
    }
    // No waitForFinished here (this may be the GUI thread): the killed process deletes its QProcess
    // once it has been reaped; one still waiting when the application ends is deleted then.
    p->setParent(nullptr);
    connect(p, &QProcess::finished, p, &QObject::deleteLater);
    p->kill();
    keepUntilExit(p);
}

bool ExecPluginProcess::isRunning() const
{
    return m_process && m_process->state() != QProcess::NotRunning;
}

void ExecPluginProcess::start(ExecInvocation invocation, std::chrono::milliseconds timeout)
{
    Q_ASSERT(!isRunning());
    m_invocation = std::move(invocation);
    m_outcome.reset();
    abandonProcess();
    delete m_timer;
    m_process = new QProcess(this);
    m_timer = new QTimer(this);
    m_timer->setSingleShot(true);
    configure(*m_process, m_invocation);
    connect(m_process, &QProcess::finished, this, [this] { complete(false); });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            complete(false);
    });
    connect(m_timer, &QTimer::timeout, this, [this, timeout] {
        if (m_outcome)
            return;
        m_outcome.emplace(finishRun(m_invocation, *m_process, true, timeout));
        abandonProcess();
        Q_EMIT finished();
    });
    qCInfo(lcKubeAuth).noquote() << "running exec plugin" << QString::fromStdString(m_invocation.program) << "for user"
                                 << QString::fromStdString(m_invocation.userName);
    m_timer->start(timeout);
    m_process->start();
}

void ExecPluginProcess::complete(bool timedOut)
{
    if (m_outcome)
        return;
    m_timer->stop();
    m_outcome.emplace(finishRun(m_invocation, *m_process, timedOut, std::chrono::milliseconds(0)));
    Q_EMIT finished();
}

} // namespace fieldscope::kube
