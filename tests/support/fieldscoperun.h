#pragma once
// The built `fieldscope` binary run as a user would, for tests of the command line and the
// window's scripted modes against a local server (tests/support/transcriptserver.h) or a cluster.
// The run never sees the tester's own settings, consents, caches or kubeconfig: HOME and the XDG
// folders are inside `home`, KUBECONFIG is unset, and the window (if any) draws offscreen.
#include <QByteArray>
#include <QString>
#include <QStringList>

#include <string>

namespace fieldscope::testing {

struct FieldscopeRun {
    int code = -1;        // the exit code; -1 when it crashed or did not finish in time
    bool crashed = false; // ended by a signal (std::terminate's SIGABRT included) or killed at the timeout
    QByteArray out, err;
    qint64 elapsedMs = 0;
};

struct FieldscopeRunOptions {
    QString dataHome; // XDG_DATA_HOME (lessons, histories); "" = HOME/.local/share
    int timeoutMs = 120'000;
};

FieldscopeRun runFieldscope(const QStringList &args, const QString &home, const FieldscopeRunOptions &options = {});

// A kubeconfig at DIR/kubeconfig reaching SERVER as a token user (token "t"), with one context
// (cluster "c", user "u") made current; returns its path ("" when it cannot be written).
struct TokenKubeconfig {
    QString context = QStringLiteral("x");
    QString namespace_; // the context's namespace ("" = none)
};
QString writeTokenKubeconfig(const QString &dir, const std::string &server, const TokenKubeconfig &kubeconfig = {});

} // namespace fieldscope::testing
