#pragma once
// The user's settings, one place for every key, its default and its validation. Kept in QSettings
// (~/.config/fieldscope/fieldscope.conf), which the window, `record`, `apply`, the history source
// and the background recorder all read: they read it here, never by key. The window's
// Settings dialog (widgets/settingsdialog.h) only shows and edits values; app/gui/workspace.cpp
// loads them from here and saves them back through the setters, which refuse what is invalid.
//
// A settings file is the user's, but may have been edited by hand or written by another version:
// a value that is not valid reads as its default (or the nearest allowed value), never as
// something that would silently change what is recorded or written.
//
// Thread-safe: every call makes its own QSettings (reentrant); QSettings locks the file across
// processes.
#include <QString>
#include <QStringList>

#include <vector>

namespace fieldscope::app {

// One key, for docs/settings.md and the tests that keep the two in step.
struct SettingKey {
    const char *key;
    const char *defaultValue; // as text ("" = none)
    const char *meaning;
};

class Settings
{
public:
    // Every key this class reads or writes, in the order docs/settings.md lists them (the exec
    // plugin decisions are SettingsConsentStore's, the views' layout the widgets').
    static const std::vector<SettingKey> &keys();

    // History: versions kept per object in a history file on this computer (a shared store's
    // retention is the store's own). Below the minimum reads as the minimum; not a number, as
    // the default.
    static constexpr int kDefaultVersionsPerObject = 1000;
    static constexpr int kMinVersionsPerObject = 2;
    static constexpr int kMaxVersionsPerObject = 100000;
    static int historyVersionsPerObject();
    static QString setHistoryVersionsPerObject(int versions); // "" or why not (nothing kept)

    // The fieldManager name the window and `apply` write with.
    static constexpr const char *kDefaultFieldManager = "fieldscope";
    static QString fieldManager();
    // "" when the API server accepts NAME as a fieldManager (1 to 128 characters, no control
    // characters), else why not.
    static QString checkFieldManager(const QString &name);
    static QString setFieldManager(const QString &name); // trimmed; "" or why not

    // What the background recorder records: resource names, comma-separated.
    static constexpr const char *kDefaultBackgroundResources =
        "deployments,statefulsets,daemonsets,configmaps,services";
    static QString backgroundResources();
    static QString checkBackgroundResources(const QString &resources); // "" or why not
    static QString setBackgroundResources(const QString &resources);   // "" or why not

    // Where histories are kept: "" = on this computer (SQLite files), else the team's PostgreSQL
    // URL (never with a password: ~/.pgpass, PG* environment or a service file hold those).
    static QString sharedHistoryUrl();
    static QString checkSharedHistoryUrl(const QString &url); // "" (fine, or empty) or why not
    static QString setSharedHistoryUrl(const QString &url);   // "" or why not; empty = this computer

    // The resource kinds starred in the kinds list ("deployments.apps", ...), one list for every
    // cluster.
    static QStringList favourites();
    static void setFavourites(const QStringList &kinds);

    // The opt-in to record Secret values (history, drafts) for one cluster identity (the history's:
    // SHA-256 of server URL and CA bundle, never a context name); default off.
    static bool recordsSecretValues(const QString &clusterIdentity);
    static void setRecordsSecretValues(const QString &clusterIdentity, bool on);
    // Earlier versions kept the opt-in per context name. Such a key is never consent for a
    // cluster: the window asks once (and then removes it), the command line only mentions it.
    static bool hadLegacySecretValuesOptIn(const QString &context);
    static void removeLegacySecretValuesOptIn(const QString &context);
};

} // namespace fieldscope::app
