// Kubeconfig loading: reading the files (--kubeconfig, KUBECONFIG, ~/.kube/config), merging them with
// the first-wins rule, the in-cluster fallback, and lookups on the merged result. The YAML mapping is
// in kubeconfigparse.cpp, resolution of a context into credentials and TLS material in
// kubeconfigresolve.cpp.
#include "kube/kubeconfig.h"

#include "kube/authlog.h"
#include "kube/kubeconfig_p.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace fieldscope::kube {

Q_LOGGING_CATEGORY(lcKubeAuth, "fieldscope.kube.auth")

using core::Error;
using core::ErrorCategory;
using core::Result;
using detail::configError;
using detail::joinNames;
using detail::kInClusterName;
using detail::readFile;

namespace detail {

namespace {

std::string fileTypeName(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISCHR(m) || S_ISBLK(m))
        return "a device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

std::string limitText(qint64 bytes)
{
    return bytes % (qint64{1024} * 1024) == 0 ? std::to_string(bytes / (qint64{1024} * 1024)) + " MiB"
                                              : std::to_string(bytes) + " bytes";
}

} // namespace

Result<QByteArray> readFile(const std::string &path, const std::string &what, qint64 maxBytes, FileKind kind)
{
    auto ioError = [&](const std::string &why) {
        return Error::make(ErrorCategory::Io, "unable to read " + what + " " + path + ": " + why, path);
    };
    const int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | (kind == FileKind::Regular ? O_NONBLOCK : 0);
    const int fd = ::open(path.c_str(), flags);
    if (fd < 0)
        return ioError(std::strerror(errno));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        return ioError(std::strerror(errno));
    if (S_ISDIR(st.st_mode) || (kind == FileKind::Regular && !S_ISREG(st.st_mode)))
        return configError(what + " " + path + " is " + fileTypeName(st.st_mode) + "; it must be a regular file", path);
    const std::string tooLarge = what + " " + path + " is larger than " + limitText(maxBytes)
                               + ", the limit for such files";
    if (S_ISREG(st.st_mode) && st.st_size > maxBytes)
        return configError(tooLarge, path);
    QByteArray out;
    char buf[64 * 1024];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return ioError(std::strerror(errno));
        if (n == 0)
            break;
        out.append(buf, qsizetype(n));
        if (out.size() > maxBytes) // grew since fstat, or a pipe or device without a size
            return configError(tooLarge, path);
    }
    return out;
}

} // namespace detail

namespace {

std::string envValue(const QProcessEnvironment &env, const char *name)
{
    return env.value(QLatin1String(name)).toStdString();
}

Result<Kubeconfig> loadFile(const std::string &path)
{
    auto bytes = readFile(path, "kubeconfig", detail::kMaxKubeconfigBytes, detail::FileKind::Any);
    if (!bytes)
        return bytes.error();
    return Kubeconfig::fromYaml(std::string_view(bytes->constData(), std::size_t(bytes->size())), path);
}

std::string absolutePath(const QString &p)
{
    return QDir::cleanPath(QFileInfo(p).absoluteFilePath()).toStdString();
}

} // namespace

void Kubeconfig::mergeFrom(Kubeconfig &&other)
{
    // First file wins per key, and a later file never fills in fields the first one lacks: whole
    // entries are taken or dropped (k8s.io/client-go/tools/clientcmd/loader.go).
    if (m_currentContext.empty())
        m_currentContext = other.m_currentContext;
    for (auto &c : other.m_clusters)
        if (!cluster(c.name))
            m_clusters.push_back(std::move(c));
    for (auto &u : other.m_users)
        if (!user(u.name))
            m_users.push_back(std::move(u));
    for (auto &c : other.m_contexts)
        if (!context(c.name))
            m_contexts.push_back(std::move(c));
    m_files.insert(m_files.end(), other.m_files.begin(), other.m_files.end());
}

Result<Kubeconfig> Kubeconfig::loadExplicit(const std::string &explicitPath)
{
    const std::string path = absolutePath(QString::fromStdString(explicitPath));
    if (!QFileInfo::exists(QString::fromStdString(path)))
        return configError("the kubeconfig file " + path + " given with --kubeconfig does not exist", path);
    qCDebug(lcKubeAuth) << "loading kubeconfig" << QString::fromStdString(path);
    auto kc = loadFile(path);
    if (!kc)
        return kc.error();
    kc->m_defaultPath = path;
    return kc;
}

core::Status Kubeconfig::mergeFile(const std::string &path)
{
    qCDebug(lcKubeAuth) << "loading kubeconfig" << QString::fromStdString(path);
    auto kc = loadFile(path);
    if (!kc)
        return kc.error();
    mergeFrom(std::move(*kc));
    return core::Unit{};
}

