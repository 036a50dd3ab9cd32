#include "kube/kubeconfig.h"

#include "core/yaml.h"
#include "kube/authlog.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QUrl>

#include <algorithm>
#include <cctype>
#include <set>

namespace fieldscope::kube {

Q_LOGGING_CATEGORY(lcKubeAuth, "fieldscope.kube.auth")

using core::Error;
using core::ErrorCategory;
using core::Json;
using core::Result;

namespace {

constexpr const char *kInClusterName = "in-cluster";

std::string quote(const std::string &s)
{
    return "\"" + s + "\"";
}

std::string joinNames(const std::vector<std::string> &names, const char *sep = ", ")
{
    std::string out;
    for (const auto &n : names) {
        if (!out.empty())
            out += sep;
        out += n;
    }
    return out;
}

Error configError(std::string message, std::string where)
{
    return Error::make(ErrorCategory::Config, std::move(message), std::move(where));
}

// Reads a whole small file. The error names the path and the reason, never the content.
Result<QByteArray> readFile(const std::string &path, const std::string &what)
{
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        return Error::make(ErrorCategory::Io, "unable to read " + what + " " + path + ": " + f.errorString().toStdString(), path);
    return f.readAll();
}

// Field-by-field reader of one kubeconfig file. Errors name the file and the JSON path of the
// field (users["sso"].user.token), never the value: a mistyped token must not end up in a dialog.
class FileParser
{
public:
    FileParser(std::string path) : m_path(std::move(path)), m_dir(QFileInfo(QString::fromStdString(m_path)).absolutePath()) {}

    Error error(const std::string &message) const { return configError(message, m_path); }

    Result<std::string> str(const Json &obj, const char *key, const std::string &ctx) const
    {
        auto it = obj.find(key);
        if (it == obj.end() || it->is_null())
            return std::string();
        if (!it->is_string())
            return error(ctx + "." + key + " must be a string (quote the value)");
        return it->get<std::string>();
    }

    Result<bool> boolean(const Json &obj, const char *key, const std::string &ctx) const
    {
        auto it = obj.find(key);
        if (it == obj.end() || it->is_null())
            return false;
        if (!it->is_boolean())
            return error(ctx + "." + key + " must be true or false");
        return it->get<bool>();
    }

    Result<std::vector<std::string>> strList(const Json &obj, const char *key, const std::string &ctx) const
    {
        std::vector<std::string> out;
        auto it = obj.find(key);
        if (it == obj.end() || it->is_null())
            return out;
        if (!it->is_array())
            return error(ctx + "." + key + " must be a list of strings");
        for (const auto &v : *it) {
            if (!v.is_string())
                return error(ctx + "." + key + " must be a list of strings");
            out.push_back(v.get<std::string>());
        }
        return out;
    }

    // *-data fields: base64 of PEM bytes. Go's decoder skips line breaks, so do we.
    Result<QByteArray> base64(const Json &obj, const char *key, const std::string &ctx) const
    {
        auto s = str(obj, key, ctx);
        if (!s)
            return s.error();
        QByteArray raw = QByteArray::fromStdString(*s);
        raw.replace('\n', QByteArray()).replace('\r', QByteArray());
        auto decoded = QByteArray::fromBase64Encoding(raw, QByteArray::Base64Encoding | QByteArray::AbortOnBase64DecodingErrors);
        if (!decoded)
            return error(ctx + "." + key + " is not valid base64");
        return *decoded;
    }

    // Relative paths are relative to the directory of the file that contains them (API brief 6.1).
    std::string path(const std::string &p) const
    {
        if (p.empty())
            return p;
        const QString q = QString::fromStdString(p);
        if (QDir::isAbsolutePath(q))
            return p;
        return QDir::cleanPath(m_dir.absoluteFilePath(q)).toStdString();
    }

