// SPDX-License-Identifier: MIT
// Kernel and op names that still tell kernels apart when a table cell is narrow.
// A right-elided "sm90_xmma_gemm_…" is the same for every cuBLAS GEMM; what tells
// them apart is the tile size, the template arguments, a suffix or one word in
// the middle. So a name that does not fit is shortened in stages, each only when
// the one before is still too long: (1) the return type `void` and the argument
// list go (a kernel's arguments never name it), (2) the compact form: namespaces,
// `(anonymous namespace)`, lambdas' `operator()` chains, spaces after commas and
// cuBLAS/cuDNN filler words (`xmma_`, `tilesize`, `execute_`), demangled first when
// the trace kept an Itanium-mangled name; (3) the middle is elided, keeping the head
// and the part that distinguishes: given the other names of the column, where this
// one first differs from them (DistinctNames); alone, the tile size or the tail.
// The full name belongs in the cell's tooltip (the models' Qt::ToolTipRole).
#pragma once

#include <QHash>
#include <QMetaObject>
#include <QString>
#include <QStringList>
#include <QStyledItemDelegate>

class QFontMetrics;

namespace syncscope::ui {

// Stage 1: without a leading `void ` and the trailing argument list.
QString stripKernelSignature(const QString &name);
// Stages 1 and 2.
QString compactKernelName(const QString &name);

// Where the compact form of each name of a set (a column) first differs from the others:
// `first` from the nearest group of names, `last` from every other name (the longest
// common prefix with its neighbours in sorted order). -1 when the name has no sibling.
struct NameMarks {
    int first = -1;
    int last = -1;
};

class DistinctNames
{
public:
    struct Entry {
        QString compact;
        NameMarks marks;
    };
    void build(const QStringList &names);
    const Entry *find(const QString &name) const;
    bool isEmpty() const { return m_entries.isEmpty(); }
    void clear() { m_entries.clear(); }

private:
    QHash<QString, Entry> m_entries; // by the name as given
};

// At most `maxChars` characters (the ellipsis counts one); `set`: the column's names.
QString elideKernelName(const QString &name, int maxChars, const DistinctNames *set = nullptr);
// At most `width` pixels in `fm`.
QString elideKernelName(const QString &name, const QFontMetrics &fm, int width, const DistinctNames *set = nullptr);

// Paints a name column with elideKernelName at the cell's width, against the other
// names of the same column (recomputed when the model changes; not above 50,000 rows).
class ElidedNameDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    explicit ElidedNameDelegate(QObject *parent = nullptr);
    ~ElidedNameDelegate() override;
    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    // The text paint() draws for this cell in this option's rect (tests).
    QString shownText(const QStyleOptionViewItem &option, const QModelIndex &index) const;

private:
    const DistinctNames *namesOf(const QModelIndex &index) const;
    void watch(const QAbstractItemModel *model) const;

    mutable DistinctNames m_names;
    mutable const QAbstractItemModel *m_model = nullptr;
    mutable int m_column = -1;
    mutable bool m_dirty = true;
    mutable QList<QMetaObject::Connection> m_connections;
};

} // namespace syncscope::ui
