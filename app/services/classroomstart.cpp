// Starting and stopping a class (see classroom.h): certificates through scripts/fieldscope-cluster
// (openssl, keys only in files), namespaces and RBAC through the sandbox admin's kubeconfig, one
// kubeconfig per student, and the API server's client CA bundle.
#include "app/services/classroom.h"
#include "app/services/classroom_p.h"
#include "app/services/classroomkube_p.h"
#include "app/services/sandbox.h"
#include "core/base/privatefiles.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QThread>

#include <arpa/inet.h>

#include <algorithm>
#include <csignal>

namespace fieldscope::app {

using classroom_detail::classDir;
using classroom_detail::classError;
using classroom_detail::writeClassState;

namespace {

// The most stderr of the cluster script kept for an error message.
constexpr qsizetype kMaxScriptMessage = 2000;
// class-trust may restart the API server (its flags change with --listen): up to two minutes.
constexpr int kScriptTimeoutMs = 180'000;
// The longest class: a certificate that outlives the course is a credential nobody watches.
constexpr std::chrono::seconds kMaxExpires{std::chrono::hours(24 * 31)};

// Runs `fieldscope-cluster COMMAND DIR ARGS...`. Arguments are names, times and addresses only:
// no key or token ever reaches a command line.
core::Status runClusterScript(const QString &command, const QString &clusterDir, const QStringList &args)
{
    QProcess process;
    process.setProgram(SandboxController::clusterScript());
    process.setArguments(QStringList{command, clusterDir} + args);
    process.setProcessChannelMode(QProcess::SeparateChannels);
    process.setStandardInputFile(QProcess::nullDevice());
    process.start();
    if (!process.waitForStarted(30'000))
        return classError(
            core::ErrorCategory::Config,
            QStringLiteral("cannot run %1: %2").arg(SandboxController::clusterScript(), process.errorString()));
    if (!process.waitForFinished(kScriptTimeoutMs)) {
        process.kill();
        process.waitForFinished(5000);
        return classError(
            core::ErrorCategory::Server,
            QStringLiteral("fieldscope-cluster %1 did not finish in %2 s").arg(command).arg(kScriptTimeoutMs / 1000));
    }
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        const QString err = QString::fromUtf8(process.readAllStandardError()).trimmed().right(kMaxScriptMessage);
        return classError(core::ErrorCategory::Server,
                          QStringLiteral("fieldscope-cluster %1 failed: %2").arg(command, err));
    }
    return core::success();
}

struct ListenAddress {
    QString host; // "" = loopback only
    int port = 0; // 0 = the API server's
};

// The address in the textual form both the certificate's SAN and the URL use; "" when `host` is
// not an IP address. `unusable`: the unspecified address (0.0.0.0, ::) or a multicast one, which
// no student can connect to and no serving certificate can name.
QString ipAddress(const QString &host, bool *loopback, bool *v6, bool *unusable)
{
    const QByteArray latin = host.toLatin1();
    unsigned char buf[16] = {};
    if (inet_pton(AF_INET, latin.constData(), buf) == 1) {
        *loopback = buf[0] == 127;
        *v6 = false;
        *unusable = std::all_of(buf, buf + 4, [](unsigned char b) { return b == 0; })
                 || (buf[0] >= 224 && buf[0] <= 239);
    } else if (inet_pton(AF_INET6, latin.constData(), buf) == 1) {
        static const unsigned char one[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
        *loopback = std::equal(buf, buf + 16, one);
        *v6 = true;
        *unusable = std::all_of(buf, buf + 16, [](unsigned char b) { return b == 0; }) || buf[0] == 0xff;
    } else {
        return {};
    }
    char text[INET6_ADDRSTRLEN] = {};
    inet_ntop(*v6 ? AF_INET6 : AF_INET, buf, text, sizeof text);
    return QString::fromLatin1(text);
}

core::Result<ListenAddress> parseListen(const QString &text)
{
    ListenAddress out;
    if (text.isEmpty())
        return out;
    QString host = text;
    QString port;
    bool loopback = false, v6 = false, unusable = false;
    static const QRegularExpression bracketed(QStringLiteral("^\\[([0-9A-Fa-f:.]+)\\](?::([0-9]+))?$"));
    static const QRegularExpression hostPort(QStringLiteral("^([^:]+)(?::([0-9]+))?$"));
    if (const auto m = bracketed.match(text); m.hasMatch()) {
        host = m.captured(1);
        port = m.captured(2);
    } else if (const auto h = hostPort.match(text); h.hasMatch()) {
        host = h.captured(1);
        port = h.captured(2);
    } // else: an unbracketed IPv6 address, or junk
    const QString ip = ipAddress(host, &loopback, &v6, &unusable);
    if (!ip.isEmpty() && unusable)
        return classError(core::ErrorCategory::Invalid,
                          QStringLiteral("--listen %1: name the address students connect to, not an unspecified or "
                                         "multicast address (the API server then listens on every address anyway)")
                              .arg(ip));
    static const QRegularExpression hostname(QStringLiteral("^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$"));
    if (ip.isEmpty() && !hostname.match(host).hasMatch())
        return classError(
            core::ErrorCategory::Invalid,
            QStringLiteral("--listen must be ADDR or ADDR:PORT (an IP address or a host name), not \"%1\"")
                .arg(text.left(100)));
    if (!port.isEmpty()) {
        bool ok = false;
        out.port = port.toInt(&ok);
        if (!ok || out.port < 1 || out.port > 65535)
            return classError(core::ErrorCategory::Invalid, QStringLiteral("--listen: %1 is not a port").arg(port));
    }
    if (loopback || host == QLatin1String("localhost"))
        return ListenAddress{QString(), out.port}; // loopback is where the API server listens anyway
    out.host = ip.isEmpty() ? host : ip;
    return out;
}

QString urlHost(const QString &host)
{
    return host.contains(QLatin1Char(':')) ? QLatin1Char('[') + host + QLatin1Char(']') : host;
}

core::Result<QByteArray> readSmallFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return classError(core::ErrorCategory::Io, QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
    return file.read(qint64(64) * 1024);
}

QString yamlQuoted(const QString &s)
{
    QString out = s;
    out.replace(QLatin1Char('\''), QStringLiteral("''"));
    return QLatin1Char('\'') + out + QLatin1Char('\'');
}

// The student's kubeconfig: the sandbox CA (it signs the serving certificate), the student's own
// certificate and key, the class namespace as default. Nothing of the teacher's.
core::Result<QByteArray> studentKubeconfig(const QString &clusterDir, const QString &name, const QString &server,
                                           const QString &classNamespace)
{
    const QString pki = classDir(clusterDir) + QStringLiteral("/pki/");
    auto ca = readSmallFile(clusterDir + QStringLiteral("/pki/ca.crt"));
    auto cert = readSmallFile(pki + name + QStringLiteral(".crt"));
    auto key = readSmallFile(pki + name + QStringLiteral(".key"));
    for (const auto *r : {&ca, &cert, &key})
        if (!*r)
            return r->error();
    const QString text = QStringLiteral("apiVersion: v1\n"
                                        "kind: Config\n"
                                        "current-context: %1\n"
                                        "clusters:\n"
                                        "- name: fieldscope-class\n"
                                        "  cluster:\n"
                                        "    server: %2\n"
                                        "    certificate-authority-data: %3\n"
                                        "users:\n"
                                        "- name: %1\n"
                                        "  user:\n"
                                        "    client-certificate-data: %4\n"
                                        "    client-key-data: %5\n"
                                        "contexts:\n"
                                        "- name: %1\n"
                                        "  context:\n"
                                        "    cluster: fieldscope-class\n"
                                        "    user: %1\n"
                                        "    namespace: %6\n")
                             .arg(name, yamlQuoted(server), QString::fromLatin1(ca->toBase64()),
                                  QString::fromLatin1(cert->toBase64()), QString::fromLatin1(key->toBase64()),
                                  classNamespace);
    return text.toUtf8();
}

core::Status validateOptions(const ClassStartOptions &options)
{
    if (options.students.isEmpty())
        return classError(core::ErrorCategory::Invalid, QStringLiteral("a class needs at least one student"));
    if (options.students.size() > kMaxStudents)
        return classError(core::ErrorCategory::Invalid,
                          QStringLiteral("a class has at most %1 students").arg(kMaxStudents));
    QStringList seen;
    for (const QString &name : options.students) {
        if (auto valid = validateStudentName(name); !valid)
            return valid;
        if (seen.contains(name))
            return classError(core::ErrorCategory::Invalid, QStringLiteral("\"%1\" is named twice").arg(name));
        seen.append(name);
        if (!options.namespacePrefix.isEmpty() && options.namespacePrefix.size() + 1 + name.size() > 63)
            return classError(
                core::ErrorCategory::Invalid,
                QStringLiteral("the namespace %1-%2 is longer than 63 characters").arg(options.namespacePrefix, name));
    }
    if (!options.namespacePrefix.isEmpty() && !validateStudentName(options.namespacePrefix))
        return classError(core::ErrorCategory::Invalid, QStringLiteral("the namespace prefix is not a DNS label"));
    if (options.expires.count() <= 0 || options.expires > kMaxExpires)
        return classError(core::ErrorCategory::Invalid,
                          QStringLiteral("--expires must be between 1 second and 31 days"));
    if (options.outDir.isEmpty())
        return classError(core::ErrorCategory::Invalid, QStringLiteral("--out DIR is required"));
    if (options.clusterDir.isEmpty() || !QFile::exists(options.clusterDir + QStringLiteral("/kubeconfig")))
        return classError(core::ErrorCategory::Config,
                          QStringLiteral("no sandbox in %1 (no kubeconfig there; start it with the window or "
                                         "scripts/fieldscope-cluster start DIR)")
                              .arg(options.clusterDir));
    return core::success();
}

core::Result<int> apiServerPort(const QString &clusterDir)
{
    auto bytes = readSmallFile(clusterDir + QStringLiteral("/run/apiserver.port"));
    if (!bytes)
        return classError(core::ErrorCategory::Config,
                          QStringLiteral("the sandbox in %1 is not running").arg(clusterDir));
    bool ok = false;
    const int port = bytes->trimmed().toInt(&ok);
    if (!ok || port < 1 || port > 65535)
        return classError(core::ErrorCategory::Config,
                          QStringLiteral("%1/run/apiserver.port is not a port").arg(clusterDir));
    return port;
}

// Writes every student's kubeconfig into the (private) output folder.
core::Status writeKubeconfigs(ClassState &state, const QString &server)
{
    const QString out = QDir(state.outDir).absolutePath();
    if (auto made = core::makePrivateDirectory(out.toStdString(), false); !made)
        return made.error();
    for (ClassStudent &student : state.students) {
        student.kubeconfigPath = out + QLatin1Char('/') + student.name + QStringLiteral(".kubeconfig");
        auto text = studentKubeconfig(state.clusterDir, student.name, server, state.classNamespace);
        if (!text)
            return text.error();
        if (auto written = core::writePrivateFileDurably(student.kubeconfigPath.toStdString(), text->toStdString());
            !written)
            return written.error();
    }
    state.outDir = out;
    return core::success();
}

// Whether DIR/run/apiserver.pid names a live process: a stopped sandbox has nothing to revoke in
// memory (it reads the bundle when it starts).
bool apiServerAlive(const QString &clusterDir)
{
    auto pid = readSmallFile(clusterDir + QStringLiteral("/run/apiserver.pid"));
    bool ok = false;
    const long value = pid ? pid->trimmed().toLong(&ok) : 0;
    return ok && value > 1 && ::kill(pid_t(value), 0) == 0;
}

// The first student's credential against the API server on loopback: its HTTP status, 0 when
// unreachable (see studentProbe).
int probeFirstStudent(const ClassState &state)
{
    if (state.students.isEmpty())
        return 0;
    auto port = apiServerPort(state.clusterDir);
    return port
             ? classroom_detail::studentProbe(state.clusterDir, state.students.front().name,
                                              QStringLiteral("https://127.0.0.1:%1").arg(*port), state.classNamespace)
             : 0;
}

// The API server answers a student only once it has re-read the client CA bundle (a fraction of a
// second on 1.37). Waits until it accepts the first student.
bool waitForStudentAccepted(const ClassState &state, std::chrono::seconds limit)
{
    if (state.students.isEmpty())
        return true;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (true) {
        const int code = probeFirstStudent(state);
        if (code > 0 && code != 401)
            return true;
        if (std::chrono::steady_clock::now() >= deadline)
            return false;
        QThread::msleep(100);
    }
}

// After class-revoke (which restarted a running API server with the new bundle): false only
// while the server still accepts the first student. Unreachable counts as refused: any API
// server that starts later reads the bundle class-revoke wrote.
bool waitForStudentRefused(const ClassState &state, std::chrono::seconds limit)
{
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (true) {
        const int code = probeFirstStudent(state);
        if (code == 401 || code == 0)
            return true;
        if (std::chrono::steady_clock::now() >= deadline)
            return false;
        QThread::msleep(100);
    }
}

// Records the class, then has the API server trust it (listening on `listenHost` too, when
// given) and waits until it accepts a student. Recorded first, so `class stop` can always undo a
// start that failed half-way; a failure here undoes it at once.
core::Status trustClass(ClassState &state, const QString &listenHost)
{
    state.running = true;
    if (auto saved = writeClassState(state); !saved)
        return saved;
    QStringList trustArgs;
    if (!listenHost.isEmpty())
        trustArgs << QStringLiteral("--listen") << listenHost;
    if (auto trusted = runClusterScript(QStringLiteral("class-trust"), state.clusterDir, trustArgs); !trusted) {
        (void)stopClass(state.clusterDir, false);
        return trusted;
    }
    if (!waitForStudentAccepted(state, std::chrono::seconds(60))) {
        (void)stopClass(state.clusterDir, false);
        return classError(core::ErrorCategory::Auth,
                          QStringLiteral("the API server does not accept the students' certificates"));
    }
    return core::success();
}

} // namespace

core::Result<ClassState> startClass(const ClassStartOptions &options)
{
    if (auto valid = validateOptions(options); !valid)
        return valid.error();
    auto listen = parseListen(options.listen);
    if (!listen)
        return listen.error();
    if (auto existing = readClassState(options.clusterDir); existing && existing->running)
        return classError(
            core::ErrorCategory::Conflict,
            QStringLiteral("a class is already running in %1 (fieldscope class stop first)").arg(options.clusterDir));
    if (!runClusterScript(QStringLiteral("status"), options.clusterDir, {}))
        return classError(core::ErrorCategory::Config,
                          QStringLiteral("the sandbox in %1 is not running (start the window's sandbox, or "
                                         "scripts/fieldscope-cluster start DIR)")
                              .arg(options.clusterDir));
    auto port = apiServerPort(options.clusterDir);
    if (!port)
        return port.error();
    if (listen->port != 0 && listen->port != *port)
        return classError(
            core::ErrorCategory::Invalid,
            QStringLiteral("the sandbox's API server listens on port %1: use --listen %2 or --listen %2:%1")
                .arg(*port)
                .arg(urlHost(listen->host.isEmpty() ? QStringLiteral("127.0.0.1") : listen->host)));
    auto admin = classroom_detail::AdminClient::open(options.clusterDir);
    if (!admin)
        return admin.error();

    ClassState state;
    state.clusterDir = options.clusterDir;
    state.listen = listen->host.isEmpty() ? QString()
                                          : urlHost(listen->host) + QLatin1Char(':') + QString::number(*port);
    state.started = QDateTime::currentDateTimeUtc();
    // Whole seconds, as the certificates' NotAfter (openssl ca -enddate) holds it.
    state.expires = QDateTime::fromSecsSinceEpoch(state.started.toSecsSinceEpoch() + options.expires.count(), Qt::UTC);
    state.outDir = options.outDir;
    if (!options.namespacePrefix.isEmpty())
        state.classNamespace = options.namespacePrefix;
    for (const QString &name : options.students)
        state.students.append(ClassStudent{name,
                                           options.namespacePrefix.isEmpty()
                                               ? QStringLiteral("student-") + name
                                               : options.namespacePrefix + QLatin1Char('-') + name,
                                           QString()});

    // Recorded (not running) before anything is made, so `class stop --purge` finds what a start
    // that fails half-way leaves behind.
    if (auto saved = writeClassState(state); !saved)
        return saved.error();
    const QString notAfter = state.expires.toUTC().toString(QStringLiteral("yyyyMMddHHmmss")) + QLatin1Char('Z');
    if (auto certs = runClusterScript(QStringLiteral("class-certs"), state.clusterDir,
                                      {QStringLiteral("--students"), options.students.join(QLatin1Char(',')),
                                       QStringLiteral("--not-after"), notAfter});
        !certs)
        return certs.error();
    if (auto made = admin->makeClassNamespaces(state); !made)
        return made.error();
    const QString server = QStringLiteral("https://%1:%2")
                               .arg(listen->host.isEmpty() ? QStringLiteral("127.0.0.1") : urlHost(listen->host))
                               .arg(*port);
    if (auto written = writeKubeconfigs(state, server); !written)
        return written.error();
    if (auto trusted = trustClass(state, listen->host); !trusted)
        return trusted.error();
    return state;
}

core::Status stopClass(const QString &clusterDir, bool purge)
{
    auto read = readClassState(clusterDir);
    if (!read)
        return read.error();
    ClassState state = std::move(read).value();
    if (state.running) {
        // class-revoke rewrites the bundle and restarts a running API server (every student's
        // open stream ends); a stopped sandbox only gets the bundle, which it reads when it starts.
        core::Status revoked = runClusterScript(QStringLiteral("class-revoke"), clusterDir, {});
        if (!revoked && !apiServerAlive(clusterDir))
            return revoked;
        if (apiServerAlive(clusterDir) && !waitForStudentRefused(state, std::chrono::seconds(30)))
            return classError(core::ErrorCategory::Server,
                              QStringLiteral("the API server still accepts the students' certificates"));
        // A revoke that could not restart the server (its binary not found) still rewrote the
        // bundle, and the server refuses the students now: the class is over, though a watch a
        // student opened before may run on until its timeout. Recorded, then said.
        state.running = false;
        if (auto saved = writeClassState(state); !saved)
            return saved;
        if (!revoked)
            return classError(core::ErrorCategory::Server,
                              QStringLiteral("the students' certificates are refused from now on, but the API server "
                                             "could not be restarted to end the streams they opened before (%1)")
                                  .arg(QString::fromStdString(revoked.error().message)));
    }
    if (!purge)
        return core::success();
    auto admin = classroom_detail::AdminClient::open(clusterDir);
    if (!admin)
        return admin.error();
    if (auto deleted = admin->deleteClassNamespaces(state); !deleted)
        return deleted;
    for (const ClassStudent &student : state.students)
        if (!student.kubeconfigPath.isEmpty())
            QFile::remove(student.kubeconfigPath);
    QDir(classDir(clusterDir)).removeRecursively();
    return core::success();
}

} // namespace fieldscope::app