    // Walks a named list (clusters/users/contexts) and hands each entry's body to `each`.
    template<typename F>
    Result<core::Unit> namedList(const Json &root, const char *listKey, const char *bodyKey, F each) const
    {
        auto it = root.find(listKey);
        if (it == root.end() || it->is_null())
            return core::Unit{};
        if (!it->is_array())
            return error(std::string(listKey) + " must be a list");
        std::set<std::string> seen;
        std::size_t index = 0;
        for (const auto &entry : *it) {
            const std::string at = std::string(listKey) + "[" + std::to_string(index++) + "]";
            if (!entry.is_object())
                return error(at + " must be a mapping with name and " + bodyKey);
            auto name = str(entry, "name", at);
            if (!name)
                return name.error();
            if (name->empty())
                return error(at + " has no name");
            // client-go refuses duplicate names inside one file (v1 -> internal conversion).
            if (!seen.insert(*name).second)
                return error("duplicate name " + quote(*name) + " in " + listKey);
            const std::string ctx = std::string(listKey) + "[" + quote(*name) + "]." + bodyKey;
            static const Json emptyBody = Json::object();
            auto body = entry.find(bodyKey);
            const Json &b = (body == entry.end() || body->is_null()) ? emptyBody : *body;
            if (!b.is_object())
                return error(ctx + " must be a mapping");
            auto r = each(*name, b, ctx);
            if (!r)
                return r.error();
        }
        return core::Unit{};
    }

