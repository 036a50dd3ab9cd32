#pragma once
// The class's API calls (see classroom.h): blocking, from the calling thread, through the kube
// client's transport (its own network thread). Not part of the contract.
#include "app/services/classroom.h"
#include "kube/connection.h"
#include "kube/http.h"

namespace fieldscope::app::classroom_detail {

// Runs one request to its end; a non-2xx answer is a typed error (kube/apierror.h).
core::Result<kube::HttpResponse> blockingCall(kube::Transport &transport, kube::HttpRequest request);

// The sandbox admin (DIR/kubeconfig, its current context): the teacher's credential, used on
// this machine only.
class AdminClient
{
public:
    static core::Result<AdminClient> open(const QString &clusterDir);
    // The class namespace (students write there, Secrets excepted) and one namespace per student
    // (full edit rights there), each with a ResourceQuota on object counts. Existing ones are
    // kept and their RBAC and quota brought up to date.
    core::Status makeClassNamespaces(const ClassState &state);
    // Deletes the class namespace and every student's that carry the class label (missing ones and
    // ones the class did not make are left).
    core::Status deleteClassNamespaces(const ClassState &state);

private:
    core::Status ensureNamespace(const QString &name);
    core::Status createOrReplace(const QString &collectionPath, const QString &name, const QByteArray &body);
    // The ResourceQuota "fieldscope-class" of `ns` (larger for the shared class namespace).
    core::Status makeQuota(const QString &ns, bool shared);
    // Until the quota controller has counted each namespace (creates are refused before that).
    core::Status waitForQuotas(const QStringList &namespaces);
    kube::Connection m_connection;
};

// The HTTP status student `name`'s credential (DIR/class/pki/NAME.crt and .key) gets for listing
// ConfigMaps of `ns`, sent to the API server on loopback (`loopbackServer`) whatever address the
// students' kubeconfigs name: what is probed is the server's trust, not the network. 0 when the
// server could not be reached or the credential is missing; 401: the API server does not (or no
// longer) trust the student.
int studentProbe(const QString &clusterDir, const QString &name, const QString &loopbackServer, const QString &ns);

} // namespace fieldscope::app::classroom_detail
