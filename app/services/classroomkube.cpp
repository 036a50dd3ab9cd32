// The class's namespaces and RBAC, made with the sandbox admin's kubeconfig (see classroom.h).
#include "app/services/classroom_p.h"
#include "app/services/classroomkube_p.h"
#include "kube/apierror.h"
#include "kube/transport.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QThread>

#include <cstdio>
#include <future>

namespace fieldscope::app::classroom_detail {

namespace {

constexpr auto kRbacGroup = "rbac.authorization.k8s.io";
// Labels every object a class makes, so a teacher (and --purge) can tell them apart.
constexpr auto kClassLabelKey = u"app.kubernetes.io/managed-by";
constexpr auto kClassLabelValue = u"fieldscope-class";
QJsonObject classLabels()
{
    return QJsonObject{{QString::fromUtf16(kClassLabelKey), QString::fromUtf16(kClassLabelValue)}};
}

// What a student may do in the class namespace: the built-in `edit` ClusterRole's namespaced
// workload resources, without Secrets (RBAC only adds, so `edit` minus Secrets is a list).
QJsonArray classNamespaceRules()
{
    const QJsonArray verbs{QStringLiteral("get"),    QStringLiteral("list"),
                           QStringLiteral("watch"),  QStringLiteral("create"),
                           QStringLiteral("update"), QStringLiteral("patch"),
                           QStringLiteral("delete"), QStringLiteral("deletecollection")};
    const auto rule = [&](const QString &group, const QStringList &resources) {
        return QJsonObject{{QStringLiteral("apiGroups"), QJsonArray{group}},
                           {QStringLiteral("resources"), QJsonArray::fromStringList(resources)},
                           {QStringLiteral("verbs"), verbs}};
    };
    return QJsonArray{
        rule(QString(),
             {QStringLiteral("configmaps"), QStringLiteral("pods"), QStringLiteral("pods/log"),
              QStringLiteral("services"), QStringLiteral("endpoints"), QStringLiteral("persistentvolumeclaims"),
              QStringLiteral("serviceaccounts"), QStringLiteral("events"), QStringLiteral("replicationcontrollers")}),
        rule(QStringLiteral("apps"),
             {QStringLiteral("deployments"), QStringLiteral("deployments/scale"), QStringLiteral("replicasets"),
              QStringLiteral("replicasets/scale"), QStringLiteral("statefulsets"), QStringLiteral("statefulsets/scale"),
              QStringLiteral("daemonsets")}),
        rule(QStringLiteral("batch"), {QStringLiteral("jobs"), QStringLiteral("cronjobs")}),
        rule(QStringLiteral("autoscaling"), {QStringLiteral("horizontalpodautoscalers")}),
        rule(QStringLiteral("networking.k8s.io"), {QStringLiteral("ingresses"), QStringLiteral("networkpolicies")}),
        rule(QStringLiteral("policy"), {QStringLiteral("poddisruptionbudgets")}),
        rule(QStringLiteral("coordination.k8s.io"), {QStringLiteral("leases")}),
        rule(QStringLiteral("discovery.k8s.io"), {QStringLiteral("endpointslices")}),
        rule(QStringLiteral("events.k8s.io"), {QStringLiteral("events")}),
    };
}

QJsonObject metadata(const QString &name, const QString &ns = {})
{
    QJsonObject m{{QStringLiteral("name"), name}, {QStringLiteral("labels"), classLabels()}};
    if (!ns.isEmpty())
        m.insert(QStringLiteral("namespace"), ns);
    return m;
}

QByteArray roleBinding(const QString &name, const QString &ns, const QString &roleKind, const QString &role,
                       const QString &subjectKind, const QString &subject)
{
    const QJsonObject binding{
        {QStringLiteral("apiVersion"), QStringLiteral("rbac.authorization.k8s.io/v1")},
        {QStringLiteral("kind"), QStringLiteral("RoleBinding")},
        {QStringLiteral("metadata"), metadata(name, ns)},
        {QStringLiteral("roleRef"), QJsonObject{{QStringLiteral("apiGroup"), QString::fromLatin1(kRbacGroup)},
                                                {QStringLiteral("kind"), roleKind},
                                                {QStringLiteral("name"), role}}},
        {QStringLiteral("subjects"),
         QJsonArray{QJsonObject{{QStringLiteral("apiGroup"), QString::fromLatin1(kRbacGroup)},
                                {QStringLiteral("kind"), subjectKind},
                                {QStringLiteral("name"), subject}}}}};
    return QJsonDocument(binding).toJson(QJsonDocument::Compact);
}

// Object counts a namespace may hold (ResourceQuota "fieldscope-class"): enough for any lesson,
// few enough that a student's Deployment with replicas: 100000 (the ReplicaSet controller makes
// its Pods, admitted or not) cannot fill etcd, the audit log and the teacher's window. The
// class namespace is shared by everyone, so it gets more. Objects, not CPU or memory: the
// sandbox runs no Pods.
struct QuotaCounts {
    int pods, configmaps, secrets, deployments, replicasets, services, jobs;
};
constexpr QuotaCounts kClassQuota{200, 1000, 20, 100, 300, 100, 100};
constexpr QuotaCounts kStudentQuota{20, 100, 20, 10, 30, 10, 10};
constexpr auto kQuotaName = "fieldscope-class";
// The resourcequota controller fills a new quota's status within a second; until then the API
// server refuses every create it counts ("status unknown for quota"). Right after an API server
// restart (a class stop) the controller manager's watches reconnect with a backoff first, and on
// a loaded machine that took over a minute in tst_class_cli.
constexpr int kQuotaSyncWaitMs = 180'000;

QByteArray resourceQuota(const QString &ns, const QuotaCounts &q)
{
    const QJsonObject hard{{QStringLiteral("count/pods"), QString::number(q.pods)},
                           {QStringLiteral("count/configmaps"), QString::number(q.configmaps)},
                           {QStringLiteral("count/secrets"), QString::number(q.secrets)},
                           {QStringLiteral("count/deployments.apps"), QString::number(q.deployments)},
                           {QStringLiteral("count/replicasets.apps"), QString::number(q.replicasets)},
                           {QStringLiteral("count/services"), QString::number(q.services)},
                           {QStringLiteral("count/jobs.batch"), QString::number(q.jobs)}};
    const QJsonObject quota{{QStringLiteral("apiVersion"), QStringLiteral("v1")},
                            {QStringLiteral("kind"), QStringLiteral("ResourceQuota")},
                            {QStringLiteral("metadata"), metadata(QString::fromLatin1(kQuotaName), ns)},
                            {QStringLiteral("spec"), QJsonObject{{QStringLiteral("hard"), hard}}}};
    return QJsonDocument(quota).toJson(QJsonDocument::Compact);
}

constexpr int kTerminatingWaitMs = 180'000;

kube::HttpRequest jsonRequest(const char *method, const QString &path, const QByteArray &body = {})
{
    kube::HttpRequest request;
    request.method = method;
    request.path = path.toStdString();
    if (!body.isEmpty()) {
        request.contentType = "application/json";
        request.body = body.toStdString();
    }
    request.timeoutMs = 30'000;
    return request;
}

} // namespace

core::Result<kube::HttpResponse> blockingCall(kube::Transport &transport, kube::HttpRequest request)
{
    std::promise<core::Result<kube::HttpResponse>> promise;
    auto future = promise.get_future();
    const std::string what = request.method + " " + request.path;
    transport.start(std::move(request),
                    [&promise](core::Result<kube::HttpResponse> r) { promise.set_value(std::move(r)); });
    core::Result<kube::HttpResponse> answer = future.get();
    if (answer && !kube::isSuccess(answer->status))
        return kube::errorFromResponse(*answer, what);
    return answer;
}

core::Result<AdminClient> AdminClient::open(const QString &clusterDir)
{
    kube::ConnectionOptions options;
    options.kubeconfigPath = (clusterDir + QStringLiteral("/kubeconfig")).toStdString();
    auto connection = kube::connect(options);
    if (!connection)
        return connection.error();
    AdminClient client;
    client.m_connection = std::move(connection).value();
    return client;
}

// A namespace `class stop --purge` (or a teacher) deleted a moment ago is still Terminating while
// the namespace controller empties it: nothing can be created in it until it is gone. A class
// started right after a purge waits for that (three minutes at most: on a busy two-core machine
// the controller took over a minute for a class of thirty) and makes it anew, saying so.
core::Status AdminClient::ensureNamespace(const QString &name)
{
    const QJsonObject ns{{QStringLiteral("apiVersion"), QStringLiteral("v1")},
                         {QStringLiteral("kind"), QStringLiteral("Namespace")},
                         {QStringLiteral("metadata"), metadata(name)}};
    const QDeadlineTimer deadline(kTerminatingWaitMs);
    bool waitSaid = false;
    for (;;) {
        auto made = blockingCall(*m_connection.transport,
                                 jsonRequest("POST", QStringLiteral("/api/v1/namespaces"), QJsonDocument(ns).toJson()));
        if (made)
            return core::success();
        if (made.error().httpStatus != 409)
            return made.error();
        auto there = blockingCall(*m_connection.transport,
                                  jsonRequest("GET", QStringLiteral("/api/v1/namespaces/") + name));
        if (!there && there.error().httpStatus == 404)
            continue; // gone between the two requests
        if (!there)
            return there.error();
        const QJsonObject existing = QJsonDocument::fromJson(QByteArray::fromStdString(there->body)).object();
        if (!existing.value(QStringLiteral("metadata")).toObject().contains(QStringLiteral("deletionTimestamp")))
            return core::success(); // there and in use: the class keeps it
        if (deadline.hasExpired())
            return core::Error::make(core::ErrorCategory::Conflict,
                                     "namespace " + name.toStdString()
                                         + " is still being deleted after three minutes; try again when it is gone");
        if (!waitSaid) {
            waitSaid = true;
            std::fprintf(stderr, "fieldscope: waiting for the namespace %s of the last class to finish deleting\n",
                         qUtf8Printable(name));
        }
        QThread::msleep(250);
    }
}

core::Status AdminClient::createOrReplace(const QString &collectionPath, const QString &name, const QByteArray &body)
{
    auto made = blockingCall(*m_connection.transport, jsonRequest("POST", collectionPath, body));
    if (made)
        return core::success();
    if (made.error().httpStatus != 409)
        return made.error();
    // RBAC objects need no resourceVersion to be replaced (their strategy allows an unconditional update).
    auto replaced = blockingCall(*m_connection.transport,
                                 jsonRequest("PUT", collectionPath + QLatin1Char('/') + name, body));
    if (!replaced)
        return replaced.error();
    return core::success();
}

core::Status AdminClient::makeClassNamespaces(const ClassState &state)
{
    const QString rbac = QStringLiteral("/apis/rbac.authorization.k8s.io/v1/namespaces/%1/");
    if (auto made = ensureNamespace(state.classNamespace); !made)
        return made;
    const QJsonObject role{
        {QStringLiteral("apiVersion"), QStringLiteral("rbac.authorization.k8s.io/v1")},
        {QStringLiteral("kind"), QStringLiteral("Role")},
        {QStringLiteral("metadata"), metadata(QStringLiteral("fieldscope-class-student"), state.classNamespace)},
        {QStringLiteral("rules"), classNamespaceRules()}};
    if (auto made = createOrReplace(rbac.arg(state.classNamespace) + QStringLiteral("roles"),
                                    QStringLiteral("fieldscope-class-student"), QJsonDocument(role).toJson());
        !made)
        return made;
    if (auto made = createOrReplace(rbac.arg(state.classNamespace) + QStringLiteral("rolebindings"),
                                    QStringLiteral("fieldscope-class-students"),
                                    roleBinding(QStringLiteral("fieldscope-class-students"), state.classNamespace,
                                                QStringLiteral("Role"), QStringLiteral("fieldscope-class-student"),
                                                QStringLiteral("Group"), QStringLiteral("fieldscope:class")));
        !made)
        return made;
    if (auto made = makeQuota(state.classNamespace, true); !made)
        return made;
    for (const ClassStudent &student : state.students) {
        if (auto made = ensureNamespace(student.ownNamespace); !made)
            return made;
        if (auto made = makeQuota(student.ownNamespace, false); !made)
            return made;
        if (auto made = createOrReplace(rbac.arg(student.ownNamespace) + QStringLiteral("rolebindings"),
                                        QStringLiteral("fieldscope-class-student"),
                                        roleBinding(QStringLiteral("fieldscope-class-student"), student.ownNamespace,
                                                    QStringLiteral("ClusterRole"), QStringLiteral("edit"),
                                                    QStringLiteral("User"), student.name));
            !made)
            return made;
    }
    QStringList names{state.classNamespace};
    for (const ClassStudent &student : state.students)
        names.append(student.ownNamespace);
    return waitForQuotas(names);
}

core::Status AdminClient::makeQuota(const QString &ns, bool shared)
{
    const QString collection = QStringLiteral("/api/v1/namespaces/%1/resourcequotas").arg(ns);
    const QString name = QString::fromLatin1(kQuotaName);
    const QByteArray body = resourceQuota(ns, shared ? kClassQuota : kStudentQuota);
    auto made = blockingCall(*m_connection.transport, jsonRequest("POST", collection, body));
    if (made)
        return core::success();
    if (made.error().httpStatus != 409)
        return made.error();
    // There from an earlier class: a merge patch brings its limits up to date.
    kube::HttpRequest patch = jsonRequest("PATCH", collection + QLatin1Char('/') + name, body);
    patch.contentType = "application/merge-patch+json";
    auto patched = blockingCall(*m_connection.transport, std::move(patch));
    if (!patched)
        return patched.error();
    return core::success();
}

core::Status AdminClient::waitForQuotas(const QStringList &namespaces)
{
    const QDeadlineTimer deadline(kQuotaSyncWaitMs);
    for (const QString &ns : namespaces) {
        for (;;) {
            auto got = blockingCall(*m_connection.transport,
                                    jsonRequest("GET", QStringLiteral("/api/v1/namespaces/%1/resourcequotas/%2")
                                                           .arg(ns, QString::fromLatin1(kQuotaName))));
            if (!got)
                return got.error();
            const QJsonObject status =
                QJsonDocument::fromJson(QByteArray::fromStdString(got->body)).object().value(u"status").toObject();
            if (!status.value(u"hard").toObject().isEmpty() && !status.value(u"used").toObject().isEmpty())
                break;
            if (deadline.hasExpired())
                return core::Error::make(
                    core::ErrorCategory::Server,
                    "the ResourceQuota of namespace " + ns.toStdString()
                        + " has no status after three minutes (is kube-controller-manager running?)");
            QThread::msleep(100);
        }
    }
    return core::success();
}

core::Status AdminClient::deleteClassNamespaces(const ClassState &state)
{
    QStringList names{state.classNamespace};
    for (const ClassStudent &student : state.students)
        names.append(student.ownNamespace);
    for (const QString &name : names) {
        // Only what a class made: a namespace of that name the teacher had before (which the
        // class then used as it was) carries no class label and is kept.
        auto there = blockingCall(*m_connection.transport,
                                  jsonRequest("GET", QStringLiteral("/api/v1/namespaces/") + name));
        if (!there && there.error().httpStatus == 404)
            continue;
        if (!there)
            return there.error();
        const QJsonObject labels = QJsonDocument::fromJson(QByteArray::fromStdString(there->body))
                                       .object()
                                       .value(QStringLiteral("metadata"))
                                       .toObject()
                                       .value(QStringLiteral("labels"))
                                       .toObject();
        if (labels.value(QStringView(kClassLabelKey)).toString() != QStringView(kClassLabelValue))
            continue;
        auto deleted = blockingCall(*m_connection.transport,
                                    jsonRequest("DELETE", QStringLiteral("/api/v1/namespaces/") + name));
        if (!deleted && deleted.error().httpStatus != 404)
            return deleted.error();
    }
    return core::success();
}

int studentProbe(const QString &clusterDir, const QString &name, const QString &loopbackServer, const QString &ns)
{
    // The class's own copy of the credential (DIR/class/pki), not the kubeconfig handed out: the
    // teacher may have deleted or edited the --out folder since.
    const auto read = [](const QString &path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.read(qint64(64) * 1024) : QByteArray();
    };
    kube::ResolvedConfig config;
    config.server = loopbackServer.toStdString();
    config.caPem = read(clusterDir + QStringLiteral("/pki/ca.crt"));
    config.auth.method = kube::AuthMethod::ClientCertificate;
    config.auth.userName = name.toStdString();
    config.auth.clientCertificatePem = read(classDir(clusterDir) + QStringLiteral("/pki/") + name
                                            + QStringLiteral(".crt"));
    config.auth.clientKeyPem = read(classDir(clusterDir) + QStringLiteral("/pki/") + name + QStringLiteral(".key"));
    if (config.caPem.isEmpty() || config.auth.clientCertificatePem.isEmpty() || config.auth.clientKeyPem.isEmpty())
        return 0;
    kube::Connection connection = kube::connectResolved(std::move(config), kube::ConnectionOptions{});
    auto answer = blockingCall(*connection.transport,
                               jsonRequest("GET", QStringLiteral("/api/v1/namespaces/%1/configmaps?limit=1").arg(ns)));
    if (answer)
        return answer->status;
    return answer.error().httpStatus;
}

} // namespace fieldscope::app::classroom_detail
