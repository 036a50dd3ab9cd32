#pragma once
// kubeconfig loading, merging and resolution with kubectl's rules (k8s.io/client-go/tools/clientcmd).
//
// Everything here is a plain value type: a loaded Kubeconfig and a ResolvedConfig can be copied to
// and read from any thread. Loading reads files and is meant for a worker thread (files may sit on a
// slow network mount); resolve() reads the CA and client certificate files it references.
//
// Secrets (tokens, passwords, keys, *-data) are held in memory because the transport needs them,
// but no function in this file puts them into a log line, a warning or an Error message.
#include "core/base/json.h"
#include "core/base/result.h"

#include <QByteArray>
#include <QProcessEnvironment>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fieldscope::kube {

// The two exec credential API versions we accept; v1alpha1 was removed in 1.24.
inline constexpr const char *kExecApiV1 = "client.authentication.k8s.io/v1";
inline constexpr const char *kExecApiV1beta1 = "client.authentication.k8s.io/v1beta1";
// Name of the cluster extension handed to exec plugins as spec.cluster.config.
inline constexpr const char *kExecClusterExtension = "client.authentication.k8s.io/exec";

enum class ExecInteractiveMode {
    Never,
    IfAvailable,
    Always, // refused: a GUI has no terminal to give the plugin
};

struct ExecEnvVar {
    std::string name;
    std::string value; // may be a secret: never logged, never shown (only the name is)
};

struct ExecConfig {
    std::string apiVersion;
    std::string command; // as written; made absolute when it contained a '/' (client-go ResolvePaths)
    std::vector<std::string> args;
    std::vector<ExecEnvVar> env;
    std::string installHint;
    bool provideClusterInfo = false;
    // Set by Kubeconfig::resolve() from interactiveModeText (v1 requires it; v1beta1 defaults to
    // IfAvailable as client-go's SetDefaults_ExecConfig does).
    ExecInteractiveMode interactiveMode = ExecInteractiveMode::IfAvailable;
    std::string interactiveModeText; // as written, validated at resolve() so one bad user does not
                                     // stop the other contexts from loading
};

// as / as-uid / as-groups / as-user-extra; turned into Impersonate-* headers by impersonationHeaders().
struct ImpersonationConfig {
    std::string user;
    std::string uid;
    std::vector<std::string> groups;
    std::map<std::string, std::vector<std::string>> extra;
    bool empty() const { return user.empty() && uid.empty() && groups.empty() && extra.empty(); }
};

// One named cluster as written in the file that defined it. Paths are already absolute.
struct ClusterConfig {
    std::string name;
    std::string server;
    std::string certificateAuthority;    // file path
    QByteArray certificateAuthorityData; // decoded PEM
    bool insecureSkipTlsVerify = false;
    std::string tlsServerName;
    std::string proxyUrl;
    bool disableCompression = false;
    core::Json extensions = core::Json::object(); // extension name -> extension object
    std::string sourceFile;
};

// One named user (AuthInfo) as written in the file that defined it. Paths are already absolute.
struct UserConfig {
    std::string name;
    std::string token;
    std::string tokenFile;
    std::string clientCertificate; // file path
    std::string clientKey;         // file path
    QByteArray clientCertificateData;
    QByteArray clientKeyData;
    std::string username;
    std::string password;
    std::optional<ExecConfig> exec;
    std::string authProvider; // name of a legacy auth-provider; only reported, never used
    ImpersonationConfig impersonate;
    std::string sourceFile;
};

struct ContextConfig {
    std::string name;
    std::string cluster;
    std::string user;
    std::string namespace_; // as written; may be empty
    std::string sourceFile;
};

// One row of the context switcher.
struct ContextInfo {
    std::string name;
    std::string cluster;
    std::string user;
    std::string namespace_; // effective: the context's namespace, else "default"
    std::string server;     // "" when the cluster is missing
    bool isCurrent = false;
};

enum class AuthMethod {
    None,              // anonymous
    Token,             // static bearer token
    TokenFile,         // bearer token re-read from a file (also in-cluster)
    ClientCertificate, // TLS client certificate + key
    Basic,             // username/password
    Exec,              // exec credential plugin
};