    const std::string &file() const { return m_path; }

private:
    std::string m_path;
    QDir m_dir;
};

Result<ClusterConfig> parseCluster(const FileParser &p, const std::string &name, const Json &b, const std::string &ctx)
{
    ClusterConfig c;
    c.name = name;
    c.sourceFile = p.file();
    auto server = p.str(b, "server", ctx);
    auto ca = p.str(b, "certificate-authority", ctx);
    auto caData = p.base64(b, "certificate-authority-data", ctx);
    auto insecure = p.boolean(b, "insecure-skip-tls-verify", ctx);
    auto sni = p.str(b, "tls-server-name", ctx);
    auto proxy = p.str(b, "proxy-url", ctx);
    auto noGzip = p.boolean(b, "disable-compression", ctx);
    for (const Error *e : {server ? nullptr : &server.error(), ca ? nullptr : &ca.error(), caData ? nullptr : &caData.error(),
                           insecure ? nullptr : &insecure.error(), sni ? nullptr : &sni.error(), proxy ? nullptr : &proxy.error(),
                           noGzip ? nullptr : &noGzip.error()})
        if (e)
            return *e;
    c.server = *server;
    c.certificateAuthority = p.path(*ca);
    c.certificateAuthorityData = *caData;
    c.insecureSkipTlsVerify = *insecure;
    c.tlsServerName = *sni;
    c.proxyUrl = *proxy;
    c.disableCompression = *noGzip;
    auto r = p.namedList(b, "extensions", "extension", [&](const std::string &extName, const Json &ext, const std::string &) -> Result<core::Unit> {
        c.extensions[extName] = ext;
        return core::Unit{};
    });
    if (!r)
        return Error(configError(ctx + "." + r.error().message, p.file()));
    return c;
}

Result<ExecConfig> parseExec(const FileParser &p, const Json &b, const std::string &ctx)
{
    ExecConfig e;
    auto command = p.str(b, "command", ctx);
    auto apiVersion = p.str(b, "apiVersion", ctx);
    auto args = p.strList(b, "args", ctx);
    auto hint = p.str(b, "installHint", ctx);
    auto clusterInfo = p.boolean(b, "provideClusterInfo", ctx);
    auto mode = p.str(b, "interactiveMode", ctx);
    for (const Error *err : {command ? nullptr : &command.error(), apiVersion ? nullptr : &apiVersion.error(), args ? nullptr : &args.error(),
                             hint ? nullptr : &hint.error(), clusterInfo ? nullptr : &clusterInfo.error(), mode ? nullptr : &mode.error()})
        if (err)
            return *err;
    e.command = *command;
    // client-go ResolvePaths: a command with a path separator is a path relative to the file; a
    // bare name is looked up in PATH when the plugin runs.
    if (e.command.find('/') != std::string::npos)
        e.command = p.path(e.command);
    e.apiVersion = *apiVersion;
    e.args = *args;
    e.installHint = *hint;
    e.provideClusterInfo = *clusterInfo;
    e.interactiveModeText = *mode;
    auto env = b.find("env");
    if (env != b.end() && !env->is_null()) {
        if (!env->is_array())
            return p.error(ctx + ".env must be a list of {name, value}");
        for (const auto &v : *env) {
            if (!v.is_object())
                return p.error(ctx + ".env must be a list of {name, value}");
            auto n = p.str(v, "name", ctx + ".env");
            auto val = p.str(v, "value", ctx + ".env");
            if (!n)
                return n.error();
            if (!val)
                return val.error();
            e.env.push_back({*n, *val});
        }
    }
    return e;
}

Result<UserConfig> parseUser(const FileParser &p, const std::string &name, const Json &b, const std::string &ctx)
{
    UserConfig u;
    u.name = name;
    u.sourceFile = p.file();
    auto token = p.str(b, "token", ctx);
    auto tokenFile = p.str(b, "tokenFile", ctx);
    auto cert = p.str(b, "client-certificate", ctx);
    auto key = p.str(b, "client-key", ctx);
    auto certData = p.base64(b, "client-certificate-data", ctx);
    auto keyData = p.base64(b, "client-key-data", ctx);
    auto username = p.str(b, "username", ctx);
    auto password = p.str(b, "password", ctx);
    auto as = p.str(b, "as", ctx);
    auto asUid = p.str(b, "as-uid", ctx);
    auto asGroups = p.strList(b, "as-groups", ctx);
    for (const Error *e : {token ? nullptr : &token.error(), tokenFile ? nullptr : &tokenFile.error(), cert ? nullptr : &cert.error(),
                           key ? nullptr : &key.error(), certData ? nullptr : &certData.error(), keyData ? nullptr : &keyData.error(),
                           username ? nullptr : &username.error(), password ? nullptr : &password.error(), as ? nullptr : &as.error(),
                           asUid ? nullptr : &asUid.error(), asGroups ? nullptr : &asGroups.error()})
        if (e)
            return *e;
    u.token = *token;
    u.tokenFile = p.path(*tokenFile);
    u.clientCertificate = p.path(*cert);
    u.clientKey = p.path(*key);
    u.clientCertificateData = *certData;
    u.clientKeyData = *keyData;
    u.username = *username;
    u.password = *password;
    u.impersonate.user = *as;
    u.impersonate.uid = *asUid;
    u.impersonate.groups = *asGroups;
    auto extra = b.find("as-user-extra");
    if (extra != b.end() && !extra->is_null()) {
        if (!extra->is_object())
            return p.error(ctx + ".as-user-extra must be a mapping of lists of strings");
        for (auto it = extra->begin(); it != extra->end(); ++it) {
            auto values = p.strList(*extra, it.key().c_str(), ctx + ".as-user-extra");
            if (!values)
                return values.error();
            u.impersonate.extra[it.key()] = *values;
        }
    }
    auto provider = b.find("auth-provider");
    if (provider != b.end() && !provider->is_null()) {
        if (!provider->is_object())
            return p.error(ctx + ".auth-provider must be a mapping");
        auto n = p.str(*provider, "name", ctx + ".auth-provider");
        if (!n)
            return n.error();
        // The provider's config holds refresh tokens and client secrets; it is deliberately not kept.
        u.authProvider = n->empty() ? std::string("(unnamed)") : *n;
    }
    auto exec = b.find("exec");
    if (exec != b.end() && !exec->is_null()) {
        if (!exec->is_object())
            return p.error(ctx + ".exec must be a mapping");
        auto e = parseExec(p, *exec, ctx + ".exec");
        if (!e)
            return e.error();
        u.exec = std::move(*e);
    }
    return u;
}

Result<ContextConfig> parseContext(const FileParser &p, const std::string &name, const Json &b, const std::string &ctx)
{
    ContextConfig c;
    c.name = name;
    c.sourceFile = p.file();
    auto cluster = p.str(b, "cluster", ctx);
    auto user = p.str(b, "user", ctx);
    auto ns = p.str(b, "namespace", ctx);
    for (const Error *e : {cluster ? nullptr : &cluster.error(), user ? nullptr : &user.error(), ns ? nullptr : &ns.error()})
        if (e)
            return *e;
    c.cluster = *cluster;
    c.user = *user;
    c.namespace_ = *ns;
    return c;
}

std::string envValue(const QProcessEnvironment &env, const char *name)
{
    return env.value(QLatin1String(name)).toStdString();
}

// Impersonate-Extra-<key>: client-go percent-encodes every byte of the key that is not an HTTP
// token character (and '%' itself) so that keys like "example.com/scopes" survive as header names.
std::string headerKeyEscape(const std::string &key)
{
    static const std::string tokenChars = "!#$&'*+-.^_`|~";
    std::string out;
    for (unsigned char c : key) {
        if (std::isalnum(c) || tokenChars.find(char(c)) != std::string::npos) {
            out += char(c);
        } else {
            static const char hex[] = "0123456789ABCDEF";
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 0xf];
        }
    }
    return out;
}

std::string authProviderError(const std::string &provider, const std::string &user)
{
    std::string m = "user " + quote(user) + " uses the " + quote(provider) + " auth-provider, which is not supported; ";
    if (provider == "gcp")
        return m + "client-go removed it in 1.25. Install gke-gcloud-auth-plugin and configure it as an exec plugin "
                   "(gcloud components install gke-gcloud-auth-plugin; gcloud container clusters get-credentials ...)";
    if (provider == "azure")
        return m + "client-go removed it in 1.25. Install kubelogin and convert the kubeconfig to an exec plugin "
                   "(kubelogin convert-kubeconfig)";
    if (provider == "oidc")
        return m + "use an exec plugin instead, for example kubelogin (kubectl oidc-login)";
    return m + "use an exec credential plugin instead";
}

} // namespace

