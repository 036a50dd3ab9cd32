#include "models/labelselector.h"

#include <QCoreApplication>

#include <algorithm>

namespace fieldscope::models {

const std::string *findLabel(const Labels &labels, const std::string &key)
{
    auto it = std::lower_bound(labels.begin(), labels.end(), key,
                               [](const auto &kv, const std::string &k) { return kv.first < k; });
    return it != labels.end() && it->first == key ? &it->second : nullptr;
}

bool LabelRequirement::matches(const Labels &labels) const
{
    const std::string *v = findLabel(labels, key);
    switch (op) {
    case Op::Exists: return v != nullptr;
    case Op::NotExists: return v == nullptr;
    case Op::Equals: return v && *v == values.front();
    // The server's != and notin also match objects without the key (labels.Selector semantics).
    case Op::NotEquals: return !v || *v != values.front();
    case Op::In: return v && std::find(values.begin(), values.end(), *v) != values.end();
    case Op::NotIn: return !v || std::find(values.begin(), values.end(), *v) == values.end();
    }
    return false;
}

bool LabelSelector::matches(const Labels &labels) const
{
    return std::all_of(requirements.begin(), requirements.end(), [&](const auto &r) { return r.matches(labels); });
}

namespace {

QString trText(const char *s)
{
    return QCoreApplication::translate("LabelSelector", s);
}

bool validKey(const QString &k)
{
    if (k.isEmpty())
        return false;
    return std::all_of(k.begin(), k.end(), [](QChar c) {
        return c.isLetterOrNumber() || c == u'-' || c == u'_' || c == u'.' || c == u'/';
    });
}

// Splits at top-level commas (commas inside "(...)" belong to a value set).
QStringList splitTerms(const QString &text)
{
    QStringList out;
    int depth = 0, start = 0;
    for (int i = 0; i < text.size(); ++i) {
        if (text[i] == u'(')
            ++depth;
        else if (text[i] == u')')
            --depth;
        else if (text[i] == u',' && depth == 0) {
            out << text.mid(start, i - start).trimmed();
            start = i + 1;
        }
    }
    out << text.mid(start).trimmed();
    return out;
}

bool parseTerm(const QString &term, LabelRequirement *r, QString *error)
{
    using Op = LabelRequirement::Op;
    auto fail = [&](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    if (term.startsWith(u'!')) {
        const QString key = term.mid(1).trimmed();
        if (!validKey(key))
            return fail(trText("\"%1\" is not a label key").arg(key));
        *r = {key.toStdString(), Op::NotExists, {}};
        return true;
    }
    const qsizetype paren = term.indexOf(u'(');
    if (paren > 0) {
        const QStringList head = term.left(paren).simplified().split(u' ');
        if (head.size() != 2 || (head[1] != QLatin1String("in") && head[1] != QLatin1String("notin"))
            || !term.endsWith(u')'))
            return fail(trText("expected \"key in (a,b)\" or \"key notin (a,b)\" in \"%1\"").arg(term));
        if (!validKey(head[0]))
            return fail(trText("\"%1\" is not a label key").arg(head[0]));
        r->key = head[0].toStdString();
        r->op = head[1] == QLatin1String("in") ? Op::In : Op::NotIn;
        r->values.clear();
        const QString inner = term.mid(paren + 1, term.size() - paren - 2);
        for (const QString &v : inner.split(u','))
            r->values.push_back(v.trimmed().toStdString());
        return true;
    }
    for (const auto &[token, op] :
         {std::pair{QStringLiteral("!="), Op::NotEquals}, std::pair{QStringLiteral("=="), Op::Equals},
          std::pair{QStringLiteral("="), Op::Equals}}) {
        const qsizetype at = term.indexOf(token);
        if (at < 0)
            continue;
        const QString key = term.left(at).trimmed();
        if (!validKey(key))
            return fail(trText("\"%1\" is not a label key").arg(key));
        *r = {key.toStdString(), op, {term.mid(at + token.size()).trimmed().toStdString()}};
        return true;
    }
    if (!validKey(term))
        return fail(trText("\"%1\" is not a label key").arg(term));
    *r = {term.toStdString(), Op::Exists, {}};
    return true;
}

} // namespace

bool parseLabelSelector(const QString &text, LabelSelector *out, QString *error)
{
    out->requirements.clear();
    if (text.trimmed().isEmpty())
        return true;
    for (const QString &term : splitTerms(text)) {
        if (term.isEmpty())
            continue;
        LabelRequirement r;
        if (!parseTerm(term, &r, error)) {
            out->requirements.clear();
            return false;
        }
        out->requirements.push_back(std::move(r));
    }
    return true;
}

QuickFilter QuickFilter::parse(const QString &text)
{
    QuickFilter f;
    QString rest = text.trimmed();
    QString fullSelector;
    const int dashL = rest.startsWith(QLatin1String("-l ")) ? 0 : int(rest.indexOf(QLatin1String(" -l ")));
    if (dashL >= 0) {
        fullSelector = rest.mid(dashL + (dashL == 0 ? 3 : 4));
        rest = rest.left(dashL);
    }
    // Words, with "key in (a, b)" kept together.
    QStringList words;
    const QStringList raw = rest.split(u' ', Qt::SkipEmptyParts);
    for (int i = 0; i < raw.size(); ++i) {
        QString w = raw[i];
        if (i + 1 < raw.size() && (raw[i + 1] == QLatin1String("in") || raw[i + 1] == QLatin1String("notin"))) {
            w += u' ' + raw[++i];
            while (i + 1 < raw.size() && !w.endsWith(u')'))
                w += u' ' + raw[++i];
        }
        words << w;
    }
    QStringList selectorTerms;
    for (const QString &w : words) {
        if (w.contains(u'=') || w.startsWith(u'!') || w.contains(u'('))
            selectorTerms << w;
        else
            f.words.push_back(w.toLower().toStdString());
    }
    if (!fullSelector.isEmpty())
        selectorTerms << fullSelector;
    if (!selectorTerms.isEmpty() && !parseLabelSelector(selectorTerms.join(u','), &f.selector, &f.error))
        f.selector = {};
    return f;
}

namespace {
bool containsIcase(std::string_view hay, std::string_view lowerNeedle)
{
    if (lowerNeedle.size() > hay.size())
        return false;
    const auto it = std::search(hay.begin(), hay.end(), lowerNeedle.begin(), lowerNeedle.end(),
                                [](char a, char b) { return (a >= 'A' && a <= 'Z' ? char(a + 32) : a) == b; });
    return it != hay.end();
}
} // namespace

bool QuickFilter::matchesName(std::string_view namespace_, std::string_view name) const
{
    for (const auto &w : words) {
        if (containsIcase(name, w))
            continue;
        // "ns/name" words and namespace words.
        const auto slash = w.find('/');
        if (slash != std::string::npos) {
            if (containsIcase(namespace_, w.substr(0, slash)) && containsIcase(name, w.substr(slash + 1)))
                continue;
        } else if (containsIcase(namespace_, w)) {
            continue;
        }
        return false;
    }
    return true;
}

} // namespace fieldscope::models