core::Status Kubeconfig::mergeList(const QString &kubeconfigEnv)
{
    std::vector<std::string> entries;
    for (const QString &e : kubeconfigEnv.split(QDir::listSeparator(), Qt::SkipEmptyParts)) {
        // Duplicates are removed by their text as given, like deduplicate() in loader.go.
        if (std::find(entries.begin(), entries.end(), e.toStdString()) == entries.end())
            entries.push_back(e.toStdString());
    }
    std::vector<std::string> missing;
    for (const auto &entry : entries) {
        const std::string path = absolutePath(QString::fromStdString(entry));
        if (m_defaultPath.empty())
            m_defaultPath = path;
        if (!QFileInfo::exists(QString::fromStdString(path))) {
            missing.push_back(path);
            continue;
        }
        if (auto st = mergeFile(path); !st)
            return st;
    }
    // Missing entries are normal (tools add files that may not exist yet); only "none exist" is
    // worth a warning.
    if (!entries.empty() && missing.size() == entries.size()) {
        m_warnings.push_back("none of the files in KUBECONFIG exist: " + joinNames(missing));
        qCWarning(lcKubeAuth).noquote() << QString::fromStdString(m_warnings.back());
    }
    return core::Unit{};
}

core::Status Kubeconfig::mergeHomeConfig(const QProcessEnvironment &env)
{
    QString home = env.value(QStringLiteral("HOME"));
    if (home.isEmpty())
        home = QDir::homePath();
    const std::string path = absolutePath(home + QStringLiteral("/.kube/config"));
    m_defaultPath = path;
    if (!QFileInfo::exists(QString::fromStdString(path)))
        return core::Unit{};
    return mergeFile(path);
}

// rest.InClusterConfig (staging/src/k8s.io/client-go/rest/config.go): the service account of
// the pod we run in, when KUBERNETES_SERVICE_HOST and _PORT are set.
std::optional<Kubeconfig::InCluster> Kubeconfig::inClusterFrom(const QProcessEnvironment &env,
                                                               const std::string &serviceAccountDir)
{
    const std::string host = envValue(env, "KUBERNETES_SERVICE_HOST");
    const std::string port = envValue(env, "KUBERNETES_SERVICE_PORT");
    if (host.empty() || port.empty())
        return std::nullopt;
    InCluster ic;
    // net.JoinHostPort: an IPv6 address needs brackets.
    ic.server = "https://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + port;
    const QDir sa(QString::fromStdString(serviceAccountDir));
    ic.caFile = sa.filePath(QStringLiteral("ca.crt")).toStdString();
    ic.tokenFile = sa.filePath(QStringLiteral("token")).toStdString();
    ic.namespace_ = envValue(env, "POD_NAMESPACE");
    if (ic.namespace_.empty()) {
        QFile nsFile(sa.filePath(QStringLiteral("namespace")));
        if (nsFile.open(QIODevice::ReadOnly))
            ic.namespace_ = QString::fromUtf8(nsFile.readAll()).trimmed().toStdString();
    }
    if (ic.namespace_.empty())
        ic.namespace_ = "default";
    qCDebug(lcKubeAuth) << "using the in-cluster service account for" << QString::fromStdString(ic.server);
    return ic;
}

// clientcmd's loading rules (staging/src/k8s.io/client-go/tools/clientcmd/loader.go): an explicit
// file alone, else every file of KUBECONFIG merged, else ~/.kube/config; then the in-cluster
// service account when the files define nothing usable.
Result<Kubeconfig> Kubeconfig::load(const LoadOptions &options)
{
    // An explicit file is never merged and never falls back to in-cluster (loader.go).
    if (!options.explicitPath.empty())
        return loadExplicit(options.explicitPath);
    Kubeconfig merged;
    const QProcessEnvironment &env = options.environment;
    const QString kubeconfigEnv = env.value(QStringLiteral("KUBECONFIG"));
    if (auto st = kubeconfigEnv.isEmpty() ? merged.mergeHomeConfig(env) : merged.mergeList(kubeconfigEnv); !st)
        return st.error();
    if (options.allowInCluster && merged.m_contexts.empty() && merged.m_clusters.empty())
        merged.m_inCluster = inClusterFrom(env, options.serviceAccountDir);
    return merged;
}

const ClusterConfig *Kubeconfig::cluster(const std::string &name) const
{
    auto it = std::find_if(m_clusters.begin(), m_clusters.end(), [&](const auto &c) { return c.name == name; });
    return it == m_clusters.end() ? nullptr : &*it;
}

const UserConfig *Kubeconfig::user(const std::string &name) const
{
    auto it = std::find_if(m_users.begin(), m_users.end(), [&](const auto &u) { return u.name == name; });
    return it == m_users.end() ? nullptr : &*it;
}

const ContextConfig *Kubeconfig::context(const std::string &name) const
{
    auto it = std::find_if(m_contexts.begin(), m_contexts.end(), [&](const auto &c) { return c.name == name; });
    return it == m_contexts.end() ? nullptr : &*it;
}

std::vector<ContextInfo> Kubeconfig::contexts() const
{
    std::vector<ContextInfo> out;
    if (m_inCluster) {
        out.push_back({kInClusterName, kInClusterName, "", m_inCluster->namespace_, m_inCluster->server, true});
        return out;
    }
    for (const auto &c : m_contexts) {
        ContextInfo info;
        info.name = c.name;
        info.cluster = c.cluster;
        info.user = c.user;
        info.namespace_ = c.namespace_.empty() ? "default" : c.namespace_;
        if (const auto *cl = cluster(c.cluster))
            info.server = cl->server;
        info.isCurrent = c.name == m_currentContext;
        out.push_back(std::move(info));
    }
    return out;
}

} // namespace fieldscope::kube
