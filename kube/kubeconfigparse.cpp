// Kubeconfig YAML mapping: one file's text into ClusterConfig, UserConfig and ContextConfig entries
// (Kubeconfig::fromYaml), with errors that name the field but never its value.
#include "core/yaml/yaml.h"
#include "kube/kubeconfig.h"
#include "kube/kubeconfig_p.h"

#include <QDir>
#include <QFileInfo>

#include <set>

namespace fieldscope::kube {

using core::Error;
using core::ErrorCategory;
using core::Json;
using core::Result;
using detail::configError;
using detail::quote;

namespace {

// Field-by-field reader of one kubeconfig file. Errors name the file and the JSON path of the
// field (users["sso"].user.token), never the value: a mistyped token must not end up in a dialog.
class FileParser
{
public:
    FileParser(std::string path)
        : m_path(std::move(path)), m_dir(QFileInfo(QString::fromStdString(m_path)).absolutePath())
    {
    }

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
        auto decoded = QByteArray::fromBase64Encoding(raw, QByteArray::Base64Encoding
                                                               | QByteArray::AbortOnBase64DecodingErrors);
        if (!decoded)
            return error(ctx + "." + key + " is not valid base64");
        return *decoded;
    }

    // Relative paths are relative to the directory of the file that contains them (as in client-go).
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
    for (const Error *e :
         {server ? nullptr : &server.error(), ca ? nullptr : &ca.error(), caData ? nullptr : &caData.error(),
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
    auto r = p.namedList(b, "extensions", "extension",
                         [&](const std::string &extName, const Json &ext, const std::string &) -> Result<core::Unit> {
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
    for (const Error *err : {command ? nullptr : &command.error(), apiVersion ? nullptr : &apiVersion.error(),
                             args ? nullptr : &args.error(), hint ? nullptr : &hint.error(),
                             clusterInfo ? nullptr : &clusterInfo.error(), mode ? nullptr : &mode.error()})
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
    for (const Error *e :
         {token ? nullptr : &token.error(), tokenFile ? nullptr : &tokenFile.error(), cert ? nullptr : &cert.error(),
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
    for (const Error *e :
         {cluster ? nullptr : &cluster.error(), user ? nullptr : &user.error(), ns ? nullptr : &ns.error()})
        if (e)
            return *e;
    c.cluster = *cluster;
    c.user = *user;
    c.namespace_ = *ns;
    return c;
}

// Parses each entry of the named list `listKey` (clusters, users, contexts) with `parse` and appends
// it to `out`; the first entry that fails ends the walk with its error.
template<typename T, typename Parse>
Result<core::Unit> parseNamedList(const FileParser &p, const Json &root, const char *listKey, const char *bodyKey,
                                  Parse parse, std::vector<T> &out)
{
    return p.namedList(root, listKey, bodyKey,
                       [&](const std::string &name, const Json &b, const std::string &ctx) -> Result<core::Unit> {
                           auto entry = parse(p, name, b, ctx);
                           if (!entry)
                               return entry.error();
                           out.push_back(std::move(*entry));
                           return core::Unit{};
                       });
}

} // namespace

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
        return Error::make(ErrorCategory::Parse,
                           "kubeconfig holds " + std::to_string(docs->size()) + " YAML documents; expected one", path);
    const Json &root = docs->front();
    if (!root.is_object())
        return Error::make(ErrorCategory::Parse,
                           "kubeconfig must be a mapping (apiVersion, kind, clusters, users, contexts)", path);

    FileParser p(path);
    auto kind = p.str(root, "kind", "");
    if (kind && !kind->empty() && *kind != "Config")
        return p.error("kind is " + quote(*kind) + "; a kubeconfig has kind Config");
    auto current = p.str(root, "current-context", "");
    if (!current)
        return current.error();
    kc.m_currentContext = *current;

    auto r = parseNamedList(p, root, "clusters", "cluster", parseCluster, kc.m_clusters);
    if (r)
        r = parseNamedList(p, root, "users", "user", parseUser, kc.m_users);
    if (r)
        r = parseNamedList(p, root, "contexts", "context", parseContext, kc.m_contexts);
    if (!r)
        return r.error();
    return kc;
}

} // namespace fieldscope::kube