const char *authMethodName(AuthMethod m)
{
    switch (m) {
    case AuthMethod::None: return "none";
    case AuthMethod::Token: return "token";
    case AuthMethod::TokenFile: return "tokenFile";
    case AuthMethod::ClientCertificate: return "clientCert";
    case AuthMethod::Basic: return "basicAuth";
    case AuthMethod::Exec: return "exec";
    }
    return "unknown";
}

std::vector<std::pair<std::string, std::string>> impersonationHeaders(const ImpersonationConfig &imp)
{
    std::vector<std::pair<std::string, std::string>> out;
    if (!imp.user.empty())
        out.emplace_back("Impersonate-User", imp.user);
    if (!imp.uid.empty())
        out.emplace_back("Impersonate-Uid", imp.uid);
    for (const auto &g : imp.groups)
        out.emplace_back("Impersonate-Group", g);
    for (const auto &[key, values] : imp.extra)
        for (const auto &v : values)
            out.emplace_back("Impersonate-Extra-" + headerKeyEscape(key), v);
    return out;
}

Result<Kubeconfig> Kubeconfig::fromYaml(std::string_view text, const std::string &path)
{
    Kubeconfig kc;
    kc.m_files.push_back(path);
    // yamlDocumentsToJson rather than yamlToJson: an empty (or comment-only) file is an empty config
    // for kubectl, and the YAML 1.1 warnings quote scalar text, which could be a token.
    auto docs = core::yamlDocumentsToJson(text);
    if (!docs) {
        Error e = docs.error();
        e.category = ErrorCategory::Parse;
        e.message = "kubeconfig is not valid YAML: " + e.message;
        e.where = e.where.empty() ? path : path + ": " + e.where;
        return e;
    }
    if (docs->empty())
        return kc;
    if (docs->size() > 1)
        return Error::make(ErrorCategory::Parse, "kubeconfig holds " + std::to_string(docs->size()) + " YAML documents; expected one", path);
    const Json &root = docs->front();
    if (!root.is_object())
        return Error::make(ErrorCategory::Parse, "kubeconfig must be a mapping (apiVersion, kind, clusters, users, contexts)", path);

    FileParser p(path);
    auto kind = p.str(root, "kind", "");
    if (kind && !kind->empty() && *kind != "Config")
        return p.error("kind is " + quote(*kind) + "; a kubeconfig has kind Config");
    auto current = p.str(root, "current-context", "");
    if (!current)
        return current.error();
    kc.m_currentContext = *current;

    auto r = p.namedList(root, "clusters", "cluster", [&](const std::string &name, const Json &b, const std::string &ctx) -> Result<core::Unit> {
        auto c = parseCluster(p, name, b, ctx);
        if (!c)
            return c.error();
        kc.m_clusters.push_back(std::move(*c));
        return core::Unit{};
    });
    if (!r)
        return r.error();
    r = p.namedList(root, "users", "user", [&](const std::string &name, const Json &b, const std::string &ctx) -> Result<core::Unit> {
        auto u = parseUser(p, name, b, ctx);
        if (!u)
            return u.error();
        kc.m_users.push_back(std::move(*u));
        return core::Unit{};
    });
    if (!r)
        return r.error();
    r = p.namedList(root, "contexts", "context", [&](const std::string &name, const Json &b, const std::string &ctx) -> Result<core::Unit> {
        auto c = parseContext(p, name, b, ctx);
        if (!c)
            return c.error();
        kc.m_contexts.push_back(std::move(*c));
        return core::Unit{};
    });
    if (!r)
        return r.error();
    return kc;
}

