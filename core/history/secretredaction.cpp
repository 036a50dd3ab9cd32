#include "core/history/secretredaction.h"

#include <QByteArray>
#include <QMessageAuthenticationCode>
#include <QRandomGenerator>

#include <array>

namespace fieldscope::core {

namespace {

// The field and the key name are part of the hashed message: equal values under two keys do not
// show as equal (that would say more than "this key changed").
std::string hashOf(std::string_view key, std::string_view field, std::string_view name, std::string_view value)
{
    QMessageAuthenticationCode mac(QCryptographicHash::Sha256, QByteArray(key.data(), qsizetype(key.size())));
    mac.addData(field.data(), qsizetype(field.size()));
    mac.addData("\0", 1);
    mac.addData(name.data(), qsizetype(name.size()));
    mac.addData("\0", 1);
    mac.addData(value.data(), qsizetype(value.size()));
    return std::string(kRedactedPrefix) + mac.result().toHex().toStdString();
}

int redactMap(Json &map, std::string_view key, std::string_view field)
{
    if (!map.is_object())
        return 0;
    int n = 0;
    for (auto it = map.begin(); it != map.end(); ++it) {
        // A non-string value is not what the server sends; it is hidden all the same.
        const std::string value = it.value().is_string() ? it.value().get<std::string>() : toJsonText(it.value());
        if (it.value().is_string() && isRedactedValue(value))
            continue;
        it.value() = hashOf(key, field, it.key(), value);
        ++n;
    }
    return n;
}

} // namespace

std::string newRedactionKey()
{
    std::array<quint32, 8> words{};
    QRandomGenerator::system()->fillRange(words.data(), qsizetype(words.size()));
    return std::string(reinterpret_cast<const char *>(words.data()), sizeof(words));
}

bool isSecretObject(std::string_view apiVersion, std::string_view kind)
{
    return apiVersion == "v1" && kind == "Secret";
}

bool isSecretObject(const Json &object)
{
    if (!object.is_object())
        return false;
    const auto av = object.find("apiVersion");
    const auto kind = object.find("kind");
    return av != object.end() && kind != object.end() && av->is_string() && kind->is_string()
        && isSecretObject(av->get_ref<const std::string &>(), kind->get_ref<const std::string &>());
}

bool isRedactedValue(std::string_view value)
{
    return value.size() == kRedactedPrefix.size() + 64 && value.substr(0, kRedactedPrefix.size()) == kRedactedPrefix;
}

namespace {
int describeIn(Json &value)
{
    if (!value.is_string() || !isRedactedValue(value.get_ref<const std::string &>()))
        return 0;
    value = "(hidden value " + value.get<std::string>().substr(kRedactedPrefix.size(), 8) + ")";
    return 1;
}
} // namespace

int describeRedactedValues(Json &object)
{
    if (!isSecretObject(object))
        return 0;
    int n = 0;
    for (const char *field : {"data", "stringData"})
        if (auto it = object.find(field); it != object.end() && it->is_object())
            for (auto &v : *it)
                n += describeIn(v);
    if (auto meta = object.find("metadata"); meta != object.end() && meta->is_object())
        if (auto ann = meta->find("annotations"); ann != meta->end() && ann->is_object())
            if (auto la = ann->find(kLastAppliedAnnotation); la != ann->end())
                n += describeIn(*la);
    return n;
}

int redactSecret(Json &object, std::string_view key)
{
    if (!object.is_object())
        return 0;
    int n = 0;
    for (const char *field : {"data", "stringData"})
        if (auto it = object.find(field); it != object.end())
            n += redactMap(*it, key, field);
    if (auto meta = object.find("metadata"); meta != object.end() && meta->is_object())
        if (auto ann = meta->find("annotations"); ann != meta->end() && ann->is_object())
            if (auto la = ann->find(kLastAppliedAnnotation); la != ann->end()) {
                const std::string value = la->is_string() ? la->get<std::string>() : toJsonText(*la);
                if (!isRedactedValue(value)) {
                    *la = hashOf(key, "annotation", kLastAppliedAnnotation, value);
                    ++n;
                }
            }
    return n;
}

} // namespace fieldscope::core
