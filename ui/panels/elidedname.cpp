// SPDX-License-Identifier: MIT
#include "elidedname.h"

#include <QAbstractItemModel>
#include <QApplication>
#include <QFontMetrics>
#include <QRegularExpression>
#include <QStyle>

#include <algorithm>
#include <cstdlib>
#include <vector>

#if __has_include(<cxxabi.h>)
#include <cxxabi.h>
#define SYNCSCOPE_HAVE_CXXABI 1
#endif

namespace syncscope::ui {

namespace {

const QChar kEllipsis(0x2026);
const QChar kLambda(0x03bb);

bool isIdent(QChar c)
{
    return c.isLetterOrNumber() || c == u'_';
}

// The index of the bracket closing s[i] ('<', '(', '{' or '['), -1 when unbalanced.
// `operator<`, `operator>` and `->` are not brackets.
int closing(const QString &s, int i)
{
    std::vector<QChar> want;
    for (int j = i; j < s.size(); ++j) {
        const QChar c = s[j];
        const bool op = j >= 8 && QStringView(s).mid(j - 8, 8) == u"operator";
        if ((c == u'<' && !op) || c == u'(' || c == u'{' || c == u'[') {
            want.push_back(c == u'<' ? u'>' : c == u'(' ? u')' : c == u'{' ? u'}' : u']');
        } else if (c == u'>' || c == u')' || c == u'}' || c == u']') {
            if (c == u'>' && (op || (j > 0 && s[j - 1] == u'-')))
                continue;
            if (!want.empty() && want.back() == c) {
                want.pop_back();
                if (want.empty())
                    return j;
            } else if (c != u'>') {
                return -1;
            }
        }
    }
    return -1;
}

QString demangled(const QString &name)
{
#ifdef SYNCSCOPE_HAVE_CXXABI
    if (name.startsWith(QLatin1String("_Z"))) {
        int status = -1;
        const QByteArray raw = name.toLatin1();
        char *out = abi::__cxa_demangle(raw.constData(), nullptr, nullptr, &status);
        QString result = status == 0 && out ? QString::fromLatin1(out) : name;
        std::free(out);
        return result;
    }
#endif
    return name;
}

// `{lambda(float)#1}` -> `λ(float)`; `{lambda()#2}::` (an enclosing lambda) goes.
QString shortLambdas(const QString &s)
{
    static const QString open = QStringLiteral("{lambda(");
    QString out;
    int i = 0;
    while (true) {
        const int at = s.indexOf(open, i);
        if (at < 0)
            break;
        const int paren = at + open.size() - 1;
        const int close = closing(s, paren);
        int end = close < 0 ? -1 : s.indexOf(u'}', close);
        if (end < 0)
            break;
        out += QStringView(s).mid(i, at - i);
        const bool noArgs = close == paren + 1;
        const bool enclosing = noArgs && QStringView(s).mid(end + 1, 2) == u"::";
        if (enclosing)
            end += 2;
        else
            out += kLambda + (noArgs ? QString() : s.mid(paren, close - paren + 1));
        i = end + 1;
    }
    return out + s.mid(i);
}

// `a::b::name` -> `name` (not `const::`, nor before a lambda, whose enclosing function names it).
QString dropNamespaces(const QString &s)
{
    QString out;
    out.reserve(s.size());
    int i = 0;
    while (i < s.size()) {
        if (isIdent(s[i]) && (i == 0 || !isIdent(s[i - 1]))) {
            int j = i;
            while (j < s.size() && isIdent(s[j]))
                ++j;
            const bool qualifier = QStringView(s).mid(j, 2) == u"::" && QStringView(s).mid(i, j - i) != u"const" &&
                                   j + 2 < s.size() && s[j + 2] != kLambda && s[j + 2] != u'{';
            if (!qualifier)
                out += QStringView(s).mid(i, j - i);
            i = qualifier ? j + 2 : j;
            continue;
        }
        out += s[i++];
    }
    return out;
}

// Argument lists of functions named inside template arguments (`f(at::Tensor&)::λ`).
QString dropInnerArguments(const QString &s)
{
    QString out;
    out.reserve(s.size());
    for (int i = 0; i < s.size(); ++i) {
        if (s[i] == u'(' && i > 0 && (isIdent(s[i - 1]) || s[i - 1] == u'>') && !out.endsWith(QLatin1String("lambda"))) {
            const int j = closing(s, i);
            if (j > 0 && QStringView(s).mid(j + 1, 2) == u"::") {
                i = j;
                continue;
            }
        }
        out += s[i];
    }
    return out;
}

// `::operator()() const`, `::operator()(at::TensorIterator&)`: a lambda's or functor's call.
QString dropCallOperators(QString s)
{
    static const QString call = QStringLiteral("::operator()(");
    int at;
    while ((at = s.indexOf(call)) >= 0) {
        const int close = closing(s, at + call.size() - 1);
        if (close < 0)
            break;
        int end = close + 1;
        if (QStringView(s).mid(end, 6) == u" const")
            end += 6;
        s.remove(at, end - at);
    }
    return s;
}

// Where a name's head ends: its base name (before `<` or `(`), at most a third of the room,
// cut at a word boundary when there is one in the second half.
int headLength(const QString &s, int maxChars)
{
    const int cap = std::max(4, (maxChars - 1) / 3);
    int base = 0;
    while (base < s.size() && s[base] != u'<' && s[base] != u'(')
        ++base;
    if (base <= cap)
        return std::max(std::min(base, cap), std::min(4, int(s.size())));
    for (int i = cap; i > cap / 2; --i)
        if (s[i] == u'_')
            return i;
    return cap;
}

bool separator(QChar c)
{
    return c == u'_' || c == u'<' || c == u'>' || c == u',' || c == u':' || c == u'(' || c == u')';
}

// The start of the word position m is in (at most 8 characters back).
int wordStart(const QString &s, int m)
{
    int w = m;
    while (w > 0 && !separator(s[w - 1]) && m - w < 8)
        --w;
    return w;
}

using Windows = std::vector<std::pair<int, int>>; // [from, to) of the compact name, shown

Windows merged(Windows w)
{
    std::sort(w.begin(), w.end());
    Windows out{w.front()};
    for (size_t i = 1; i < w.size(); ++i) {
        if (w[i].first <= out.back().second + 1) // a one-character gap costs what its ellipsis does
            out.back().second = std::max(out.back().second, w[i].second);
        else
            out.push_back(w[i]);
    }
    return out;
}

int cost(const Windows &w, int size)
{
    int n = int(w.size()) - 1 + (w.back().second < size ? 1 : 0);
    for (const auto &[a, b] : w)
        n += b - a;
    return n;
}

// The head, a window at each mark (its word and two characters after the mark), the rest
// of the room to the last window (its context to the right), then to the head.
QString around(const QString &s, int maxChars, std::vector<int> marks)
{
    const int size = int(s.size());
    Windows wins{{0, headLength(s, maxChars)}};
    std::sort(marks.begin(), marks.end());
    marks.erase(std::unique(marks.begin(), marks.end()), marks.end());
    for (int m : marks)
        if (m >= 0 && m < size)
            wins.push_back({wordStart(s, m), std::min(size, m + 3)});
    Windows w = merged(wins);
    // Too many windows for the room: the outermost (most specific) mark is kept longest.
    while (cost(w, size) > maxChars && wins.size() > 1) {
        wins.erase(wins.size() > 2 ? wins.begin() + 1 : wins.end() - 1);
        w = merged(wins);
    }
    if (cost(w, size) > maxChars)
        w = {{0, std::max(0, maxChars - 1)}};
    for (size_t k : {w.size() - 1, size_t(0)}) {
        while (cost(w, size) < maxChars && w[k].second < size) {
            Windows grown = w;
            ++grown[k].second;
            grown = merged(grown);
            if (cost(grown, size) > maxChars)
                break;
            w = grown;
            k = std::min(k, w.size() - 1);
        }
    }
    QString out;
    for (size_t i = 0; i < w.size(); ++i) {
        if (i)
            out += kEllipsis;
        out += QStringView(s).mid(w[i].first, w[i].second - w[i].first);
    }
    if (w.back().second < size)
        out += kEllipsis;
    return out;
}

// Stage 3 on a compact name that does not fit.
QString elideCompact(const QString &c, int maxChars, const NameMarks *marks)
{
    if (maxChars <= 1)
        return maxChars == 1 ? QString(kEllipsis) : QString();
    const int cap = (maxChars - 1) / 3;
    // Against the column's names: keep where this one differs, unless the head shows it anyway.
    const bool early = marks && marks->last >= 0 && marks->last < cap;
    if (marks && marks->last >= 0 && !early)
        return around(c, maxChars, {marks->first, marks->last});
    // A cuBLAS/cuDNN/CUTLASS tile size past the head is what tells its kernels apart.
    static const QRegularExpression tile(QStringLiteral("(?<![A-Za-z])\\d+x\\d+(x\\d+)?"));
    const QRegularExpressionMatch m = tile.match(c);
    if (m.hasMatch() && m.capturedStart() > cap)
        return around(c, maxChars, {early ? marks->last : -1, int(m.capturedStart())});
    // Otherwise the head and the tail (template arguments, a suffix), the tail longer.
    return c.left(cap) + kEllipsis + c.right(maxChars - 1 - cap);
}

int commonPrefix(const QString &a, const QString &b)
{
    const int n = int(std::min(a.size(), b.size()));
    int k = 0;
    while (k < n && a[k] == b[k])
        ++k;
    return k;
}

} // namespace

QString stripKernelSignature(const QString &name)
{
    QString s = name.trimmed();
    if (s.startsWith(QLatin1String("void ")))
        s.remove(0, 5);
    // The first '(' outside brackets that follows a name and closes at the end: the arguments.
    for (int i = 0; i < s.size(); ++i) {
        const QChar c = s[i];
        if (c != u'<' && c != u'(' && c != u'{' && c != u'[')
            continue;
        if (c == u'<' && i >= 8 && QStringView(s).mid(i - 8, 8) == u"operator")
            continue;
        const int j = closing(s, i);
        if (j < 0)
            return s;
        if (c == u'(' && i > 0 && (isIdent(s[i - 1]) || s[i - 1] == u'>')) {
            const QStringView rest = QStringView(s).mid(j + 1).trimmed();
            if (rest.isEmpty() || rest == u"const")
                return s.left(i);
        }
        i = j;
    }
    return s;
}

QString compactKernelName(const QString &name)
{
    QString s = stripKernelSignature(demangled(name.trimmed()));
    s.remove(QStringLiteral("(anonymous namespace)::"));
    s = dropCallOperators(s);
    s = dropInnerArguments(s);
    s = shortLambdas(s);
    s = dropNamespaces(s);
    s.replace(QLatin1String("unsigned int"), QLatin1String("uint"));
    s.replace(QLatin1String("unsigned long"), QLatin1String("ulong"));
    s.replace(QLatin1String("unsigned char"), QLatin1String("uchar"));
    s.replace(QLatin1String(", "), QLatin1String(","));
    while (s.contains(QLatin1String("> >")))
        s.replace(QLatin1String("> >"), QLatin1String(">>"));
    // cuBLAS / cuDNN filler: `_xmma_`, `_execute_`; `tilesize128x128x64` reads as `128x128x64`.
    static const QRegularExpression filler(QStringLiteral("_(xmma|execute)_"));
    static const QRegularExpression sizes(QStringLiteral("_(tilesize|warpgroupsize|warpsize)(?=\\d)"));
    s.replace(filler, QStringLiteral("_"));
    s.replace(QLatin1String("implicit_gemm"), QLatin1String("igemm"));
    for (QRegularExpressionMatch m = sizes.match(s); m.hasMatch(); m = sizes.match(s, m.capturedStart() + 1)) {
        const QString word = m.captured(1);
        s.replace(m.capturedStart(), m.capturedLength(),
                  word == u"tilesize" ? QStringLiteral("_") : word == u"warpsize" ? QStringLiteral("_w") : QStringLiteral("_wg"));
    }
    return s;
}

void DistinctNames::build(const QStringList &names)
{
    m_entries.clear();
    std::vector<QString> compact;
    for (const QString &n : names) {
        if (m_entries.contains(n))
            continue;
        Entry e{compactKernelName(n), {}};
        compact.push_back(e.compact);
        m_entries.insert(n, std::move(e));
    }
    std::sort(compact.begin(), compact.end());
    compact.erase(std::unique(compact.begin(), compact.end()), compact.end());
    QHash<QString, NameMarks> marks;
    for (size_t i = 0; i < compact.size(); ++i) {
        NameMarks m;
        for (size_t j : {i - 1, i + 1}) { // i - 1 wraps for the first: out of range
            if (j >= compact.size())
                continue;
            const int k = commonPrefix(compact[i], compact[j]);
            m.first = m.first < 0 ? k : std::min(m.first, k);
            m.last = std::max(m.last, k);
        }
        marks.insert(compact[i], m);
    }
    for (Entry &e : m_entries)
        e.marks = marks.value(e.compact);
}

const DistinctNames::Entry *DistinctNames::find(const QString &name) const
{
    auto it = m_entries.constFind(name);
    return it == m_entries.constEnd() ? nullptr : &it.value();
}

QString elideKernelName(const QString &name, int maxChars, const DistinctNames *set)
{
    if (name.size() <= maxChars)
        return name;
    const QString stripped = stripKernelSignature(name);
    if (stripped.size() <= maxChars)
        return stripped;
    const DistinctNames::Entry *e = set ? set->find(name) : nullptr;
    const QString c = e ? e->compact : compactKernelName(name);
    if (c.size() <= maxChars)
        return c;
    return elideCompact(c, maxChars, e ? &e->marks : nullptr);
}

QString elideKernelName(const QString &name, const QFontMetrics &fm, int width, const DistinctNames *set)
{
    if (fm.horizontalAdvance(name) <= width)
        return name;
    const QString stripped = stripKernelSignature(name);
    if (fm.horizontalAdvance(stripped) <= width)
        return stripped;
    const DistinctNames::Entry *e = set ? set->find(name) : nullptr;
    const QString c = e ? e->compact : compactKernelName(name);
    if (fm.horizontalAdvance(c) <= width)
        return c;
    // The most characters whose elided form fits (wider with more, so a bisection).
    int lo = 0, hi = int(c.size()) - 1;
    QString best;
    while (lo <= hi) {
        const int mid = (lo + hi) / 2;
        QString t = elideCompact(c, mid, e ? &e->marks : nullptr);
        if (fm.horizontalAdvance(t) <= width) {
            best = std::move(t);
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return best;
}

ElidedNameDelegate::ElidedNameDelegate(QObject *parent)
    : QStyledItemDelegate(parent)
{
}

ElidedNameDelegate::~ElidedNameDelegate()
{
    for (const auto &c : m_connections)
        QObject::disconnect(c);
}

void ElidedNameDelegate::watch(const QAbstractItemModel *model) const
{
    for (const auto &c : m_connections)
        QObject::disconnect(c);
    m_connections.clear();
    m_model = model;
    m_dirty = true;
    if (!model)
        return;
    auto dirty = [this] { m_dirty = true; };
    m_connections << connect(model, &QAbstractItemModel::modelReset, this, dirty)
                  << connect(model, &QAbstractItemModel::rowsInserted, this, dirty)
                  << connect(model, &QAbstractItemModel::rowsRemoved, this, dirty)
                  << connect(model, &QAbstractItemModel::dataChanged, this, dirty)
                  << connect(model, &QAbstractItemModel::layoutChanged, this, dirty)
                  << connect(model, &QObject::destroyed, this, [this] {
                         m_model = nullptr;
                         m_names.clear();
                     });
}

const DistinctNames *ElidedNameDelegate::namesOf(const QModelIndex &index) const
{
    const QAbstractItemModel *model = index.model();
    if (model != m_model)
        watch(model);
    if (index.column() != m_column) {
        m_column = index.column();
        m_dirty = true;
    }
    if (m_dirty) {
        m_dirty = false;
        m_names.clear();
        const int rows = model->rowCount(index.parent());
        if (rows > 50000) // a huge column: each name alone (cheap), not against the others
            return nullptr;
        QStringList names;
        names.reserve(rows);
        for (int r = 0; r < rows; ++r)
            names << model->index(r, m_column, index.parent()).data(Qt::DisplayRole).toString();
        m_names.build(names);
    }
    return m_names.isEmpty() ? nullptr : &m_names;
}

QString ElidedNameDelegate::shownText(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem opt(option);
    initStyleOption(&opt, index);
    const QWidget *w = opt.widget;
    const QStyle *style = w ? w->style() : QApplication::style();
    // The width the style lays the text out in: its text rect less the margins it keeps.
    const QRect text = style->subElementRect(QStyle::SE_ItemViewItemText, &opt, w);
    const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, w) + 1;
    return elideKernelName(opt.text, opt.fontMetrics, text.width() - 2 * margin, namesOf(index));
}

void ElidedNameDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem opt(option);
    initStyleOption(&opt, index);
    opt.text = shownText(option, index);
    const QWidget *w = opt.widget;
    (w ? w->style() : QApplication::style())->drawControl(QStyle::CE_ItemViewItem, &opt, painter, w);
}

} // namespace syncscope::ui