namespace {

Result<Kubeconfig> loadFile(const std::string &path)
{
    auto bytes = readFile(path, "kubeconfig");
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
    // entries are taken or dropped (API brief 6.2, clientcmd/loader.go).
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

Result<Kubeconfig> Kubeconfig::load(const LoadOptions &options)
{
    Kubeconfig merged;
    const QProcessEnvironment &env = options.environment;

    if (!options.explicitPath.empty()) {
        const std::string path = absolutePath(QString::fromStdString(options.explicitPath));
        if (!QFileInfo::exists(QString::fromStdString(path)))
            return configError("the kubeconfig file " + path + " given with --kubeconfig does not exist", path);
        qCDebug(lcKubeAuth) << "loading kubeconfig" << QString::fromStdString(path);
        auto kc = loadFile(path);
        if (!kc)
            return kc.error();
        kc->m_defaultPath = path;
        // An explicit file is never merged and never falls back to in-cluster (loader.go).
        return kc;
    }

    const QString kubeconfigEnv = env.value(QStringLiteral("KUBECONFIG"));
    if (!kubeconfigEnv.isEmpty()) {
        std::vector<std::string> entries;
        for (const QString &e : kubeconfigEnv.split(QDir::listSeparator(), Qt::SkipEmptyParts)) {
            // Duplicates are removed by their text as given, like deduplicate() in loader.go.
            if (std::find(entries.begin(), entries.end(), e.toStdString()) == entries.end())
                entries.push_back(e.toStdString());
        }
        std::vector<std::string> missing;
        for (const auto &entry : entries) {
            const std::string path = absolutePath(QString::fromStdString(entry));
            if (merged.m_defaultPath.empty())
                merged.m_defaultPath = path;
            if (!QFileInfo::exists(QString::fromStdString(path))) {
                missing.push_back(path);
                continue;
            }
            qCDebug(lcKubeAuth) << "loading kubeconfig" << QString::fromStdString(path);
            auto kc = loadFile(path);
            if (!kc)
                return kc.error();
            merged.mergeFrom(std::move(*kc));
        }
        // Missing entries are normal (tools add files that may not exist yet); only "none exist" is
        // worth a warning.
        if (!entries.empty() && missing.size() == entries.size()) {
            merged.m_warnings.push_back("none of the files in KUBECONFIG exist: " + joinNames(missing));
            qCWarning(lcKubeAuth).noquote() << QString::fromStdString(merged.m_warnings.back());
        }
    } else {
        QString home = env.value(QStringLiteral("HOME"));
        if (home.isEmpty())
            home = QDir::homePath();
        const std::string path = absolutePath(home + QStringLiteral("/.kube/config"));
        merged.m_defaultPath = path;
        if (QFileInfo::exists(QString::fromStdString(path))) {
            qCDebug(lcKubeAuth) << "loading kubeconfig" << QString::fromStdString(path);
            auto kc = loadFile(path);
            if (!kc)
                return kc.error();
            merged.mergeFrom(std::move(*kc));
        }
    }

    // client-go falls back to the service account only when the files define nothing usable.
    const std::string host = envValue(env, "KUBERNETES_SERVICE_HOST");
    const std::string port = envValue(env, "KUBERNETES_SERVICE_PORT");
    if (options.allowInCluster && merged.m_contexts.empty() && merged.m_clusters.empty() && !host.empty() && !port.empty()) {
        InCluster ic;
        // net.JoinHostPort: an IPv6 address needs brackets.
        ic.server = "https://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + port;
        const QDir sa(QString::fromStdString(options.serviceAccountDir));
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
        merged.m_inCluster = std::move(ic);
    }
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

Result<ResolvedConfig> Kubeconfig::resolveInCluster() const
{
    ResolvedConfig rc;
    rc.inCluster = true;
    rc.contextName = kInClusterName;
    rc.clusterName = kInClusterName;
    rc.server = m_inCluster->server;
    rc.namespace_ = m_inCluster->namespace_;
    // rest.InClusterConfig: the token must be readable now; a missing CA only logs and falls back
    // to the system roots.
    QFile token(QString::fromStdString(m_inCluster->tokenFile));
    if (!token.open(QIODevice::ReadOnly))
        return Error::make(ErrorCategory::Auth, "unable to read the service account token " + m_inCluster->tokenFile + ": " + token.errorString().toStdString(),
                           m_inCluster->tokenFile);
    auto ca = readFile(m_inCluster->caFile, "service account CA");
    if (ca) {
        rc.caPem = *ca;
        rc.caFile = m_inCluster->caFile;
    } else {
        rc.warnings.push_back(ca.error().message + "; using the system trust store");
        qCWarning(lcKubeAuth).noquote() << QString::fromStdString(rc.warnings.back());
    }
    rc.auth.method = AuthMethod::TokenFile;
    rc.auth.tokenFile = m_inCluster->tokenFile;
    return rc;
}

namespace {

// Cluster half of resolve(): server, TLS material, proxy (validateClusterInfo, transport.go).
core::Status resolveCluster(const ClusterConfig *cl, ResolvedConfig &rc)
{
    if (cl->server.empty())
        return configError("no server found for cluster " + quote(cl->name), cl->sourceFile);
    {
        // client-go DefaultServerURL: a bare host:port means https.
        QUrl url(QString::fromStdString(cl->server), QUrl::StrictMode);
        if (!url.isValid() || url.scheme().isEmpty() || url.host().isEmpty())
            url = QUrl(QStringLiteral("https://") + QString::fromStdString(cl->server), QUrl::StrictMode);
        if (!url.isValid() || url.host().isEmpty() || (url.scheme() != QLatin1String("https") && url.scheme() != QLatin1String("http")))
            return configError("server " + quote(cl->server) + " of cluster " + quote(cl->name) + " is not an http or https URL", cl->sourceFile);
        rc.server = url.toString(QUrl::StripTrailingSlash).toStdString();
        if (url.scheme() == QLatin1String("http"))
            rc.warnings.push_back("cluster " + quote(cl->name) + " uses plain http: requests and credentials are not encrypted");
    }
    // transport.go checks this before touching the CA file.
    if (cl->insecureSkipTlsVerify) {
        if (!cl->certificateAuthorityData.isEmpty() || !cl->certificateAuthority.empty())
            return configError("specifying a root certificates file with the insecure flag is not allowed (cluster " + quote(cl->name) + ")",
                               cl->sourceFile);
        rc.insecureSkipTlsVerify = true;
        rc.warnings.push_back("TLS verification is disabled for cluster " + quote(cl->name) + " (insecure-skip-tls-verify)");
    }
    if (!cl->certificateAuthorityData.isEmpty()) {
        rc.caPem = cl->certificateAuthorityData;
        if (!cl->certificateAuthority.empty())
            rc.warnings.push_back("certificate-authority-data and certificate-authority are both specified for cluster " + quote(cl->name) +
                                  "; certificate-authority-data is used");
    } else if (!cl->certificateAuthority.empty()) {
        auto ca = readFile(cl->certificateAuthority, "certificate-authority");
        if (!ca)
            return configError(ca.error().message + " (cluster " + quote(cl->name) + ")", cl->sourceFile);
        rc.caPem = *ca;
        rc.caFile = cl->certificateAuthority;
    }
    rc.tlsServerName = cl->tlsServerName;
    if (!cl->proxyUrl.empty()) {
        const QUrl proxy(QString::fromStdString(cl->proxyUrl));
        const QString scheme = proxy.scheme();
        if (scheme != QLatin1String("http") && scheme != QLatin1String("https") && scheme != QLatin1String("socks5"))
            return configError("proxy-url of cluster " + quote(cl->name) + " has unsupported scheme " + quote(scheme.toStdString()) +
                                   ", must be http, https, or socks5",
                               cl->sourceFile);
        if (proxy.host().isEmpty())
            return configError("proxy-url of cluster " + quote(cl->name) + " has no host", cl->sourceFile);
        rc.proxyUrl = cl->proxyUrl;
    }
    rc.disableCompression = cl->disableCompression;
    if (auto it = cl->extensions.find(kExecClusterExtension); it != cl->extensions.end())
        rc.execClusterConfig = *it;
    return core::Unit{};
}

// User half of resolve(): exactly one authentication method (validateAuthInfo, API brief 6.2).
core::Status resolveUser(const UserConfig *u, ResolvedConfig &rc)
{
    AuthConfig &auth = rc.auth;
    auth.userName = u->name;
    auth.sourceFile = u->sourceFile;
    auth.impersonate = u->impersonate;
    const std::string &un = u->name;

    if (!u->authProvider.empty()) {
        if (u->exec)
            return configError("authProvider cannot be provided in combination with an exec plugin for " + un, u->sourceFile);
        return configError(authProviderError(u->authProvider, un), u->sourceFile);
    }

    // The brief's rule (6.2): one of token, basic auth, client certificate, exec. client-go itself
    // only counts token and basic auth; being stricter keeps "which credential was sent?" obvious.
    std::vector<std::string> methods;
    const bool hasToken = !u->token.empty() || !u->tokenFile.empty();
    const bool hasBasic = !u->username.empty() || !u->password.empty();
    const bool hasCert = !u->clientCertificate.empty() || !u->clientCertificateData.isEmpty() || !u->clientKey.empty() || !u->clientKeyData.isEmpty();
    if (hasToken)
        methods.push_back("token");
    if (hasBasic)
        methods.push_back("basicAuth");
    if (hasCert)
        methods.push_back("clientCert");
    if (u->exec)
        methods.push_back("exec");
    if (methods.size() > 1)
        return configError("more than one authentication method found for " + un + "; found [" + joinNames(methods, " ") + "], only one is allowed",
                           u->sourceFile);

    if (hasToken) {
        if (!u->tokenFile.empty()) {
            // transport.NewCachedFileTokenSource: the file takes over from a static token.
            if (!u->token.empty())
                rc.warnings.push_back("token and tokenFile are both specified for " + un + "; tokenFile is used");
            QFileInfo fi(QString::fromStdString(u->tokenFile));
            if (!fi.isFile() || !fi.isReadable())
                return configError("tokenFile " + u->tokenFile + " of user " + quote(un) + " does not exist or is not readable", u->sourceFile);
            auth.method = AuthMethod::TokenFile;
            auth.tokenFile = u->tokenFile;
        } else {
            auth.method = AuthMethod::Token;
            auth.token = u->token;
        }
    } else if (hasBasic) {
        auth.method = AuthMethod::Basic;
        auth.username = u->username;
        auth.password = u->password;
        rc.warnings.push_back("user " + quote(un) + " uses basic authentication; kube-apiserver dropped it in 1.19, only proxies accept it");
    } else if (hasCert) {
        const bool certGiven = !u->clientCertificate.empty() || !u->clientCertificateData.isEmpty();
        const bool keyGiven = !u->clientKey.empty() || !u->clientKeyData.isEmpty();
        if (!keyGiven)
            return configError("client-key-data or client-key must be specified for " + un + " to use the clientCert authentication method", u->sourceFile);
        if (!certGiven)
            return configError("client-certificate-data or client-certificate must be specified for " + un + " to use the clientCert authentication method",
                               u->sourceFile);
        if (!u->clientCertificateData.isEmpty()) {
            if (!u->clientCertificate.empty())
                rc.warnings.push_back("client-certificate-data and client-certificate are both specified for " + un + "; client-certificate-data is used");
            auth.clientCertificatePem = u->clientCertificateData;
        } else {
            auto pem = readFile(u->clientCertificate, "client-certificate");
            if (!pem)
                return configError(pem.error().message + " (user " + quote(un) + ")", u->sourceFile);
            auth.clientCertificatePem = *pem;
            auth.clientCertificateFile = u->clientCertificate;
        }
        if (!u->clientKeyData.isEmpty()) {
            if (!u->clientKey.empty())
                rc.warnings.push_back("client-key-data and client-key are both specified for " + un + "; client-key-data is used");
            auth.clientKeyPem = u->clientKeyData;
        } else {
            auto pem = readFile(u->clientKey, "client-key");
            if (!pem)
                return configError(pem.error().message + " (user " + quote(un) + ")", u->sourceFile);
            auth.clientKeyPem = *pem;
            auth.clientKeyFile = u->clientKey;
        }
        auth.method = AuthMethod::ClientCertificate;
    } else if (u->exec) {
        ExecConfig e = *u->exec;
        if (e.command.empty())
            return configError("command must be specified for " + un + " to use exec authentication plugin", u->sourceFile);
        if (e.apiVersion.empty())
            return configError("apiVersion must be specified for " + un + " to use exec authentication plugin", u->sourceFile);
        if (e.apiVersion != kExecApiV1 && e.apiVersion != kExecApiV1beta1)
            return configError("exec plugin of " + un + ": invalid apiVersion " + quote(e.apiVersion) + " (supported: " + kExecApiV1 + ", " +
                                   kExecApiV1beta1 + ")",
                               u->sourceFile);
        for (const auto &v : e.env)
            if (v.name.empty())
                return configError("env variable name must be specified for " + un + " to use exec authentication plugin", u->sourceFile);
        if (e.interactiveModeText.empty()) {
            if (e.apiVersion == kExecApiV1)
                return configError("interactiveMode must be specified for " + un + " to use exec authentication plugin", u->sourceFile);
            e.interactiveMode = ExecInteractiveMode::IfAvailable;
        } else if (e.interactiveModeText == "Never") {
            e.interactiveMode = ExecInteractiveMode::Never;
        } else if (e.interactiveModeText == "IfAvailable") {
            e.interactiveMode = ExecInteractiveMode::IfAvailable;
        } else if (e.interactiveModeText == "Always") {
            e.interactiveMode = ExecInteractiveMode::Always;
        } else {
            return configError("invalid interactiveMode for " + un + ": " + quote(e.interactiveModeText), u->sourceFile);
        }
        if (e.interactiveMode == ExecInteractiveMode::Always)
            return configError("the exec plugin " + e.command + " of user " + quote(un) +
                                   " requires a terminal (interactiveMode: Always), which Fieldscope cannot provide; "
                                   "use interactiveMode IfAvailable or Never, or log in with the plugin in a terminal first",
                               u->sourceFile);
        auth.method = AuthMethod::Exec;
        auth.exec = std::move(e);
    }
    return core::Unit{};
}

} // namespace

Result<ResolvedConfig> Kubeconfig::resolve(const std::string &contextName) const
{
    if (m_inCluster && (contextName.empty() || contextName == kInClusterName))
        return resolveInCluster();

    std::vector<std::string> available;
    for (const auto &c : m_contexts)
        available.push_back(c.name);
    const std::string where = m_files.empty() ? m_defaultPath : joinNames(m_files, ":");
    const std::string availableText = available.empty() ? "no contexts are defined in " + (where.empty() ? std::string("any kubeconfig file") : where)
                                                        : "available contexts: " + joinNames(available);
    const std::string name = contextName.empty() ? m_currentContext : contextName;
    if (name.empty())
        return configError("no context selected: current-context is not set and no --context was given; " + availableText, where);
    const ContextConfig *ctx = context(name);
    if (!ctx)
        return configError("context " + quote(name) + " not found; " + availableText, where);

    ResolvedConfig rc;
    rc.contextName = ctx->name;
    rc.sourceFile = ctx->sourceFile;
    rc.namespace_ = ctx->namespace_.empty() ? "default" : ctx->namespace_;

    // --- cluster ---
    if (ctx->cluster.empty())
        return configError("context " + quote(name) + " names no cluster", ctx->sourceFile);
    const ClusterConfig *cl = cluster(ctx->cluster);
    if (!cl)
        return configError("cluster " + quote(ctx->cluster) + " was not found for context " + quote(name), ctx->sourceFile);
    rc.clusterName = cl->name;
    if (auto st = resolveCluster(cl, rc); !st)
        return st.error();

    // --- user ---
    if (ctx->user.empty())
        return rc; // anonymous
    const UserConfig *u = user(ctx->user);
    if (!u)
        return configError("user " + quote(ctx->user) + " was not found for context " + quote(name), ctx->sourceFile);
    if (auto st = resolveUser(u, rc); !st)
        return st.error();
    for (const auto &w : rc.warnings)
        qCInfo(lcKubeAuth).noquote() << QString::fromStdString(w);
    return rc;
}

} // namespace fieldscope::kube