struct AuthConfig {
    AuthMethod method = AuthMethod::None;
    std::string userName;   // the kubeconfig user entry ("" for anonymous and in-cluster)
    std::string sourceFile; // kubeconfig file that defined the user; the consent key for exec
    std::string token;
    std::string tokenFile;
    // PEM bytes, read from -data or from the files below at resolve() time.
    QByteArray clientCertificatePem;
    QByteArray clientKeyPem;
    std::string clientCertificateFile; // "" when the PEM came from -data
    std::string clientKeyFile;
    std::string username;
    std::string password;
    ExecConfig exec; // meaningful only for AuthMethod::Exec
    ImpersonationConfig impersonate;
};

// Everything the transport needs to talk to one cluster as one user.
struct ResolvedConfig {
    std::string contextName; // "" when no context was used (in-cluster)
    std::string clusterName;
    std::string server;
    std::string namespace_;
    QByteArray caPem;                   // empty: use the system trust store
    std::string caFile;                 // where caPem came from ("" for -data or none), for messages
    bool insecureSkipTlsVerify = false; // the UI shows a warning while connected
    std::string tlsServerName;          // SNI and the name verified, when it differs from the host in server
    std::string proxyUrl;               // http://, https:// or socks5://; "" = libcurl's environment defaults
    bool disableCompression = false;
    core::Json execClusterConfig; // the cluster's client.authentication.k8s.io/exec extension, or null
    AuthConfig auth;
    std::string sourceFile; // kubeconfig file that defined the context
    bool inCluster = false;
    // Things the UI should flag while connected: insecure TLS, plain http, basic auth, ignored fields.
    std::vector<std::string> warnings;
};

// Impersonate-User, Impersonate-Uid, Impersonate-Group (repeated) and Impersonate-Extra-<key>
// (key percent-encoded as client-go does), in a stable order. Values are not secrets.
std::vector<std::pair<std::string, std::string>> impersonationHeaders(const ImpersonationConfig &imp);

struct LoadOptions {
    // --kubeconfig: only this file, an error if it is missing. Relative to the working directory.
    std::string explicitPath;
    // Source of KUBECONFIG, HOME, KUBERNETES_SERVICE_HOST/PORT and POD_NAMESPACE. Tests pass their own.
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    // Fall back to the in-cluster service account when no kubeconfig defines anything.
    bool allowInCluster = true;
    // Where the service account files live; tests point it at a temporary directory.
    std::string serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";
};

// The merged view of one or more kubeconfig files. A plain value: cheap enough to copy, no I/O
// after load() except the files resolve() reads.
class Kubeconfig
{
public:
    static core::Result<Kubeconfig> load(const LoadOptions &options = {});
    // Parses one file's text as if it were loaded from `path` (relative paths resolve against its
    // directory). Used by load() and by tests.
    static core::Result<Kubeconfig> fromYaml(std::string_view text, const std::string &path);

    // Contexts in the order the files listed them, the first definition of each name.
    std::vector<ContextInfo> contexts() const;
    // --context NAME, else current-context. Checks everything client-go checks before connecting.
    core::Result<ResolvedConfig> resolve(const std::string &context = {}) const;

    std::string currentContext() const { return m_currentContext; }
    // Files that were read, in merge order (missing KUBECONFIG entries excluded).
    const std::vector<std::string> &files() const { return m_files; }
    std::vector<std::string> warnings() const { return m_warnings; }
    bool isInCluster() const { return m_inCluster.has_value(); }

    const ClusterConfig *cluster(const std::string &name) const;
    const UserConfig *user(const std::string &name) const;
    const ContextConfig *context(const std::string &name) const;

private:
    struct InCluster {
        std::string server;
        std::string caFile;
        std::string tokenFile;
        std::string namespace_;
    };

    // Adds one parsed file with the first-wins rule (k8s.io/client-go/tools/clientcmd/loader.go).
    void mergeFrom(Kubeconfig &&other);
    // load()'s steps.
    static core::Result<Kubeconfig> loadExplicit(const std::string &explicitPath);
    core::Status mergeFile(const std::string &path);
    core::Status mergeList(const QString &kubeconfigEnv); // KUBECONFIG's files, in order
    core::Status mergeHomeConfig(const QProcessEnvironment &env);
    static std::optional<InCluster> inClusterFrom(const QProcessEnvironment &env, const std::string &serviceAccountDir);
    core::Result<ResolvedConfig> resolveInCluster() const;

    std::vector<ClusterConfig> m_clusters;
    std::vector<UserConfig> m_users;
    std::vector<ContextConfig> m_contexts;
    std::string m_currentContext;
    std::vector<std::string> m_files;
    std::string m_defaultPath;
    std::vector<std::string> m_warnings;
    std::optional<InCluster> m_inCluster;
};

} // namespace fieldscope::kube
